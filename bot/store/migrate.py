"""Run the Alembic migrations in migrations/ from code, from any working directory.

migrations/ sits at the top of the repository (beside bot/), so it is found from this file's
own location: that works from a clean clone and from an editable install. The URL and, in tests,
an open connection travel in `Config.attributes`, never through `set_main_option`, whose
ConfigParser interpolation breaks on the `%` of an encoded password.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, Connection

REPO_ROOT = Path(__file__).resolve().parents[2]


def migrations_dir() -> Path:
    path = REPO_ROOT / "migrations"
    if not (path / "env.py").is_file():
        raise RuntimeError(
            f"the Alembic migrations are not at {path}; vllm-doctor must run from a checkout or an "
            "editable install (pip install -e .) so that migrations/ is beside bot/")
    return path


def alembic_config(url: URL | str | None = None, connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()).replace("%", "%%"))
    cfg.set_main_option("path_separator", "os")
    if url is not None:
        cfg.attributes["url"] = url
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def upgrade(connection: Connection, revision: str = "head") -> None:
    command.upgrade(alembic_config(connection=connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    command.downgrade(alembic_config(connection=connection), revision)


def current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
