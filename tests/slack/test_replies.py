"""Exactly one reply per paste, whatever fails and in whatever order: the answer is stored in the
outbox before it is posted, a post Slack refuses is tried again with backoff (also by another
replica, also after a restart), Slack's own retry brings that forward, and claims made while the
database was down are written when it is back. Signed events over real loopback HTTP, the fake
Slack refusing posts, the real SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from sqlalchemy import select, update

from bot.store.models import Diagnosis, Reply, SeenEvent, utcnow
from tests.slack.conftest import fixture_log
from tests.slack.fakeslack import CHANNEL
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(120)

FAST = {"reply_retry_s": 0.2}        # the first retry 0.2 s after a failed post, then 0.4, 0.8, ...


def posts_in(fake, thread_ts: str) -> list:
    return [c for c in fake.ok_calls("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def attempts_in(fake, thread_ts: str) -> list:
    return [c for c in fake.calls_to("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def reply_row(store, event) -> Reply:
    with store.session() as session:
        return session.scalars(select(Reply).where(Reply.message_key == f"msg:{CHANNEL}:{event['ts']}")).one()


def diagnoses(store) -> int:
    with store.session() as session:
        return len(session.scalars(select(Diagnosis.id)).all())


def one_reply(fake, store, event, timeout: float = 30.0) -> None:
    """Exactly one answer reached the thread, and the outbox says it was posted."""
    fake.wait_for(lambda calls: posts_in(fake, event["ts"]), timeout=timeout)
    wait_until(lambda: reply_row(store, event).status == "posted", timeout, "the outbox to mark the reply posted")
    assert len(posts_in(fake, event["ts"])) == 1
    assert reply_row(store, event).posted_ts == posts_in(fake, event["ts"])[0].answer["ts"]


def test_a_post_that_fails_three_times_is_posted_once_from_the_outbox(start, store_url, fake, botlog):
    bot = start(store_url, **FAST)
    fake.inject("chat.postMessage", 500, times=3)            # the client's own 2 retries, all refused
    event = bot.driver.message_event(fixture_log("kv-cache-no-memory"))
    bot.driver.send_event(event)
    assert "not posted (fatal_error); trying again in 0.2s" in botlog.outcome(CHANNEL, event["ts"])
    one_reply(fake, bot.store, event)
    assert [c.status for c in attempts_in(fake, event["ts"])] == [500, 500, 500, 200]
    assert reply_row(bot.store, event).attempts == 2
    # Slack retries the event (it saw our ack, but a retry may come anyway): nothing new.
    bot.driver.send_event(event, event_id=None, retry_num=1)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery")
    assert len(posts_in(fake, event["ts"])) == 1 and diagnoses(bot.store) == 1


def test_slacks_retry_brings_the_next_attempt_forward(start, store_url, fake, botlog):
    bot = start(store_url, reply_retry_s=300)                   # the timer would wait five minutes
    fake.inject("chat.postMessage", 500, times=3)
    event = bot.driver.message_event(fixture_log("cuda-oom"))
    _, event_id = bot.driver.send_event(event)
    assert "trying again in 300s" in botlog.outcome(CHANNEL, event["ts"])
    bot.driver.send_event(event, event_id=event_id, retry_num=1)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery of {event_id} \(its stored answer was posted")
    one_reply(fake, bot.store, event, timeout=10)
    assert diagnoses(bot.store) == 1                             # answered from the outbox, not diagnosed again


def test_ok_false_once_is_retried_by_the_client_and_posted_once(start, store_url, fake, botlog):
    bot = start(store_url, **FAST)
    fake.inject("chat.postMessage", 200, error="internal_error")
    event = bot.driver.message_event(fixture_log("port-in-use"))
    bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).endswith(", posted")
    one_reply(fake, bot.store, event)
    assert [c.answer["ok"] for c in attempts_in(fake, event["ts"])] == [False, True]


def test_a_refusal_that_cannot_pass_is_given_up_in_one_line(start, store_url, fake, botlog):
    bot = start(store_url, **FAST)
    fake.inject("chat.postMessage", 200, error="not_in_channel")
    event = bot.driver.message_event(fixture_log("port-in-use"))
    _, event_id = bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).endswith("not posted (not_in_channel); given up")
    bot.driver.send_event(event, event_id=event_id, retry_num=1)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery of {event_id}$")
    row = reply_row(bot.store, event)
    assert (row.status, row.attempts, row.error) == ("failed", 1, "not_in_channel")
    assert len(attempts_in(fake, event["ts"])) == 1
    assert len(botlog.wait("gave up posting reply")) == 1


def test_a_reply_left_by_a_stopped_bot_is_posted_by_the_next_start(start, store_url, fake, botlog):
    first = start(store_url, reply_retry_s=0.3)
    fake.inject("chat.postMessage", 500, times=1000)         # Slack down for as long as this bot runs
    event = first.driver.message_event(fixture_log("kv-cache-no-memory"))
    first.driver.send_event(event)
    botlog.outcome(CHANNEL, event["ts"])
    first.close()
    assert reply_row(first.store, event).status == "pending" and posts_in(fake, event["ts"]) == []
    fake.heal("chat.postMessage")
    second = start(store_url, **FAST)
    one_reply(fake, second.store, event)
    assert diagnoses(second.store) == 1


@pytest.mark.parametrize("failing_posts", [0, 3])
def test_two_replicas_get_both_deliveries_at_once_and_post_once(start, store_url, fake, botlog, failing_posts):
    replicas = [start(store_url, **FAST) for _ in range(2)]
    if failing_posts:
        fake.inject("chat.postMessage", 500, times=failing_posts)
    event = replicas[0].driver.message_event(fixture_log("kv-cache-no-memory"))
    event_id = replicas[0].driver.new_event_id()
    senders = [threading.Thread(target=r.driver.send_event, args=(event,),
                                kwargs={"event_id": event_id, "retry_num": n or None})
               for n, r in enumerate(replicas * 2)]
    for s in senders:
        s.start()
    for s in senders:
        s.join(30)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: answered")
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery", count=3)
    one_reply(fake, replicas[0].store, event)
    assert diagnoses(replicas[0].store) == 1


def test_a_claim_its_replica_never_settled_is_taken_over_by_slacks_retry(start, store_url, fake, botlog, tmp_path):
    from bot.store import Store

    bot = start(store_url, **FAST)
    event = bot.driver.message_event(fixture_log("cuda-oom"))
    key = f"msg:{CHANNEL}:{event['ts']}"
    # Another replica claimed the message and died before it stored what to do about it.
    other = Store(store_url, spool_path=tmp_path / "other-spool.jsonl")
    assert other.claim_message(key, event_id="EvFirst") is True
    other.dispose()
    bot.driver.send_event(event, event_id="EvFirst", retry_num=1)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery")     # a fresh claim: it may still work
    assert posts_in(fake, event["ts"]) == []
    with bot.store.engine.begin() as conn:                     # a minute passes
        conn.execute(update(SeenEvent).where(SeenEvent.event_id == key).values(
            seen_at=utcnow() - dt.timedelta(seconds=60)))
    bot.driver.send_event(event, event_id="EvFirst", retry_num=2)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: cuda-oom")
    one_reply(fake, bot.store, event)
    with bot.store.session() as session:
        assert session.get(SeenEvent, key).settled_at is not None


def test_a_claim_made_while_the_database_was_down_is_honoured_by_another_replica(start, outage, fake, botlog):
    first = start(outage.url, **FAST)
    outage.cut(first.store)
    event = first.driver.message_event(fixture_log("kv-cache-no-memory"))
    _, event_id = first.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).endswith(", posted")
    first.driver.send_event(event, event_id=event_id, retry_num=1)           # the same replica remembers
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery", count=1)
    outage.restore()
    assert first.store.flush_spool() == 3                    # what the bot's timer does: diagnosis, claim, reply
    second = start(outage.url, **FAST)
    second.driver.send_event(event, event_id=event_id, retry_num=2)          # Slack's last retry, elsewhere
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery", count=2)
    assert len(posts_in(fake, event["ts"])) == 1 and diagnoses(second.store) == 1
    assert reply_row(second.store, event).status == "posted"


def test_a_reply_slack_refused_while_the_database_was_down_is_posted_once_it_is_back(start, outage, fake, botlog):
    bot = start(outage.url, **FAST)
    outage.cut(bot.store)
    fake.inject("chat.postMessage", 500, times=3)
    event = bot.driver.message_event(fixture_log("port-in-use"))
    bot.driver.send_event(event)
    assert "kept until the database is back" in botlog.outcome(CHANNEL, event["ts"])
    assert posts_in(fake, event["ts"]) == []
    outage.restore()
    bot.store.flush_spool()
    one_reply(fake, bot.store, event)
