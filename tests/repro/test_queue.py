"""The job queue on the real databases: enqueue checks, claims, leases, cancellation, posting."""

import datetime as dt
import os
import threading

import pytest
from sqlalchemy import select, update

from bot.repro import queue
from bot.repro.safety import ReproRefused
from bot.store.models import Job


@pytest.fixture
def models(tmp_path):
    root = tmp_path / "models"
    for name in ("a", "b", "c", "d"):
        (root / name).mkdir(parents=True)
    return root


def _enqueue(store, models, name="a", user="U1", **kw):
    return queue.enqueue(store, str(models / name), kw.pop("settings", {}), requested_by=user,
                         roots=[str(models)], channel="C1", thread_ts="1.2", **kw)


def test_enqueue_validates_and_stores_typed_settings(store, models):
    job_id = queue.enqueue(store, str(models / "a"), {"max_model_len": "4096", "enforce-eager": "true"},
                           requested_by="U1", roots=[str(models)], channel="C1", thread_ts="1.2")
    job = queue.get_job(store, job_id)
    assert job["status"] == "queued" and job["attempts"] == 0
    assert job["settings"] == {"max_model_len": 4096, "enforce_eager": True}
    assert list(job["settings"]) == ["max_model_len", "enforce_eager"]     # order kept: it is the plan's order
    assert job["model_path"] == os.path.realpath(models / "a")


@pytest.mark.parametrize("path, settings, words", [
    ("/etc", {}, "outside the model roots"),
    ("{root}/missing", {}, "does not exist"),
    ("{root}/a", {"no_such_setting": 1}, "Unknown setting"),
    ("{root}/a", {"gpu_memory_utilization": 2}, "(0, 1]"),
])
def test_enqueue_refuses_unsafe_requests(store, models, path, settings, words):
    with pytest.raises(ReproRefused, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        queue.enqueue(store, path.format(root=models), settings, requested_by="U1", roots=[str(models)])
    with store.session() as s:
        assert s.scalars(select(Job)).all() == []


def test_per_user_limit(store, models):
    for name in ("a", "b"):
        _enqueue(store, models, name, max_per_user=2)
    with pytest.raises(ReproRefused, match="limit is 2"):
        _enqueue(store, models, "c", max_per_user=2)
    _enqueue(store, models, "c", user="U2", max_per_user=2)      # someone else is not held up


def test_claim_heartbeat_finish(store, models):
    job_id = _enqueue(store, models)
    job = queue.claim(store, "w1", lease_s=60)
    assert job["id"] == job_id and job["status"] == "running" and job["attempts"] == 1
    assert queue.claim(store, "w2", lease_s=60) is None
    assert queue.heartbeat(store, job_id, "w1", 60) is False
    assert queue.heartbeat(store, job_id, "w2", 60) is None            # not w2's job
    assert not queue.finish(store, job_id, "w2", status="done", result={"verdict": "ok"})
    assert queue.finish(store, job_id, "w1", status="done", result={"verdict": "ok", "note": "hf_" + "a" * 30})
    job = queue.get_job(store, job_id)
    assert job["status"] == "done" and job["result"]["verdict"] == "ok"
    assert "REDACTED" in job["result"]["note"]                           # finish redacts like the models do
    assert not queue.finish(store, job_id, "w1", status="failed")        # written once


def test_priority_then_age(store, models):
    first = _enqueue(store, models, "a")
    urgent = _enqueue(store, models, "b", priority=5)
    assert queue.claim(store, "w", 60)["id"] == urgent
    assert queue.claim(store, "w", 60)["id"] == first


def _expire(store, job_id):
    past = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=5)
    with store.session() as s:
        s.execute(update(Job).where(Job.id == job_id).values(lease_expires_at=past))


def test_reaper_requeues_then_gives_up(store, models):
    job_id = _enqueue(store, models)
    with store.session() as s:
        s.execute(update(Job).where(Job.id == job_id).values(max_attempts=2))
    queue.claim(store, "w1", 60)
    assert queue.reap_expired(store) == {"requeued": [], "failed": [], "cancelled": []}   # lease still good
    _expire(store, job_id)
    assert queue.reap_expired(store)["requeued"] == [job_id]
    assert queue.heartbeat(store, job_id, "w1", 60) is None              # w1 learns it lost the job
    again = queue.claim(store, "w2", 60)
    assert again["id"] == job_id and again["attempts"] == 2
    _expire(store, job_id)
    assert queue.reap_expired(store)["failed"] == [job_id]
    job = queue.get_job(store, job_id)
    assert job["status"] == "failed" and "lease ran out" in job["error"]


def test_cancel_queued_and_running(store, models):
    queued = _enqueue(store, models, "a")
    running = _enqueue(store, models, "b")
    with store.session() as s:
        s.execute(update(Job).where(Job.id == queued).values(priority=-1))
    assert queue.claim(store, "w1", 60)["id"] == running
    with pytest.raises(ReproRefused, match="someone else"):
        queue.cancel(store, queued, "U9")
    assert queue.cancel(store, queued, "U1") == "cancelled"
    assert queue.claim(store, "w1", 60) is None                            # a cancelled job is never claimed
    assert queue.cancel(store, running, "U9", admin=True) == "cancelling"
    assert queue.heartbeat(store, running, "w1", 60) is True              # the worker hears it
    assert queue.cancel(store, queued, "U1") == "cancelled"               # asking again is harmless
    with pytest.raises(ReproRefused, match="no repro job"):
        queue.cancel(store, 999, "U1")


def test_finished_unposted_and_mark_posted_once(store, models):
    job_id = _enqueue(store, models)
    queue.enqueue(store, str(models / "b"), {}, requested_by="U1", roots=[str(models)], source="cli")  # no thread
    assert queue.finished_unposted(store) == []
    queue.claim(store, "w", 60)
    queue.finish(store, job_id, "w", status="done", result={"verdict": "ok"})
    waiting = queue.finished_unposted(store)
    assert [j["id"] for j in waiting] == [job_id]
    assert waiting[0]["channel"] == "C1" and waiting[0]["thread_ts"] == "1.2"
    assert waiting[0]["result"] == {"verdict": "ok"}
    assert queue.mark_posted(store, job_id) is True
    assert queue.mark_posted(store, job_id) is False
    assert queue.finished_unposted(store) == []


@pytest.mark.postgres
def test_claim_skips_a_row_locked_by_another_worker(pg_url, tmp_path, models):
    """SKIP LOCKED: while one worker's claim transaction holds job 1, another gets job 2 at once."""
    from bot.store import Store

    store = Store.from_env(pg_url, spool_path=tmp_path / "spool.jsonl")
    store.upgrade()
    try:
        first, second = _enqueue(store, models, "a"), _enqueue(store, models, "b")
        with store.sessions() as holder:
            holder.scalars(select(Job).where(Job.id == first).with_for_update()).all()   # lock held, not committed
            got = {}
            t = threading.Thread(target=lambda: got.update(job=queue.claim(store, "w2", 60)))
            t.start()
            t.join(10)
            assert not t.is_alive(), "the claim blocked on a locked row"
            assert got["job"]["id"] == second
            holder.rollback()
        assert queue.claim(store, "w1", 60)["id"] == first
    finally:
        store.dispose()
