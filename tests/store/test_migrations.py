"""Every migration up and down, on SQLite and on the real PostgreSQL; models == newest migration."""

import os
import subprocess
import sys

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import make_url

from bot.store import Store
from bot.store import migrate
from bot.store.models import Base

from .helpers import REPO

ALL_TABLES = {t.name for t in Base.metadata.sorted_tables}


def _revisions_oldest_first() -> list[str]:
    script = ScriptDirectory.from_config(migrate.alembic_config())
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def _tables(store: Store) -> set[str]:
    return set(inspect(store.engine).get_table_names()) - {"alembic_version"}


def test_one_head_and_a_straight_history():
    script = ScriptDirectory.from_config(migrate.alembic_config())
    assert len(script.get_heads()) == 1
    revisions = _revisions_oldest_first()
    assert revisions[-1] == migrate.head()
    for older, newer in zip(revisions, revisions[1:]):
        assert script.get_revision(newer).down_revision == older


def test_every_migration_up_and_down(store_url, tmp_path):
    store = Store(store_url, spool_path=tmp_path / "spool.jsonl")
    try:
        assert store.current() is None
        seen: list[set[str]] = [set()]
        for revision in _revisions_oldest_first():
            assert store.upgrade(revision) == revision
            tables = _tables(store)
            assert tables > seen[-1], f"{revision} added no table"
            seen.append(tables)
        assert seen[-1] == ALL_TABLES
        for revision, tables in zip(reversed(_revisions_oldest_first()), reversed(seen[:-1])):
            store.downgrade("-1")
            assert _tables(store) == tables, f"downgrade of {revision} left {_tables(store) - tables}"
        assert store.current() is None
        # and up again: a downgrade must leave nothing behind that breaks the next upgrade
        assert store.upgrade() == migrate.head()
    finally:
        store.dispose()


def test_models_match_the_newest_migration(store_url, tmp_path):
    store = Store(store_url, spool_path=tmp_path / "spool.jsonl")
    try:
        store.upgrade()
        with store.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
            # `alembic check` itself, through migrations/env.py
            command.check(migrate.alembic_config(connection=connection))
    finally:
        store.dispose()


def test_upgrade_works_from_any_working_directory(sqlite_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = Store(sqlite_url, spool_path=tmp_path / "spool.jsonl")
    assert store.upgrade() == migrate.head()
    store.dispose()


@pytest.mark.postgres
def test_alembic_command_line_reads_database_url_with_a_percent_in_the_password(pg_url):
    # trust auth ignores the password; what matters is that '%' survives env.py untouched
    # (ConfigParser interpolation, which set_main_option would apply, chokes on it).
    url = make_url(pg_url).set(password="p%ss").render_as_string(hide_password=False)
    assert "%25" in url
    env = {**os.environ, "DATABASE_URL": url}
    alembic = [sys.executable, "-m", "alembic", "-c", str(REPO / "alembic.ini")]
    up = subprocess.run([*alembic, "upgrade", "head"], env=env, cwd=REPO, capture_output=True, text=True)
    assert up.returncode == 0, up.stderr
    current = subprocess.run([*alembic, "current"], env=env, cwd=REPO, capture_output=True, text=True)
    assert migrate.head() in current.stdout
