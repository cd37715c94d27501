"""The repro job queue, in the outcome store's `jobs` / `job_steps` tables.

What the Slack bot calls: `enqueue`, `cancel`, `finished_unposted`, `mark_posted`, `get_job` and
`render_result_markdown`. What the worker calls: `claim`, `heartbeat`, `record_step`, `finish`,
`reap_expired`.

Every change of a job's state is one conditional UPDATE ("... WHERE status = 'queued'", "... WHERE
claimed_by = me"), so two workers can never both own a job and a worker that lost its lease can
never overwrite the result of the one that took the job over. On PostgreSQL the claim also picks
its row with FOR UPDATE SKIP LOCKED, so workers on several hosts take different jobs without
waiting on each other; SQLite (one host) serialises writers itself.

Times come from each worker's clock in UTC: hosts sharing one database are expected to run NTP,
and leases are minutes long, far above any sane skew.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import delete, func, select, update

from bot.store.models import JOB_SOURCES, Job, JobStep, utcnow
from bot.store.redact import redact, redact_obj

from .render import render_result_markdown
from .safety import (
    ReproRefused, max_queued_per_user, model_roots, remote_code_allowed, resolve_model_path, validate_settings,
)

__all__ = [
    "ReproRefused", "enqueue", "cancel", "finished_unposted", "mark_posted", "get_job", "render_result_markdown",
    "claim", "heartbeat", "record_step", "finish", "release", "reap_expired", "pending_count",
]

TERMINAL = ("done", "failed", "cancelled")
ACTIVE = ("queued", "running")
EXCERPT_CHARS = 8000


def _job_dict(job: Job, with_steps: bool = False) -> dict[str, Any]:
    out = {
        "id": job.id, "status": job.status, "model_path": job.model_path, "settings": dict(job.settings or {}),
        "requested_by": job.requested_by, "source": job.source, "channel": job.channel,
        "thread_ts": job.thread_ts, "priority": job.priority, "attempts": job.attempts,
        "max_attempts": job.max_attempts, "claimed_by": job.claimed_by, "created_at": job.created_at,
        "started_at": job.started_at, "finished_at": job.finished_at, "cancel_requested": job.cancel_requested,
        "result": job.result, "error": job.error, "posted_at": job.posted_at, "diagnosis_id": job.diagnosis_id,
    }
    if with_steps:
        out["steps"] = [{"step_no": s.step_no, "kind": s.kind, "settings": s.settings, "ok": s.ok,
                         "seconds": s.seconds, "rule_id": s.rule_id} for s in job.steps]
    return out


# --- what the bot calls ------------------------------------------------------------------------

def enqueue(store, model_path: str, settings: dict, *, requested_by: str, source: str = "slack",
            channel: str | None = None, thread_ts: str | None = None, priority: int = 0,
            roots: list[str] | None = None, max_per_user: int | None = None) -> int:
    """Check a request and queue it; the job id. Raises ReproRefused with a reason to show."""
    if source not in JOB_SOURCES:
        raise ValueError(f"source must be one of {', '.join(JOB_SOURCES)}, not {source!r}")
    roots = model_roots() if roots is None else roots
    model = resolve_model_path(model_path, roots)
    checked = validate_settings(settings or {}, roots=roots, allow_remote_code=remote_code_allowed())
    limit = max_queued_per_user() if max_per_user is None else max_per_user
    with store.session() as session:
        waiting = session.scalar(select(func.count()).select_from(Job).where(
            Job.requested_by == requested_by, Job.status.in_(ACTIVE)))
        if waiting >= limit:
            raise ReproRefused(f"You already have {waiting} repro job(s) queued or running; the limit is {limit}. "
                               "Wait for one to finish, or cancel one.")
        job = Job(model_path=model, settings=checked, requested_by=requested_by, source=source,
                  channel=channel, thread_ts=thread_ts, priority=priority)
        session.add(job)
        session.flush()
        return job.id


def cancel(store, job_id: int, by: str, *, admin: bool = False) -> str:
    """Cancel a job: 'cancelled' (it had not started), 'cancelling' (the worker stops it between
    steps) or the status it already ended with. Only the requester (or an admin) may cancel."""
    with store.session() as session:
        job = session.get(Job, job_id)
        if job is None:
            raise ReproRefused(f"There is no repro job {job_id}.")
        if job.requested_by != by and not admin:
            raise ReproRefused(f"Job {job_id} was requested by someone else; only they can cancel it.")
        if job.status in TERMINAL:
            return job.status
        now = utcnow()
        stopped = session.execute(
            update(Job).where(Job.id == job_id, Job.status == "queued")
            .values(status="cancelled", cancel_requested=True, finished_at=now, error=f"cancelled by {by}")
            .execution_options(synchronize_session=False).returning(Job.id)).first()
        if stopped is not None:
            return "cancelled"
        # It was claimed meanwhile: ask the worker, which looks between steps and during each one.
        session.execute(update(Job).where(Job.id == job_id, Job.status == "running").values(cancel_requested=True)
                        .execution_options(synchronize_session=False))
        return "cancelling"


def finished_unposted(store) -> list[dict[str, Any]]:
    """Finished jobs from a Slack thread whose result has not been posted yet, oldest first."""
    with store.session() as session:
        jobs = session.scalars(select(Job).where(
            Job.status.in_(TERMINAL), Job.posted_at.is_(None), Job.channel.is_not(None))
            .order_by(Job.finished_at, Job.id)).all()
        return [_job_dict(j) for j in jobs]


def mark_posted(store, job_id: int) -> bool:
    """True for the one caller that marks it: two bot replicas never both post a result."""
    with store.session() as session:
        row = session.execute(update(Job).where(Job.id == job_id, Job.posted_at.is_(None))
                              .values(posted_at=utcnow()).execution_options(synchronize_session=False).returning(Job.id)).first()
        return row is not None


def get_job(store, job_id: int) -> dict[str, Any] | None:
    with store.session() as session:
        job = session.get(Job, job_id)
        return _job_dict(job, with_steps=True) if job is not None else None


def pending_count(store) -> int:
    """Jobs still queued or running (a drained queue has none)."""
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(Job).where(Job.status.in_(ACTIVE)))


# --- what the worker calls ---------------------------------------------------------------------

def claim(store, worker_id: str, lease_s: float) -> dict[str, Any] | None:
    """Take the next queued job for `worker_id`, or None when there is none."""
    with store.session() as session:
        query = (select(Job.id).where(Job.status == "queued")
                 .order_by(Job.priority.desc(), Job.id).limit(1))
        if store.dialect == "postgresql":
            query = query.with_for_update(skip_locked=True)
        job_id = session.scalar(query)
        if job_id is None:
            return None
        now = utcnow()
        taken = session.execute(
            update(Job).where(Job.id == job_id, Job.status == "queued")
            .values(status="running", claimed_by=worker_id, claimed_at=now, started_at=now, heartbeat_at=now,
                    lease_expires_at=now + dt.timedelta(seconds=lease_s), attempts=Job.attempts + 1)
            .execution_options(synchronize_session=False).returning(Job.id)).first()
        if taken is None:           # SQLite: another worker of this host was quicker
            return None
        # A retried job starts over: the steps of the attempt that died are not this attempt's.
        session.execute(delete(JobStep).where(JobStep.job_id == job_id))
        session.flush()
        session.expire_all()
        return _job_dict(session.get(Job, job_id))


def heartbeat(store, job_id: int, worker_id: str, lease_s: float) -> bool | None:
    """Renew the lease. Returns whether a cancel was asked for, or None when the job is no longer
    ours (its lease ran out and another worker took it, or it was cancelled before starting)."""
    now = utcnow()
    with store.session() as session:
        row = session.execute(
            update(Job).where(Job.id == job_id, Job.claimed_by == worker_id, Job.status == "running")
            .values(heartbeat_at=now, lease_expires_at=now + dt.timedelta(seconds=lease_s))
            .execution_options(synchronize_session=False).returning(Job.cancel_requested)).first()
        return None if row is None else bool(row[0])


def record_step(store, job_id: int, worker_id: str, step_no: int, step) -> bool:
    """Store one finished step of a job this worker still owns."""
    with store.session() as session:
        owner = session.scalar(select(Job.claimed_by).where(Job.id == job_id, Job.status == "running"))
        if owner != worker_id:
            return False
        session.add(JobStep(job_id=job_id, step_no=step_no, kind=step.kind, settings=step.settings, ok=step.ok,
                            seconds=step.seconds, rule_id=step.rule_id, output_excerpt=step.excerpt(EXCERPT_CHARS)))
        return True


def finish(store, job_id: int, worker_id: str, *, status: str, result: dict | None = None,
           error: str | None = None, diagnosis_id: int | None = None) -> bool:
    """Write the outcome, once, and only while the job is still ours."""
    assert status in TERMINAL, status
    with store.session() as session:
        row = session.execute(
            update(Job).where(Job.id == job_id, Job.claimed_by == worker_id, Job.status == "running")
            # update() skips the model's validators, so the redaction they do is done here.
            .values(status=status, result=redact_obj(result) if result is not None else None,
                    error=redact(error) if error else None, finished_at=utcnow(), lease_expires_at=None,
                    diagnosis_id=diagnosis_id)
            .execution_options(synchronize_session=False).returning(Job.id)).first()
        return row is not None


def release(store, job_id: int, worker_id: str) -> bool:
    """Give a job back to the queue because its worker is shutting down. That is not the job's
    fault, so the attempt is not counted."""
    with store.session() as session:
        row = session.execute(
            update(Job).where(Job.id == job_id, Job.claimed_by == worker_id, Job.status == "running")
            .values(status="queued", attempts=Job.attempts - 1, claimed_by=None, claimed_at=None,
                    lease_expires_at=None, heartbeat_at=None, started_at=None)
            .execution_options(synchronize_session=False).returning(Job.id)).first()
        return row is not None


def reap_expired(store) -> dict[str, list[int]]:
    """Jobs whose worker stopped renewing its lease: queued again while attempts remain, else
    failed; cancelled when a cancel was asked for. Safe to run from every worker at once."""
    now = utcnow()
    expired = (Job.status == "running", Job.lease_expires_at < now)
    cleared = dict(claimed_by=None, claimed_at=None, lease_expires_at=None, heartbeat_at=None)
    with store.session() as session:
        cancelled = session.execute(
            update(Job).where(*expired, Job.cancel_requested.is_(True))
            .values(status="cancelled", finished_at=now, error="cancelled; its worker stopped answering",
                    lease_expires_at=None).execution_options(synchronize_session=False).returning(Job.id)).scalars().all()
        failed = session.execute(
            update(Job).where(*expired, Job.attempts >= Job.max_attempts)
            .values(status="failed", finished_at=now, lease_expires_at=None,
                    error="its worker stopped answering on every attempt (the lease ran out each time)")
            .execution_options(synchronize_session=False).returning(Job.id)).scalars().all()
        requeued = session.execute(
            update(Job).where(*expired, Job.attempts < Job.max_attempts).values(status="queued", **cleared)
            .execution_options(synchronize_session=False).returning(Job.id)).scalars().all()
    return {"requeued": list(requeued), "failed": list(failed), "cancelled": list(cancelled)}
