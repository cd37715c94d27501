"""The outcome store: what the bot answered, what people said about it, which events it has seen.

Writes never take the bot down with them. When the database cannot be reached, a diagnosis or
feedback record goes to the spool file (see spool.py) and is written by the next successful write
or by `flush_spool()`; the caller gets None instead of a row id.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import (
    DBAPIError, IntegrityError, InterfaceError, OperationalError, ProgrammingError, SQLAlchemyError,
)
from sqlalchemy.orm import Session, sessionmaker

from . import outbox
from .claims import write_claims
from .engine import data_dir, display, make_engine, resolve_url
from .models import Diagnosis, DiagnosisCandidate, Feedback, SeenEvent, UserPref, as_utc, utcnow
from .records import diagnosis_record, feedback_record
from .spool import Spool

log = logging.getLogger(__name__)


def is_outage(error: BaseException) -> bool:
    """True when the database could not be used at all (down, unreachable, not migrated).

    Those are worth spooling and retrying; a constraint violation is not, retrying it fails the same way.
    """
    if isinstance(error, (OperationalError, InterfaceError)):
        return True
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    # A database that was never upgraded: PostgreSQL says "relation does not exist".
    return isinstance(error, ProgrammingError) and "does not exist" in str(error)


class RecentIds:
    """Ids this process claimed: the last `size` of them, none older than `max_age_s`."""

    def __init__(self, size: int, max_age_s: float) -> None:
        self.size = size
        self.max_age_s = max_age_s
        self._ids: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: str) -> bool:
        """True when `key` was not already here."""
        now = time.monotonic()
        with self._lock:
            while self._ids and (len(self._ids) >= self.size or next(iter(self._ids.values())) < now - self.max_age_s):
                self._ids.popitem(last=False)
            if key in self._ids:
                return False
            self._ids[key] = now
            return True

    def discard(self, key: str) -> None:
        with self._lock:
            self._ids.pop(key, None)


# Slack retries an event three times within about five minutes; even a busy workspace sends far
# fewer than this many events to one replica in an hour.
RECENT_CLAIMS = 10_000
RECENT_CLAIMS_S = 3600.0
# A message's claim not settled within this long belongs to a replica that died (or failed)
# before storing what to do about the message: Slack's next retry (1 and 5 minutes after the
# first delivery) takes it over. Diagnosing a 20 MB file takes a few seconds.
CLAIM_LEASE_S = 30.0


class Store:
    def __init__(self, url: str | URL | None = None, *, spool_path: str | os.PathLike | None = None):
        self.url = resolve_url(url)
        self.spool = Spool(spool_path or default_spool_path(), database=spool_key(self.url))
        # What this process claimed itself: a retry it already answered is a duplicate even when
        # the database that would say so is down.
        self._claimed = RecentIds(RECENT_CLAIMS, RECENT_CLAIMS_S)
        self._engine: Engine | None = None
        self._sessions: sessionmaker[Session] | None = None
        self._lock = threading.Lock()
        self._schema_checked = False

    @classmethod
    def from_env(cls, url: str | URL | None = None, *, spool_path: str | os.PathLike | None = None) -> "Store":
        return cls(url, spool_path=spool_path)

    def __repr__(self) -> str:
        return f"Store({display(self.url)!r})"

    @property
    def engine(self) -> Engine:
        # Built on first use: a CLI call that stores nothing never touches the database.
        with self._lock:
            if self._engine is None:
                self._engine = make_engine(self.url)
                self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        return self._engine

    @property
    def sessions(self) -> sessionmaker[Session]:
        self.engine
        assert self._sessions is not None
        return self._sessions

    @property
    def dialect(self) -> str:
        return self.url.get_backend_name()

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A Session that commits when the block ends cleanly and rolls back when it raises.

        Nothing is begun for you, so `with session.begin():` inside works too.
        """
        with self.sessions() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    # -- schema -----------------------------------------------------------------------------

    # Alembic is imported only here: the bot and the CLI load it when they migrate, not on every call.
    def upgrade(self, revision: str = "head") -> str | None:
        from . import migrate
        with self.engine.begin() as connection:
            migrate.upgrade(connection, revision)
        return self.current()

    def downgrade(self, revision: str) -> str | None:
        from . import migrate
        with self.engine.begin() as connection:
            migrate.downgrade(connection, revision)
        return self.current()

    def current(self) -> str | None:
        from . import migrate
        with self.engine.connect() as connection:
            return migrate.current(connection)

    # -- outcomes ---------------------------------------------------------------------------

    def record_diagnosis(self, report, *, source: str, text: str, channel: str | None = None,
                         user: str | None = None, thread_ts: str | None = None,
                         message_ts: str | None = None, lang: str = "en") -> int | None:
        """Store a diagnosis; its id, or None when the database is down and it was spooled."""
        record = diagnosis_record(report, source=source, text=text, channel=channel, user=user,
                                  thread_ts=thread_ts, message_ts=message_ts, lang=lang)
        return self._write_or_spool("diagnosis", record)

    def record_feedback(self, diagnosis_id: int, verdict: str, *, user: str,
                        reason: str | None = None) -> int | None:
        """Store feedback on a diagnosis; its id, or None when spooled.

        Raises ValueError for an unknown verdict or a diagnosis id the database does not have.
        """
        record = feedback_record(diagnosis_id, verdict, user=user, reason=reason)
        return self._write_or_spool("feedback", record)

    def flush_spool(self) -> int:
        """Write spooled records; how many were written (0 when the database is still down)."""
        return self.spool.drain(self._write_spooled, is_outage)

    def claim_event(self, *event_ids: str) -> bool:
        """True the first time a Slack event id is seen, by any replica sharing this database.

        Several ids are claimed in order, in one transaction: the first one seen before stops
        the claim there and answers False (the ids before it stay claimed).
        """
        ids = [str(e)[:255] for e in event_ids]
        table = SeenEvent.__table__
        added: list[str] = []
        try:
            self._ensure_embedded_schema()
            with self.engine.begin() as connection:
                for event_id in ids:
                    if not self._claimed.add(event_id):
                        return False
                    added.append(event_id)
                    stmt = self._insert(table).values(event_id=event_id, seen_at=utcnow())
                    # RETURNING, not rowcount: psycopg 3 reports rowcount -1 for this INSERT.
                    stmt = stmt.on_conflict_do_nothing(index_elements=[table.c.event_id]).returning(table.c.event_id)
                    if connection.execute(stmt).first() is None:
                        return False
                return True
        except SQLAlchemyError as e:
            if not is_outage(e):
                for event_id in added:
                    self._claimed.discard(event_id)
                raise
            # Without the database we cannot know whether another replica answered. Answering
            # twice is a smaller harm than never answering, so claim it (this process remembers).
            log.warning("database unavailable (%s); answering event %s without a claim", e.__class__.__name__,
                        ids[0] if ids else "")
            return all(self._claimed.add(event_id) for event_id in ids[len(added):])

    def claim_message(self, key: str, *, event_id: str | None = None, lease_s: float = CLAIM_LEASE_S) -> bool:
        """True when this replica is to handle the message `key` (`msg:<channel>:<ts>`): its first
        delivery, by whichever replica sharing the database sees it first, or Slack's retry of a
        message whose claim was never settled within `lease_s` (see `settle`).

        With the database down the claim is this process's own, and spooled: written (settled)
        when the database is back, so a retry reaching another replica then is a duplicate there.
        """
        key = str(key)[:255]
        table = SeenEvent.__table__
        now = utcnow()
        try:
            self._ensure_embedded_schema()
            with self.engine.begin() as connection:
                if event_id:        # kept for the record; the message's own claim decides
                    connection.execute(self._insert(table).values(event_id=str(event_id)[:255], seen_at=now)
                                       .on_conflict_do_nothing(index_elements=[table.c.event_id]))
                stmt = (self._insert(table).values(event_id=key, seen_at=now)
                        .on_conflict_do_nothing(index_elements=[table.c.event_id]).returning(table.c.event_id))
                mine = connection.execute(stmt).first() is not None
                if not mine:
                    # Compare-and-set: of two replicas taking over one stale claim, one wins.
                    cutoff = now - dt.timedelta(seconds=lease_s)
                    mine = connection.execute(
                        update(table).where(table.c.event_id == key, table.c.settled_at.is_(None),
                                            table.c.seen_at < cutoff).values(seen_at=now)).rowcount == 1
                    if mine:
                        log.info("claim of %s was not settled within %gs; taking it over", key, lease_s)
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            if not self._claimed.add(key):
                return False
            log.warning("database unavailable (%s); claiming %s here, to be written when it is back",
                        e.__class__.__name__, key)
            self.spool.append("claim", {"keys": [k for k in (event_id, key) if k], "claimed_at": now.isoformat()}, e)
            return True
        if mine:
            self._claimed.add(key)
        return mine

    def settle(self, key: str) -> None:
        """What to do about the message is stored (its reply in the outbox, or that it gets none):
        its claim no longer expires."""
        table = SeenEvent.__table__
        now = utcnow()
        try:
            with self.engine.begin() as connection:
                connection.execute(update(table).where(table.c.event_id == str(key)[:255],
                                                       table.c.settled_at.is_(None)).values(settled_at=now))
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            self.spool.append("claim", {"keys": [str(key)[:255]], "claimed_at": now.isoformat()}, e)

    def prune_seen_events(self, older_than: dt.timedelta = dt.timedelta(days=7)) -> int:
        """Forget event ids older than Slack's retry window; how many were removed."""
        cutoff = utcnow() - older_than
        with self.engine.begin() as connection:
            return connection.execute(delete(SeenEvent).where(SeenEvent.seen_at < cutoff)).rowcount

    def get_user_lang(self, user_id: str) -> str | None:
        try:
            self._ensure_embedded_schema()
            with self.session() as session:
                pref = session.get(UserPref, str(user_id))
                return pref.lang if pref else None
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            log.warning("database unavailable (%s); using the default language", e.__class__.__name__)
            return None

    def set_user_lang(self, user_id: str, lang: str | None) -> None:
        self._write_or_spool("user_lang", {"user_id": str(user_id)[:64], "lang": lang,
                                            "updated_at": utcnow().isoformat()})

    # -- writing ----------------------------------------------------------------------------

    def _ensure_embedded_schema(self) -> None:
        """Create the tables of an embedded SQLite file on its first write.

        `vllm-doctor diagnose --record` on a fresh machine should just work; a server database
        (PostgreSQL) is migrated on purpose, with `vllm-doctor db upgrade`, never behind its
        operator's back.
        """
        if self._schema_checked or self.dialect != "sqlite":
            return
        if self.current() is None:
            try:
                self.upgrade()
            except RuntimeError as e:     # migrations/ missing: the write below fails and spools
                log.error("cannot create the tables of %s: %s", display(self.url), e)
        self._schema_checked = True

    def _write_or_spool(self, kind: str, record: dict[str, Any]) -> int | None:
        try:
            self._ensure_embedded_schema()
            with self.session() as session:
                row_id = _WRITERS[kind](session, record, replay=False)
        except IntegrityError as e:
            raise ValueError(_integrity_message(kind, record, e)) from e
        except SQLAlchemyError as e:
            if not is_outage(e):
                raise
            self.spool.append(kind, record, e)
            return None
        if self.spool.pending():
            self.flush_spool()
        return row_id

    def _write_spooled(self, kind: str, record: dict[str, Any]) -> None:
        with self.session() as session:
            _WRITERS[kind](session, record, replay=True)

    def _insert(self, table):
        return (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(table)


# `replay`: the record comes from the spool, and an earlier flush that was cut short may have
# written it already; a record just built has a new uid, and looking it up would only cost a
# round trip on the way to an answer.
def _write_diagnosis(session: Session, record: dict[str, Any], *, replay: bool) -> int:
    existing = replay and session.scalar(select(Diagnosis.id).where(Diagnosis.uid == record["uid"]))
    if existing:
        return existing
    fields = {k: v for k, v in record.items() if k != "candidates"}
    fields["created_at"] = _time(fields["created_at"])
    row = Diagnosis(**fields, candidates=[DiagnosisCandidate(**c) for c in record["candidates"]])
    session.add(row)
    session.flush()
    return row.id


def _write_feedback(session: Session, record: dict[str, Any], *, replay: bool) -> int:
    existing = replay and session.scalar(select(Feedback.id).where(Feedback.uid == record["uid"]))
    if existing:
        return existing
    # Locked (PostgreSQL), so two votes on one paste at once cannot both tally without the other.
    diagnosis = session.get(Diagnosis, record["diagnosis_id"], with_for_update=True)
    if diagnosis is None:
        raise IntegrityError("feedback", record["diagnosis_id"], LookupError("no such diagnosis"))
    row = Feedback(**{**record, "created_at": _time(record["created_at"])})
    session.add(row)
    session.flush()
    tally = latest_votes(session.execute(
        select(Feedback.user_id, Feedback.verdict).where(Feedback.diagnosis_id == diagnosis.id)
        .order_by(Feedback.created_at, Feedback.id)))
    diagnosis.votes_fixed, diagnosis.votes_wrong, diagnosis.votes_partly = (
        tally["fixed"], tally["wrong"], tally["partly"])
    return row.id


def latest_votes(votes) -> Counter:
    """(user, verdict) pairs, oldest first → verdict counts, one vote per person: their latest.
    People change their mind, and a double click is not two votes."""
    return Counter({user: verdict for user, verdict in votes}.values())


def _write_user_lang(session: Session, record: dict[str, Any], *, replay: bool) -> None:
    pref = session.get(UserPref, record["user_id"])
    updated_at = _time(record["updated_at"])
    if pref is None:
        session.add(UserPref(user_id=record["user_id"], lang=record["lang"], updated_at=updated_at))
    elif as_utc(pref.updated_at) <= updated_at:   # a spooled older choice must not win
        pref.lang = record["lang"]
        pref.updated_at = updated_at


def _write_claim(session: Session, record: dict[str, Any], *, replay: bool) -> None:
    """A claim made (or settled) while the database was down: written settled, so Slack's retry
    reaching any replica now is a duplicate. One another replica made meanwhile is kept, settled."""
    write_claims(session, record["keys"], _time(record["claimed_at"]))


_WRITERS = {"diagnosis": _write_diagnosis, "feedback": _write_feedback, "user_lang": _write_user_lang,
            "claim": _write_claim, "reply": outbox.write_reply, "reply_posted": outbox.write_posted}


def _time(value: str | dt.datetime) -> dt.datetime:
    return as_utc(dt.datetime.fromisoformat(value) if isinstance(value, str) else value)


def _integrity_message(kind: str, record: dict[str, Any], error: IntegrityError) -> str:
    if kind == "feedback":
        return f"cannot store feedback: there is no diagnosis {record['diagnosis_id']}"
    return f"cannot store the {kind} record: {error.orig}"


def default_spool_path() -> Path:
    return data_dir() / "spool.jsonl"


def spool_key(url: URL) -> str:
    """The database a spooled record is for: its URL without the password (the same database
    reached with a rotated password is the same database), a SQLite file by its absolute path."""
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        url = url.set(database=str(Path(url.database).expanduser().resolve()))
    return display(url)
