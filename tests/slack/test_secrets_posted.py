"""What the bot posts is masked like what it stores: the evidence line, the quoted first error, the
ready-to-paste command and the attached file quote the paste, and its tokens must not reach the
channel. Real HTTP both ways, the real PostgreSQL."""

from __future__ import annotations

import json

import pytest

from tests.slack.fakeslack import CHANNEL
from tests.store.test_secrets import SECRETS, _needles, _seeded_paste, _unanswered_paste_with_a_key_in_the_error

pytestmark = [pytest.mark.timeout(120), pytest.mark.postgres]


def everything_posted(fake) -> list[str]:
    posted = [json.dumps(c.params) for c in fake.calls
              if c.method in ("chat.postMessage", "chat.update", "chat.postEphemeral", "files.completeUploadExternal")]
    posted += [json.dumps(p) for p in fake.hook_payloads()]
    posted += [u["content"].decode("utf-8", "replace") for u in fake.uploads.values() if u.get("content")]
    return posted


def leaks(texts: list[str]) -> list[str]:
    return [name for name, needles in _needles().items() for text in texts if any(n in text for n in needles)]


def test_an_answer_in_the_channel_echoes_no_secret(pg_bot, fake, botlog):
    paste = _seeded_paste().replace(
        "customized config parser.",                                        # a token on the error line itself
        f"customized config parser. token={SECRETS['hf']} url=https://u:{SECRETS['db_password']}@h/x", 1)
    event = pg_bot.driver.message_event(paste)
    pg_bot.driver.send_event(event)
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: config-json-missing")
    fake.wait_calls("files.completeUploadExternal")
    posted = everything_posted(fake)
    assert any("Could not detect config format" in p for p in posted)       # the evidence is there...
    assert any("[REDACTED:" in p for p in posted)                           # ...masked
    assert leaks(posted) == []


def test_a_quoted_first_error_and_a_repro_request_echo_no_secret(pg_bot, fake):
    reply, _ = pg_bot.driver.send_command("diagnose " + _unanswered_paste_with_a_key_in_the_error())
    assert reply.status == 200
    fake.wait_for(lambda calls: fake.hook_payloads())
    reply, _ = pg_bot.driver.send_command(f"repro /models/x hf_token={SECRETS['hf']} api_key={SECRETS['engine_arg']}")
    fake.wait_for(lambda calls: len(fake.hook_payloads()) >= 2)
    posted = everything_posted(fake)
    assert any("401 Client Error" in p for p in posted)
    assert leaks(posted) == []
