"""The HTTP edge against strangers and malformed requests: a rejection is one log line with no
body in it, junk gets 401 or 400 (never a 500 or a traceback), and events the bot cannot use are
ignored quietly. Real HTTP to the bot, the real PostgreSQL behind it."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import urllib.request
from urllib.parse import urlencode

import pytest

from tests.slack.conftest import fixture_log
from tests.slack.fakeslack import CHANNEL, SIGNING_SECRET

pytestmark = [pytest.mark.timeout(60), pytest.mark.postgres]

TOKEN = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"


@pytest.fixture
def logs(caplog):
    caplog.set_level(logging.DEBUG)
    return caplog


def raw_post(url: str, body: bytes, headers: dict | None = None) -> int:
    request = urllib.request.Request(url + "/slack/events", data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def rejections(logs) -> list[logging.LogRecord]:
    return [r for r in logs.records if "rejected" in r.getMessage()]


def assert_clean(logs) -> None:
    """Nothing logged a body, a traceback or an error."""
    assert TOKEN not in logs.text
    assert not [r for r in logs.records if r.exc_info or r.levelno >= logging.ERROR], logs.text[-3000:]


def test_unsigned_and_forged_requests_get_401_and_one_short_line_each(pg_bot, fake, logs):
    big = (f"HF_TOKEN={TOKEN} " + "x" * 1024 * 1024).encode() * 5         # 5 MB
    assert raw_post(pg_bot.url, b"\x00\xff junk {", {"Content-Type": "application/json"}) == 401
    assert raw_post(pg_bot.url, big, {"Content-Type": "application/json"}) == 401
    forged = pg_bot.driver.post(big, "application/json", signature="v0=" + "0" * 64)
    assert forged.status == 401
    stale = json.dumps(pg_bot.driver.event_envelope(pg_bot.driver.message_event(f"HF_TOKEN={TOKEN}"))).encode()
    assert pg_bot.driver.post(stale, "application/json", timestamp=int(time.time()) - 600).status == 401
    lines = rejections(logs)
    assert len(lines) == 4 and all(len(r.getMessage()) < 200 for r in lines)
    assert all("401" in r.getMessage() for r in lines)
    assert len(logs.text) < 5000                                          # 15 MB in, a few lines out
    assert_clean(logs)
    assert fake.calls == []


@pytest.mark.parametrize("body, content_type", [
    (b"{not json", "application/json"),
    (b'{"type": "event_callback", "event": null, "event_id": "Ev1"}', "application/json"),
    (b'[{"type": "event_callback"}]', "application/json"),
    (b'"a string"', "application/json"),
    (b"payload=%7Bnot+json", "application/x-www-form-urlencoded"),
    (b'payload=%5B1%2C2%5D', "application/x-www-form-urlencoded"),
    (b"\xff\xfe\x00", "application/json"),
    (b"hello", "text/plain"),
])
def test_signed_malformed_requests_get_400(pg_bot, fake, logs, body, content_type):
    ts = str(int(time.time()))
    signature = "v0=" + hmac.new(SIGNING_SECRET.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256).hexdigest()
    reply = pg_bot.driver.post(body, content_type, timestamp=int(ts), signature=signature)
    assert reply.status == 400, reply.body
    [line] = rejections(logs)
    assert "400" in line.getMessage()
    assert_clean(logs)
    assert fake.calls == []


@pytest.mark.parametrize("change", [
    {"ts": None}, {"ts": 17.5}, {"text": 12345}, {"text": {"type": "rich_text"}}, {"text": ["a"]}, {"channel": None},
    {"files": "not a list"},
])
def test_events_without_ts_or_with_odd_fields_are_ignored_quietly(pg_bot, fake, logs, botlog, change):
    event = pg_bot.driver.message_event(fixture_log("cuda-oom"))
    event.update(change)
    event = {k: v for k, v in event.items() if v is not None}
    reply, _ = pg_bot.driver.send_event(event)
    assert reply.status == 200
    # A real paste after it is answered: the odd one did not stop anything, and was not answered.
    good = pg_bot.driver.message_event(fixture_log("cuda-oom"))
    pg_bot.driver.send_event(good)
    assert botlog.outcome(CHANNEL, good["ts"]).startswith("answered")
    assert [c.params["thread_ts"] for c in fake.ok_calls("chat.postMessage")] == [good["ts"]]
    assert_clean(logs)


def test_a_signed_event_whose_fields_bolt_cannot_read_is_400(pg_bot, fake, logs):
    event = pg_bot.driver.message_event(fixture_log("cuda-oom"), user=7)
    reply, _ = pg_bot.driver.send_event(event)
    assert reply.status == 400
    [line] = rejections(logs)
    assert "unreadable request (TypeError) (400)" in line.getMessage()
    assert_clean(logs)


def test_a_signed_form_without_a_payload_or_command_is_400_and_a_real_command_still_works(pg_bot, fake, logs):
    assert pg_bot.driver.post(urlencode({"foo": "bar"}).encode(), "application/x-www-form-urlencoded").status == 400
    reply, _ = pg_bot.driver.send_command("help")
    assert reply.status == 200
    assert_clean(logs)


PAYLOAD_BASE = {"team": {"id": "T0FAKE01"}, "user": {"id": "U0HUMAN01"}, "api_app_id": "AFAKE", "token": "legacy"}


@pytest.mark.parametrize("payload", [
    {"type": "block_actions", "actions": [{}]},
    {"type": "block_actions", "actions": []},
    {"type": "block_actions", "actions": "feedback_fixed"},
    {"type": "block_actions", "actions": [7]},
    {"type": "block_actions", "actions": [{"action_id": 5}]},
    {"type": "block_actions", "actions": [{"action_id": "feedback_fixed", "value": "1"}], "user": None},
    {"type": "view_submission", "view": None},
    {"type": "view_closed", "view": {"id": "V1"}},
    {"type": "shortcut"},
    {"actions": [{"action_id": "feedback_fixed"}]},
])
def test_a_signed_interaction_bolt_cannot_route_is_400_without_a_traceback(pg_bot, fake, logs, payload):
    reply = pg_bot.driver.send_interaction({**PAYLOAD_BASE, **payload})
    assert reply.status == 400, reply.body
    [line] = rejections(logs)
    assert "(400)" in line.getMessage()
    assert_clean(logs)
    assert fake.calls == []
