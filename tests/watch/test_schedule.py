"""The bot's watch: a round updates the index from PyPI, a replica skips what another just did or
is doing, and a PyPI that keeps failing is logged once."""

from __future__ import annotations

import sys
import types

import pytest

from bot.base.errors import SetupError
from bot.diagnose.knowledge.vllm import index
from bot.slack.periodic import Periodic
from bot.watch import schedule
from tests.watch.fakepypi import FakePyPI
from tests.watch.test_update import CHILD, ROOT


@pytest.mark.parametrize("value,seconds", [("", 86400.0), ("12", 43200.0), ("0.5", 1800.0), ("0", None)])
def test_the_period_setting(value, seconds):
    assert schedule.period_s({"INDEX_WATCH_HOURS": value}) == seconds


@pytest.mark.parametrize("value", ["daily", "-1"])
def test_a_malformed_period_is_a_setup_error(value):
    with pytest.raises(SetupError, match="INDEX_WATCH_HOURS"):
        schedule.watch_for(None, {"INDEX_WATCH_HOURS": value})


@pytest.fixture
def watching(data_dir, packaged_index, release_wheels, tmp_path, monkeypatch):
    """A Watch whose update is `index update` (child.py) against a loopback PyPI serving 0.3.0."""
    served = {v: release_wheels[v] for v in ("0.1.0", "0.2.0", "0.3.0")}
    monkeypatch.setenv("TEST_PACKAGED", str(packaged_index))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))

    def watch(store=None, **pypi):
        fake = FakePyPI(served, **pypi).__enter__()
        monkeypatch.setenv("VLLM_DOCTOR_PYPI_URL", fake.url)
        return schedule.Watch(store, 24 * 3600, [sys.executable, str(CHILD), "update", "--cache",
                                                 str(tmp_path / "cache")]), fake
    return watch


def test_a_round_updates_the_index_and_the_next_one_waits_a_period(watching):
    watch, fake = watching()
    assert watch.round() == "updated" and index.load().versions[-1] == "0.3.0"
    asked = len(fake.requests)
    assert watch.round() == "asked lately" and len(fake.requests) == asked     # nor a restart asks again
    assert watch.interval_s == 3600


def test_a_failing_pypi_is_logged_once_however_many_rounds(watching, caplog):
    watch, fake = watching(fail=502)
    rounds = Periodic("updating the index of vLLM's releases", watch.round, watch.interval_s)
    for _ in range(3):
        rounds.run_once()
    failed = [r for r in caplog.records if "failed" in r.getMessage()]
    assert len(failed) == 1 and "502" in failed[0].getMessage() and len(fake.requests) == 3
    assert index.load().versions[-1] == "0.2.0"


@pytest.mark.postgres
def test_a_replica_leaves_the_round_to_the_one_holding_the_lock(watching, pg_url):
    from sqlalchemy import create_engine, text
    engine = create_engine(pg_url)
    store = types.SimpleNamespace(engine=engine)
    watch, fake = watching(store)
    try:
        with engine.connect() as other:         # another replica, in the middle of its round
            assert other.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": schedule.LOCK_KEY}).scalar()
            assert watch.round() == "another replica" and fake.requests == []
            other.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": schedule.LOCK_KEY})
        assert watch.round() == "updated"
    finally:
        engine.dispose()
