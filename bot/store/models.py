"""Tables of the outcome store (SQLAlchemy 2.x, typed declarative).

Small fixed vocabularies are String + a named CHECK rather than sa.Enum: a PostgreSQL ENUM is a
separate TYPE that every migration and downgrade would have to manage, and SQLite has none.
Columns that can carry pasted text are redacted by validators here as well as by the writers, so a
new writer (the repro worker, say) cannot store a secret by forgetting to. Every datetime goes through `UTCDateTime`, the one place where times are normalised to aware UTC
(SQLite hands them back naive, PostgreSQL aware).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON, Boolean, CheckConstraint, DateTime, Float, ForeignKey, Index, Integer, MetaData, String,
    Text, TypeDecorator, text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, validates

from .redact import redact, redact_obj

# Alembic's recommended convention: every constraint gets a predictable name, which autogenerate,
# op.drop_constraint and SQLite batch mode all need.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SOURCES = ("slack", "cli", "repro")
VERDICTS = ("diagnosed", "wrapper_only", "unsure", "no_error")
FEEDBACK_VERDICTS = ("fixed", "wrong", "partly")
CANDIDATE_STATUSES = ("active", "shadow")
JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")
JOB_SOURCES = ("slack", "cli")
STEP_KINDS = ("preflight", "bare", "add", "fix")
REPLY_STATUSES = ("pending", "posted", "failed")


# Pastes no rule answered that have a failure signature: what `rules suggest` clusters.
UNANSWERED = "verdict <> 'diagnosed' AND signature IS NOT NULL"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def as_utc(value: dt.datetime | None) -> dt.datetime | None:
    """Aware UTC; a naive value is taken to be UTC already (that is how we write them)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


class UTCDateTime(TypeDecorator):
    """DateTime(timezone=True) that always reads and writes aware UTC datetimes."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        value = as_utc(value)
        # SQLite stores ISO text and would keep the "+00:00" only sometimes; store naive UTC there.
        if value is not None and dialect.name == "sqlite":
            value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        return as_utc(value)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dt.datetime: UTCDateTime, dict[str, Any]: JSON, list[Any]: JSON}


class Diagnosis(Base):
    """One diagnosed paste: where it came from, what the rule book said, and what was in it."""

    __tablename__ = "diagnoses"
    __table_args__ = (
        CheckConstraint(_in("source", SOURCES), name="source"),
        CheckConstraint(_in("verdict", VERDICTS), name="verdict"),
        # Covering indexes for statistics over many pastes (migration 0003 says which query uses which).
        Index("ix_diagnoses_rule_release", "top_rule_id", "vllm_version", "created_at",
              "votes_fixed", "votes_wrong", "votes_partly"),
        Index("ix_diagnoses_created_outcome", "created_at", "verdict", "other_program", "top_rule_id",
              "votes_fixed", "votes_wrong", "votes_partly"),
        Index("ix_diagnoses_release_gpu", "vllm_version", "gpu_name", "verdict", "other_program", "top_rule_id"),
        Index("ix_diagnoses_unanswered", "signature", "vllm_version", "gpu_name", "created_at", "id", "other_program",
              postgresql_where=text(UNANSWERED), sqlite_where=text(UNANSWERED)),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Client-made key: a record written from the spool after an outage is written once, however
    # often the flush is retried.
    uid: Mapped[str] = mapped_column(String(36), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)
    source: Mapped[str] = mapped_column(String(16))
    channel: Mapped[str | None] = mapped_column(String(64))
    user_id: Mapped[str | None] = mapped_column(String(64))
    thread_ts: Mapped[str | None] = mapped_column(String(32))
    message_ts: Mapped[str | None] = mapped_column(String(32))
    lang: Mapped[str] = mapped_column(String(8), default="en")
    verdict: Mapped[str] = mapped_column(String(16))
    answered: Mapped[bool] = mapped_column(Boolean, default=False)
    signature: Mapped[str | None] = mapped_column(String(512), index=True)
    root_text: Mapped[str | None] = mapped_column(Text)
    root_exc_type: Mapped[str | None] = mapped_column(String(255))
    root_line_no: Mapped[int | None] = mapped_column(Integer)
    top_rule_id: Mapped[str | None] = mapped_column(String(128), index=True)
    top_confidence: Mapped[float | None] = mapped_column(Float)
    vllm_version: Mapped[str | None] = mapped_column(String(64))
    # Columns of their own (the facts hold them too) so the dashboard can group 100,000 pastes by
    # them without parsing JSON: the GPU the log names, and the program that printed a log that
    # is not vLLM's.
    gpu_name: Mapped[str | None] = mapped_column(String(128))
    other_program: Mapped[str | None] = mapped_column(String(255))
    # The feedback on this answer, one vote per person (their latest): the feedback rows are the
    # record, these the tally the store keeps with them, so statistics over many pastes need no
    # pass over every vote.
    votes_fixed: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    votes_wrong: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    votes_partly: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    rulebook_version: Mapped[str | None] = mapped_column(String(64))
    facts: Mapped[dict[str, Any]] = mapped_column(default=dict)
    excerpt: Mapped[str | None] = mapped_column(Text)

    candidates: Mapped[list[DiagnosisCandidate]] = relationship(
        back_populates="diagnosis", cascade="all, delete-orphan", order_by="DiagnosisCandidate.id")
    feedback: Mapped[list[Feedback]] = relationship(
        back_populates="diagnosis", cascade="all, delete-orphan", order_by="Feedback.id")

    @validates("root_text", "excerpt")
    def _redact_text(self, key, value):
        return redact(value)

    @validates("facts")
    def _redact_json(self, key, value):
        return redact_obj(value)


class DiagnosisCandidate(Base):
    """A rule that matched a paste, shown (active) or only recorded (shadow)."""

    __tablename__ = "diagnosis_candidates"
    __table_args__ = (
        CheckConstraint(_in("status", CANDIDATE_STATUSES), name="status"),
        Index("ix_diagnosis_candidates_status_rule_id", "status", "rule_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    diagnosis_id: Mapped[int] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"), index=True)
    rank: Mapped[int] = mapped_column(Integer)          # position within its status, best first
    rule_id: Mapped[str] = mapped_column(String(128), index=True)
    confidence: Mapped[float] = mapped_column(Float)
    level: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    line_no: Mapped[int | None] = mapped_column(Integer)
    evidence: Mapped[str | None] = mapped_column(Text)

    diagnosis: Mapped[Diagnosis] = relationship(back_populates="candidates")

    @validates("evidence")
    def _redact(self, key, value):
        return redact(value)


class Feedback(Base):
    """What a person said about an answer."""

    __tablename__ = "feedback"
    __table_args__ = (CheckConstraint(_in("verdict", FEEDBACK_VERDICTS), name="verdict"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str] = mapped_column(String(36), unique=True)
    diagnosis_id: Mapped[int] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    verdict: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)

    diagnosis: Mapped[Diagnosis] = relationship(back_populates="feedback")

    @validates("reason")
    def _redact(self, key, value):
        return redact(value)


class SeenEvent(Base):
    """Slack event ids (and `msg:<channel>:<ts>` message keys) claimed by a replica; the primary
    key makes two replicas agree. A message's claim is settled once what to do about it is stored
    (its reply in the outbox, or that it gets none): an unsettled claim older than a lease is a
    replica that died first, and Slack's retry may take it over."""

    __tablename__ = "seen_events"

    event_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    seen_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)
    settled_at: Mapped[dt.datetime | None]


