"""The spool belongs to its database: records kept while one database was down are written into
that database when it is back, never into another that a store on the same data directory
happens to reach. Real SQLite and PostgreSQL (the outage is a relay cut in front of it)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from bot.store import Store
from bot.store.models import Diagnosis
from bot.store.records import diagnosis_record
from bot.store.store import spool_key

from .helpers import diagnose, fixture_logs, load_book, make_book, read

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return load_book(make_book(tmp_path_factory.mktemp("rules")))


def rows(store) -> int:
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(Diagnosis))


def test_records_spooled_for_one_database_are_never_written_into_another(pg_relay, pg_url, sqlite_url, tmp_path,
                                                                         book):
    url, relay = pg_relay
    Store(pg_url, spool_path=tmp_path / "unused.jsonl").upgrade()
    spool = tmp_path / "spool.jsonl"
    text = read(fixture_logs("cuda-oom")[0])

    relay.cut()
    production = Store(url, spool_path=spool)
    assert production.record_diagnosis(diagnose(text, book), source="slack", text=text, channel="C1") is None
    [entry] = [json.loads(line) for line in spool.read_text().splitlines()]
    assert entry["database"] == spool_key(production.url) == f"postgresql+psycopg://postgres@127.0.0.1:{relay.port}/" \
        + production.url.database

    # The next start from the same data directory reaches another database, which is up.
    scratch = Store(sqlite_url, spool_path=spool)
    scratch.upgrade()
    assert scratch.flush_spool() == 0
    assert scratch.record_diagnosis(diagnose(text, book), source="cli", text=text) is not None   # a write flushes too
    assert rows(scratch) == 1                                  # its own record, not production's
    assert production.spool.mine() == 1 and scratch.spool.mine() == 0

    relay.restore()
    assert production.flush_spool() == 1
    assert rows(production) == 1 and not spool.exists()
    for store in (production, scratch):
        store.dispose()


def test_two_postgresql_databases_on_one_server_keep_their_own_records(pg_url, tmp_path, book):
    from tests.support.db import fresh_database

    text = read(fixture_logs("bf16-unsupported-gpu")[0])
    spool = tmp_path / "spool.jsonl"
    with fresh_database() as other_url:
        first, second = Store(pg_url, spool_path=spool), Store(other_url, spool_path=spool)
        for store in (first, second):
            store.upgrade()
        # What each would have spooled during an outage, interleaved in the one file.
        for store in (first, second, first):
            store.spool.append("diagnosis", diagnosis_record(diagnose(text, book), source="cli", text=text))
        assert second.flush_spool() == 1 and (rows(first), rows(second)) == (0, 1)
        assert first.flush_spool() == 2 and (rows(first), rows(second)) == (2, 1)
        assert not spool.exists()
        for store in (first, second):
            store.dispose()


def test_a_record_from_before_records_named_their_database_is_set_aside(store, book):
    store.spool.path.write_text(json.dumps({"kind": "user_lang", "record": {
        "user_id": "U9", "lang": "zh", "updated_at": "2026-11-30T01:00:00+00:00"}}) + "\n")
    assert store.flush_spool() == 0
    assert store.get_user_lang("U9") is None and not store.spool.pending()
    [kept] = [json.loads(line) for line in store.spool.rejected_path.read_text().splitlines()]
    assert kept["record"]["user_id"] == "U9" and "without naming its database" in kept["rejected"]


def test_the_key_is_the_url_without_its_password_and_a_sqlite_file_by_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert spool_key(Store("sqlite:///vd.db").url) == f"sqlite:///{tmp_path / 'vd.db'}"
    key = spool_key(Store("postgresql://bot:s3cret@db.internal:5432/vd").url)
    assert key == "postgresql+psycopg://bot:***@db.internal:5432/vd"
    assert spool_key(Store("postgresql://bot:rotated@db.internal:5432/vd").url) == key
