"""The outbox's states on the real SQLite and PostgreSQL: one owner at a time, backoff that
doubles, a reply given up after its attempts, and marks from a poster that lost its lease refused."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select, update

from bot.store import outbox
from bot.store.models import Reply, SeenEvent, utcnow


def queued(store, key: str = "msg:C1:1.0") -> int:
    assert store.claim_message(key) is True
    reply_id = outbox.enqueue(store, outbox.reply_record(key, channel="C1", thread_ts="1.0", text="an answer",
                                                         blocks=[{"type": "section"}]))
    assert reply_id is not None
    return reply_id


def row(store, reply_id: int) -> Reply:
    with store.session() as session:
        return session.get(Reply, reply_id)


def test_storing_a_reply_settles_its_claim_and_a_second_one_is_refused(store):
    reply_id = queued(store)
    with store.session() as session:
        assert session.get(SeenEvent, "msg:C1:1.0").settled_at is not None
    again = outbox.reply_record("msg:C1:1.0", channel="C1", thread_ts="1.0", text="again", blocks=[])
    assert outbox.enqueue(store, again) is None
    assert row(store, reply_id).text == "an answer"


def test_one_poster_at_a_time_and_a_lost_lease_cannot_mark(store):
    reply_id = queued(store)
    assert outbox.take(store, reply_id, "a") is not None
    assert outbox.take(store, reply_id, "b") is None and outbox.take(store, reply_id, "b", even_early=True) is None
    with store.engine.begin() as conn:                            # a's lease runs out
        conn.execute(update(Reply).where(Reply.id == reply_id).values(lease_until=utcnow() - dt.timedelta(seconds=1)))
    assert outbox.take(store, reply_id, "b") is not None
    assert outbox.posted(store, reply_id, "a", "9.9") is False    # a woke up late: b owns it
    assert outbox.failed(store, reply_id, "a", "fatal_error", permanent=False) == "lost"
    assert outbox.posted(store, reply_id, "b", "1.5") is True
    assert (row(store, reply_id).status, row(store, reply_id).posted_ts) == ("posted", "1.5")
    assert outbox.take(store, reply_id, "c", even_early=True) is None and outbox.due(store) == []


def test_backoff_doubles_and_the_reply_is_given_up_after_its_attempts(store):
    reply_id = queued(store)
    delays = []
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        assert outbox.take(store, reply_id, "p", even_early=True) is not None
        state = outbox.failed(store, reply_id, "p", "fatal_error", permanent=False, first_delay_s=1)
        r = row(store, reply_id)
        delays.append(round((r.next_attempt_at - utcnow()).total_seconds()))
        assert state == ("failed" if attempt == outbox.MAX_ATTEMPTS else "retry")
        assert outbox.due(store) == []                            # not before its time
    assert delays[:5] == [1, 2, 4, 8, 16] and max(delays) == outbox.MAX_DELAY_S
    assert (row(store, reply_id).status, row(store, reply_id).attempts) == ("failed", outbox.MAX_ATTEMPTS)


def test_a_permanent_refusal_is_given_up_at_once(store):
    reply_id = queued(store)
    outbox.take(store, reply_id, "p")
    assert outbox.failed(store, reply_id, "p", "channel_not_found", permanent=True) == "failed"


def test_a_posted_mark_spooled_during_an_outage_is_written_when_the_database_is_back(store):
    reply_id = queued(store)
    outbox.take(store, reply_id, "p")
    store.spool.append("reply_posted", {"message_key": "msg:C1:1.0", "ts": "2.0", "posted_at": utcnow().isoformat()})
    assert store.flush_spool() == 1
    assert (row(store, reply_id).status, row(store, reply_id).posted_ts) == ("posted", "2.0")


def test_a_reply_spooled_for_a_message_that_got_one_meanwhile_is_dropped(store):
    reply_id = queued(store)
    store.spool.append("reply", outbox.reply_record("msg:C1:1.0", channel="C1", thread_ts="1.0", text="spooled",
                                                    blocks=[]))
    assert store.flush_spool() == 1
    with store.session() as session:
        assert [r.id for r in session.scalars(select(Reply))] == [reply_id]
