"""The reply outbox, in the `replies` table: an answer is stored before it is posted.

What the bot calls: `enqueue` (store the reply and settle the message's claim, one transaction),
`take` (lease it for posting), `posted` and `failed` (after a post), `due` (what to post now),
`for_message`. A reply posted once is never posted again; one that failed is tried again later,
by whichever replica takes it first, also after a restart.

Every change of state is one conditional UPDATE ("... WHERE status = 'pending' AND the lease is
free", "... WHERE lease_owner = me"), as in the repro queue: two posters can never both own a
reply, and a poster whose lease ran out cannot mark a reply another has taken over.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .claims import write_claims
from .models import Reply, utcnow
from .redact import redact, redact_obj

# How long a poster owns a reply it took: far above a post's time with its retries (slack_sdk
# sleeps through Retry-After inside the call), far below what a person waits for an answer.
LEASE_S = 120.0
# The first retry after this many seconds, then twice as long each time, up to MAX_DELAY_S; after
# MAX_ATTEMPTS the reply is given up (about 40 minutes with the defaults).
FIRST_DELAY_S = 5.0
MAX_DELAY_S = 300.0
MAX_ATTEMPTS = 12


@dataclass(frozen=True)
class Outgoing:
    """A reply as a poster needs it."""

    id: int
    message_key: str
    channel: str
    thread_ts: str
    lang: str
    text: str
    blocks: list
    attachment_name: str | None
    attachment: str | None
    attempts: int
    diagnosis_id: int | None


def reply_record(message_key: str, *, channel: str, thread_ts: str, text: str, blocks: list, lang: str = "en",
                 attachment: tuple[str, str] | None = None, diagnosis_id: int | None = None) -> dict[str, Any]:
    """The row as plain JSON types: what `enqueue` writes, or the spool keeps while the database is down."""
    return {"message_key": message_key[:255], "channel": channel[:64], "thread_ts": thread_ts[:32], "lang": lang[:8],
            "diagnosis_id": diagnosis_id, "text": redact(text), "blocks": redact_obj(blocks),
            "attachment_name": attachment[0][:255] if attachment else None,
            "attachment": redact(attachment[1]) if attachment else None,
            "created_at": utcnow().isoformat()}


def enqueue(store, record: dict[str, Any]) -> int | None:
    """Store a reply and settle its message's claim; the reply's id, or None when the message
    already has one (another replica's)."""
    try:
        with store.session() as session:
            return write_reply(session, record, replay=False)
    except IntegrityError:
        return None


def write_reply(session: Session, record: dict[str, Any], *, replay: bool) -> int | None:
    """Insert the reply (a spooled one whose message got a reply meanwhile is dropped) and settle
    the claim of its message, in the caller's transaction."""
    created = dt.datetime.fromisoformat(record["created_at"])
    if replay and session.scalar(select(Reply.id).where(Reply.message_key == record["message_key"])):
        return None
    fields = {k: v for k, v in record.items() if k != "created_at"}
    if fields.get("posted_at"):         # a reply posted while the database was down
        fields["posted_at"] = dt.datetime.fromisoformat(fields["posted_at"])
    row = Reply(**fields, created_at=created, next_attempt_at=created)
    session.add(row)
    session.flush()
    write_claims(session, [record["message_key"]], utcnow())
    return row.id


def _free(now: dt.datetime):
    return and_(Reply.status == "pending", or_(Reply.lease_until.is_(None), Reply.lease_until < now))


def due(store, *, limit: int = 20) -> list[int]:
    """Pending replies whose next attempt is due and that nobody is posting, oldest first."""
    now = utcnow()
    with store.session() as session:
        return list(session.scalars(select(Reply.id).where(_free(now), Reply.next_attempt_at <= now)
                                    .order_by(Reply.next_attempt_at, Reply.id).limit(limit)))


def for_message(store, message_key: str) -> Reply | None:
    with store.session() as session:
        return session.scalar(select(Reply).where(Reply.message_key == message_key[:255]))


def take(store, reply_id: int, owner: str, *, even_early: bool = False) -> Outgoing | None:
    """Lease a pending reply for posting; None when it is posted, given up, or someone else's now.
    `even_early`: before its next attempt is due (Slack's retry of the message asks for it)."""
    now = utcnow()
    condition = _free(now) if even_early else and_(_free(now), Reply.next_attempt_at <= now)
    with store.session() as session:
        taken = session.execute(update(Reply).where(Reply.id == reply_id, condition).values(
            lease_owner=owner[:255], lease_until=now + dt.timedelta(seconds=LEASE_S))).rowcount
        if taken != 1:
            return None
        r = session.get(Reply, reply_id)
        return Outgoing(r.id, r.message_key, r.channel, r.thread_ts, r.lang, r.text, list(r.blocks or []),
                        r.attachment_name, r.attachment, r.attempts, r.diagnosis_id)


def posted(store, reply_id: int, owner: str, ts: str | None) -> bool:
    now = utcnow()
    with store.session() as session:
        return session.execute(update(Reply).where(Reply.id == reply_id, Reply.lease_owner == owner).values(
            status="posted", posted_ts=(ts or "")[:32] or None, posted_at=now, attempts=Reply.attempts + 1,
            lease_owner=None, lease_until=None, error=None)).rowcount == 1


def failed(store, reply_id: int, owner: str, error: str, *, permanent: bool,
           first_delay_s: float = FIRST_DELAY_S) -> str:
    """Record a failed post: 'retry' (when, in the row) or 'failed' (given up)."""
    now = utcnow()
    with store.session() as session:
        row = session.get(Reply, reply_id)
        if row is None or row.lease_owner != owner:
            return "lost"
        attempts = row.attempts + 1
        give_up = permanent or attempts >= MAX_ATTEMPTS
        delay = delay_after(attempts, first_delay_s)
        session.execute(update(Reply).where(Reply.id == reply_id, Reply.lease_owner == owner).values(
            attempts=attempts, status="failed" if give_up else "pending", error=redact(error)[:2000],
            next_attempt_at=now + dt.timedelta(seconds=delay), lease_owner=None, lease_until=None))
        return "failed" if give_up else "retry"


def delay_after(attempts: int, first_delay_s: float = FIRST_DELAY_S) -> float:
    """Seconds to the next attempt after `attempts` failed ones (what `failed` schedules)."""
    return min(first_delay_s * 2 ** (attempts - 1), MAX_DELAY_S)


def write_posted(session: Session, record: dict[str, Any], *, replay: bool) -> None:
    """A reply posted while the database could not be told: marked posted now, so no poster
    posts it again."""
    session.execute(update(Reply).where(Reply.message_key == record["message_key"], Reply.status == "pending").values(
        status="posted", posted_ts=record.get("ts"), posted_at=dt.datetime.fromisoformat(record["posted_at"]),
        attempts=Reply.attempts + 1, lease_owner=None, lease_until=None, error=None))
