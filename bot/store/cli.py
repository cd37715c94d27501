"""`vllm-doctor db upgrade|current`: migrate the outcome store and say where it stands.

The database is --db, else $DATABASE_URL, else the SQLite file in the user's data directory.
"""

from __future__ import annotations

import sys

from sqlalchemy.exc import SQLAlchemyError

from bot.base.errors import Parser, SetupError


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="vllm-doctor db", description=__doc__.split("\n")[0])
    parser.add_argument("--db", metavar="URL", help="database URL (default: $DATABASE_URL, else the local SQLite file)")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("upgrade", help="run the migrations up to the newest (or to REVISION)")
    up.add_argument("revision", nargs="?", default="head")
    sub.add_parser("current", help="print the revision the database is at")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)

    from . import migrate
    from .engine import display
    from .store import Store

    try:
        store = Store.from_env(args.db)
    except SetupError as e:
        print(f"vllm-doctor db: {e}", file=sys.stderr)
        return 2
    where = display(store.url)
    try:
        head = migrate.head()
        if args.command == "upgrade":
            before = store.current()
            after = store.upgrade(args.revision)
            if before == after:
                print(f"{where} is already at {after}")
            else:
                print(f"{where} upgraded from {before or 'an empty database'} to {after}")
            return 0
        current = store.current()
        state = "up to date" if current == head else f"newest is {head}; run `vllm-doctor db upgrade`"
        print(f"{where}: {current or 'no revision (empty database)'} ({state})")
        return 0
    except SQLAlchemyError as e:
        # The command line's convention (bot/errors.py): could not do what was asked, exit 2.
        print(f"vllm-doctor db: {where}: {type(e).__name__}: {(str(e).strip().splitlines() or [''])[0]}",
              file=sys.stderr)
        return 2
    finally:
        store.dispose()
