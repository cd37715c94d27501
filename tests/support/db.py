"""Database fixtures for every part of the suite (a pytest plugin loaded by tests/conftest.py).

- `sqlite_url`: a fresh SQLite file in the test's tmp dir;
- `pg_url`: a fresh, uniquely named database on the PostgreSQL at DATABASE_URL_TEST
  (default postgresql://postgres@127.0.0.1:5432), dropped afterwards, so parallel runs never meet.
  No server: the test is skipped with the reason, except under CI (env CI set), where that is a
  failure: CI promises these tests run;
- `store_url`: both of the above, one test each;
- `store`: a migrated Store at `store_url`, its spool in the tmp dir.

Nothing here touches the shared `test` database beyond CREATE/DROP DATABASE of its own names.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"


def _server_url():
    from sqlalchemy.engine import make_url

    url = make_url(os.environ.get("DATABASE_URL_TEST") or DEFAULT_SERVER)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    # CREATE DATABASE may be run from any database; without one in the URL use the maintenance db.
    return url if url.database else url.set(database="postgres")


def _admin_engine(url):
    from sqlalchemy import create_engine

    return create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'vllm-doctor-test.db'}"


@contextlib.contextmanager
def fresh_database(server=None, prefix: str = "vd_test"):
    """A new, uniquely named database on `server` (default: the test server), dropped afterwards.
    Raises OperationalError when the server cannot be reached."""
    from sqlalchemy import text

    server = server or _server_url()
    admin = _admin_engine(server)
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except BaseException:
        admin.dispose()
        raise
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            # FORCE (PostgreSQL 13+): a Store the test forgot to dispose must not keep the database alive.
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def pg_url():
    from sqlalchemy.exc import OperationalError

    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(fresh_database())
        except OperationalError as e:
            reason = (f"PostgreSQL not reachable at {_server_url().render_as_string(hide_password=True)} "
                      f"(set DATABASE_URL_TEST to another server): {str(e.orig).strip().splitlines()[0]}")
            if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
                pytest.fail(f"CI requires PostgreSQL: {reason}", pytrace=False)
            pytest.skip(reason)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture
def store(store_url, tmp_path):
    from bot.store import Store

    s = Store.from_env(store_url, spool_path=tmp_path / "spool.jsonl")
    s.upgrade()
    yield s
    s.dispose()
