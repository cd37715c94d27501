"""The database is down: diagnosis still answers, records are spooled, and written when it is back."""

import json

import pytest
from sqlalchemy import func, select

from bot.store import Store
from bot.store.models import Diagnosis, Feedback

from .helpers import diagnose, fixture_logs, load_book, make_book, read


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return load_book(make_book(tmp_path_factory.mktemp("rules")))


def _count(store, model) -> int:
    with store.session() as s:
        return s.scalar(select(func.count()).select_from(model))


def test_database_down_spools_then_flushes_when_it_is_back(outage, tmp_path, book):
    spool = tmp_path / "spool.jsonl"
    text = read(fixture_logs("cuda-oom")[0])
    report = diagnose(text, book)

    store = Store(outage.url, spool_path=spool)
    outage.cut()
    assert store.record_diagnosis(report, source="slack", text=text, channel="C1", user="U1") is None
    store.set_user_lang("U1", "zh")
    assert store.claim_event("Ev1") is True          # cannot know: answering twice beats never
    assert store.get_user_lang("U1") is None
    # the caller still has its answer, untouched by the failed write
    assert report.verdict == "diagnosed" and report.diagnoses[0].rule_id == "cuda-oom"

    lines = [json.loads(line) for line in spool.read_text().splitlines()]
    assert [e["kind"] for e in lines] == ["diagnosis", "user_lang"]
    assert lines[0]["record"]["top_rule_id"] == "cuda-oom"
    assert "OperationalError" in lines[0]["error"]
    assert store.flush_spool() == 0 and len(spool.read_text().splitlines()) == 2   # still down: kept

    outage.restore()
    try:
        assert store.flush_spool() == 2
        assert not spool.exists()
        with store.session() as s:
            row = s.scalars(select(Diagnosis)).one()
            assert (row.source, row.channel, row.top_rule_id) == ("slack", "C1", "cuda-oom")
            assert row.created_at.isoformat() == lines[0]["record"]["created_at"]   # when it happened
        assert store.get_user_lang("U1") == "zh"
        assert store.flush_spool() == 0 and _count(store, Diagnosis) == 1          # written once
    finally:
        store.dispose()


def test_next_successful_write_flushes_the_spool(outage, tmp_path, book):
    text = read(fixture_logs("bf16-unsupported-gpu")[0])
    store = Store(outage.url, spool_path=tmp_path / "spool.jsonl")
    outage.cut()
    assert store.record_diagnosis(diagnose(text, book), source="cli", text=text) is None
    assert store.spool.pending()

    outage.restore()
    assert store.record_diagnosis(diagnose(text, book), source="cli", text=text) is not None
    assert not store.spool.pending()
    assert _count(store, Diagnosis) == 2
    store.dispose()


def test_a_record_the_database_refuses_is_kept_aside_not_dropped(store, book):
    text = read(fixture_logs("cuda-oom")[0])
    good = store.record_diagnosis(diagnose(text, book), source="cli", text=text)
    # feedback spooled during an outage, for a diagnosis deleted before the flush
    store.spool.append("feedback", {"uid": "f-1", "created_at": "2026-11-30T01:00:00+00:00",
                                    "diagnosis_id": good + 1000, "verdict": "fixed",
                                    "user_id": "U1", "reason": None})
    store.spool.append("feedback", {"uid": "f-2", "created_at": "2026-11-30T01:00:01+00:00",
                                    "diagnosis_id": good, "verdict": "wrong", "user_id": "U1", "reason": None})
    assert store.flush_spool() == 1
    assert not store.spool.pending()
    rejected = [json.loads(line) for line in store.spool.rejected_path.read_text().splitlines()]
    assert [r["record"]["uid"] for r in rejected] == ["f-1"]
    assert "no such diagnosis" in rejected[0]["rejected"]
    assert _count(store, Feedback) == 1


def test_a_torn_spool_line_is_kept_aside(store, book):
    text = read(fixture_logs("cuda-oom")[0])
    down_record = {"kind": "user_lang", "database": store.spool.database,
                   "record": {"user_id": "U9", "lang": "en", "updated_at": "2026-11-30T01:00:00+00:00"}}
    store.spool.path.write_text(json.dumps(down_record) + "\n" + '{"kind": "diagnosis", "rec')
    assert store.flush_spool() == 1
    assert store.get_user_lang("U9") == "en"
    assert '"rec' in store.spool.rejected_path.read_text()
    assert store.record_diagnosis(diagnose(text, book), source="cli", text=text) is not None


def test_unwritable_sqlite_location_spools_instead_of_crashing(tmp_path, book):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data folder should be")
    store = Store(f"sqlite:///{blocker / 'vd.db'}", spool_path=tmp_path / "spool.jsonl")
    text = read(fixture_logs("cuda-oom")[0])
    assert store.record_diagnosis(diagnose(text, book), source="cli", text=text) is None
    assert store.spool.pending()
