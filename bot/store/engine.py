"""Where the database is and how to connect to it.

SQLite in the user's data directory is the embedded default; DATABASE_URL selects another
database (PostgreSQL through psycopg 3). URLs stay sqlalchemy URL objects end to end: turning
them into strings for a config file would mangle a %-encoded password.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError

from bot.base import dirs
from bot.base.errors import SetupError

APP_NAME = "vllm-doctor"
# A bot waiting on an unreachable database server is a bot not answering: fail fast and spool.
CONNECT_TIMEOUT_S = 5


def data_dir() -> Path:
    return dirs.data_dir()


def default_url() -> URL:
    path = data_dir() / f"{APP_NAME}.db"
    return URL.create("sqlite", database=str(path))


BACKENDS = ("postgresql", "sqlite")


def resolve_url(url: str | URL | None = None) -> URL:
    """`url`, else $DATABASE_URL, else the SQLite default; PostgreSQL always through psycopg 3."""
    if url is None or url == "":
        url = os.environ.get("DATABASE_URL") or default_url()
    try:
        url = make_url(url)
    except (ArgumentError, ValueError):
        # The text is not repeated: it may hold a password.
        raise SetupError("the database URL (DATABASE_URL or --db) cannot be read; expected "
                         "postgresql://USER:PASSWORD@HOST:5432/DATABASE or sqlite:////path/to/file.db") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() not in BACKENDS:
        raise SetupError(f"the database URL (DATABASE_URL or --db) names a {url.get_backend_name()!r} database; "
                         "vllm-doctor keeps its records in PostgreSQL or SQLite")
    return url


def make_engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            # If the folder cannot be made, SQLite's own "unable to open" error says so, and the
            # store treats it as an outage (spools) instead of crashing here.
            with contextlib.suppress(OSError):
                Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    connect_args = {}
    if url.get_backend_name() == "postgresql" and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    return create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # SQLite ignores foreign keys unless asked, per connection; WAL lets the bot and a CLI read
    # while the other writes.
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def display(url: URL) -> str:
    return url.render_as_string(hide_password=True)
