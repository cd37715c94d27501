"""The bot's HTTP endpoint (bolt's WSGI adapter under waitress): signatures, health, the
Events API handshake, and the 3-second ack under load."""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import func, select

from bot.store.models import Diagnosis, SeenEvent
from tests.slack.conftest import fixture_log
from tests.slack.fakeslack import CHANNEL

pytestmark = pytest.mark.timeout(60)


def count(store, model) -> int:
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(model))


def test_healthz_answers_without_a_signature(bot):
    reply = bot.driver.get("/healthz")
    assert (reply.status, reply.body) == (200, b"ok\n")


def test_other_paths_are_not_found(bot):
    assert bot.driver.get("/admin").status == 404


def test_url_verification_challenge_is_echoed(bot):
    body = json.dumps({"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                       "type": "url_verification"}).encode()
    reply = bot.driver.post(body, "application/json")
    assert reply.status == 200
    assert reply.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


def forged(driver, event):
    envelope = driver.event_envelope(event)
    return json.dumps(envelope).encode()


def test_a_forged_signature_is_rejected_with_no_side_effects(bot, fake):
    body = forged(bot.driver, bot.driver.message_event(fixture_log("cuda-oom")))
    reply = bot.driver.post(body, "application/json", signature="v0=" + "0" * 64)
    assert reply.status == 401
    _, form = bot.driver.send_command("help", signature="v0=deadbeef")
    assert fake.calls == []  # not even auth.test
    assert count(bot.store, SeenEvent) == 0 and count(bot.store, Diagnosis) == 0


def test_a_body_changed_after_signing_is_rejected(bot, fake):
    event = bot.driver.message_event(fixture_log("cuda-oom"))
    body = forged(bot.driver, event)
    ts = str(int(time.time()))
    signature = bot.driver.verifier.generate_signature(timestamp=ts, body=body)
    tampered = body.replace(CHANNEL.encode(), b"C0OTHERCH")
    reply = bot.driver.post(tampered, "application/json", timestamp=int(ts), signature=signature)
    assert reply.status == 401
    assert fake.calls == []


def test_a_stale_request_is_rejected_even_when_correctly_signed(bot, fake):
    body = forged(bot.driver, bot.driver.message_event(fixture_log("cuda-oom")))
    reply = bot.driver.post(body, "application/json", timestamp=int(time.time()) - 10 * 60)
    assert reply.status == 401
    assert fake.calls == []
    assert count(bot.store, SeenEvent) == 0


def test_a_request_signed_with_another_secret_is_rejected(bot, fake):
    from tests.slack.fakeslack import SlackDriver

    stranger = SlackDriver(bot.url, fake, signing_secret="not-the-apps-secret")
    reply, _ = stranger.send_command("diagnose " + fixture_log("cuda-oom"))
    assert reply.status == 401
    assert fake.calls_to("views.open") == [] and fake.hook_payloads() == []


def test_events_are_acked_fast_even_with_a_100kb_paste(bot, fake, botlog):
    noise = "INFO 11-09 12:00:00 [loader.py:120] Loading weights took 1.23 seconds\n"
    log = noise * (100_000 // len(noise)) + fixture_log("kv-cache-no-memory")
    event = bot.driver.message_event(f"```{log}```")
    reply, _ = bot.driver.send_event(event)
    assert reply.status == 200
    assert reply.elapsed < 2.5
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
