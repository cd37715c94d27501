"""The data that ships with the code: the rule book, the migrations with alembic.ini, the examples.

An installed wheel holds them inside the package (`bot/rules/`, `bot/migrations/`,
`bot/alembic.ini`, `bot/examples/`: setup.py maps the top-level folders there at build time). A
checkout, and an editable install of one, keeps them at the top beside `bot/`, and reads those
live files. Each name is looked up in the package first, then beside it.
"""

from __future__ import annotations

import os


class MissingData(RuntimeError):
    """A shipped file is neither in the package nor beside it: a broken install."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # bot/, above bot/base/


def path(name: str) -> str:
    """The file or folder `name` ('rules', 'migrations', 'alembic.ini') as a path on disk.

    A package installed in a folder (a wheel, an editable install, a checkout) is that folder: it
    is what `importlib.resources.files("bot")` answers, found here without that module's imports
    (about 10 ms of typing and tempfile), because the rule book is read on every cold `diagnose`,
    whose budget is 1.5x a bare `python -c "import yaml, rapidfuzz"`.
    """
    for root in (_PACKAGE, os.path.dirname(_PACKAGE)):
        candidate = os.path.join(root, name)
        if os.path.exists(candidate):
            return candidate
    raise MissingData(f"{name} is neither in the installed package ({_PACKAGE}) nor beside it; "
                      "reinstall vllm-doctor (pip install vllm-doctor, or pip install -e . in a checkout)")


def read_bytes(name: str) -> bytes:
    """A packaged file's bytes: from the folder `path` finds it in, else through importlib.resources (a package
    some other loader installed, such as a zip), whose imports cost the bundled example's cold start 10-20 ms."""
    try:
        with open(path(name), "rb") as f:
            return f.read()
    except (MissingData, OSError):
        pass
    from importlib import resources

    item = resources.files("bot")
    for part in name.split("/"):
        item = item / part
    if not item.is_file():
        raise MissingData(f"{name} is not in the installed package")
    return item.read_bytes()


def rules_dir() -> str:
    return path("rules")


def migrations_dir() -> str:
    return path("migrations")


def alembic_ini() -> str:
    return path("alembic.ini")
