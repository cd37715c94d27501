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


def _schema(store: Store) -> set[str]:
    """Every table, column and index, as names: what a migration may add and must take back."""
    inspector = inspect(store.engine)
    out = set()
    for table in _tables(store):
        out.add(table)
        out |= {f"{table}.{c['name']}" for c in inspector.get_columns(table)}
        out |= {f"{table}:{i['name']}" for i in inspector.get_indexes(table)}
    return out


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
            schema = _schema(store)
            assert schema > seen[-1], f"{revision} added nothing"
            seen.append(schema)
        assert _tables(store) == ALL_TABLES
        for revision, schema in zip(reversed(_revisions_oldest_first()), reversed(seen[:-1])):
            store.downgrade("-1")
            assert _schema(store) == schema, f"downgrade of {revision} left {_schema(store) - schema}"
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


def test_0003_fills_gpu_other_program_and_vote_tally_from_what_is_stored(store_url, tmp_path):
    import datetime as dt

    import sqlalchemy as sa

    store = Store(store_url, spool_path=tmp_path / "spool.jsonl")
    try:
        store.upgrade("0002")
        old = sa.table("diagnoses", *(sa.column(c) for c in (
            "uid", "created_at", "source", "lang", "verdict", "answered", "facts")),
            sa.column("facts", sa.JSON))
        now = dt.datetime(2026, 11, 30, 12, 0)
        facts = [
            {"gpu_name": "NVIDIA H200", "vllm_printed": True},
            {"foreign_context": "SGLang", "foreign_strict": True, "vllm_context": True},
            {"foreign_context": "LiteLLM", "foreign_strict": False, "vllm_context": True},   # still vLLM's
            {},
        ]
        with store.engine.begin() as connection:
            connection.execute(old.insert(), [
                {"uid": f"u{i}", "created_at": now, "source": "cli", "lang": "en", "verdict": "unsure",
                 "answered": False, "facts": f} for i, f in enumerate(facts)])
            first = connection.scalar(sa.text("SELECT min(id) FROM diagnoses"))
            feedback = sa.table("feedback", *(sa.column(c) for c in (
                "uid", "diagnosis_id", "created_at", "verdict", "user_id")))
            votes = [("U1", "wrong"), ("U2", "fixed"), ("U1", "fixed"), ("U3", "partly")]   # U1 changed their mind
            connection.execute(feedback.insert(), [
                {"uid": f"f{i}", "diagnosis_id": first, "created_at": now + dt.timedelta(minutes=i),
                 "verdict": verdict, "user_id": user} for i, (user, verdict) in enumerate(votes)])
        store.upgrade("0003")
        with store.engine.connect() as connection:
            rows = connection.execute(sa.text(
                "SELECT gpu_name, other_program, votes_fixed, votes_wrong, votes_partly FROM diagnoses ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [("NVIDIA H200", None, 2, 0, 1), (None, "SGLang", 0, 0, 0),
                                            (None, None, 0, 0, 0), (None, None, 0, 0, 0)]
        # and back: no table is copied and dropped, so nothing cascades away
        store.downgrade("0002")
        with store.engine.connect() as connection:
            counts = [connection.scalar(sa.text(f"SELECT count(*) FROM {t}")) for t in ("diagnoses", "feedback")]
        assert counts == [4, 4]
    finally:
        store.dispose()