class Reply(Base):
    """The outbox: an answer stored before it is posted, so a post that fails is tried again (with
    backoff, by any replica, after a restart) and one that worked is never posted twice."""

    __tablename__ = "replies"
    __table_args__ = (
        CheckConstraint(_in("status", REPLY_STATUSES), name="status"),
        # The poster's query: pending replies whose next attempt is due.
        Index("ix_replies_status_next_attempt_at", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The message it answers (`msg:<channel>:<ts>`, its claim's key): one reply per paste.
    message_key: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    channel: Mapped[str] = mapped_column(String(64))
    thread_ts: Mapped[str] = mapped_column(String(32))
    lang: Mapped[str] = mapped_column(String(8), default="en")
    diagnosis_id: Mapped[int | None] = mapped_column(ForeignKey("diagnoses.id", ondelete="SET NULL"))
    text: Mapped[str] = mapped_column(Text)
    blocks: Mapped[list[Any]] = mapped_column(default=list)
    attachment_name: Mapped[str | None] = mapped_column(String(255))
    attachment: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # Who is posting it now, until when: a poster that died lets go when its lease runs out.
    lease_owner: Mapped[str | None] = mapped_column(String(255))
    lease_until: Mapped[dt.datetime | None]
    posted_ts: Mapped[str | None] = mapped_column(String(32))
    posted_at: Mapped[dt.datetime | None]
    error: Mapped[str | None] = mapped_column(Text)

    @validates("text", "attachment", "error")
    def _redact_text(self, key, value):
        return redact(value)

    @validates("blocks")
    def _redact_json(self, key, value):
        return redact_obj(value)


class UserPref(Base):
    __tablename__ = "user_prefs"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    lang: Mapped[str | None] = mapped_column(String(8))
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class Job(Base):
    """A repro request; the worker claims, runs and finishes it (bot/repro owns the logic)."""

    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint(_in("status", JOB_STATUSES), name="status"),
        CheckConstraint(_in("source", JOB_SOURCES), name="source"),
        Index("ix_jobs_status_priority_id", "status", "priority", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    model_path: Mapped[str] = mapped_column(Text)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    requested_by: Mapped[str | None] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(16), default="cli")
    channel: Mapped[str | None] = mapped_column(String(64))
    thread_ts: Mapped[str | None] = mapped_column(String(32))
    priority: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    claimed_by: Mapped[str | None] = mapped_column(String(255))
    claimed_at: Mapped[dt.datetime | None]
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    posted_at: Mapped[dt.datetime | None]
    diagnosis_id: Mapped[int | None] = mapped_column(ForeignKey("diagnoses.id", ondelete="SET NULL"))

    steps: Mapped[list[JobStep]] = relationship(
        back_populates="job", cascade="all, delete-orphan", order_by="JobStep.step_no")

    @validates("model_path", "error")
    def _redact_text(self, key, value):
        return redact(value)

    @validates("settings", "result")
    def _redact_json(self, key, value):
        return redact_obj(value)


class JobStep(Base):
    """One probe process of a repro job: which settings it ran and how it ended."""

    __tablename__ = "job_steps"
    __table_args__ = (CheckConstraint(_in("kind", STEP_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    step_no: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    ok: Mapped[bool | None] = mapped_column(Boolean)
    seconds: Mapped[float | None] = mapped_column(Float)
    rule_id: Mapped[str | None] = mapped_column(String(128))
    output_excerpt: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    job: Mapped[Job] = relationship(back_populates="steps")

    @validates("output_excerpt")
    def _redact_text(self, key, value):
        return redact(value)

    @validates("settings")
    def _redact_json(self, key, value):
        return redact_obj(value)
