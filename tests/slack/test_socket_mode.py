"""Socket Mode: the bot opens apps.connections.open on the fake Web API, connects to a local
WebSocket server, acks envelopes and answers in the thread, all over real sockets."""

from __future__ import annotations

import threading

import pytest

from bot.slack.app import build_app
from bot.slack.cli import serve_socket_mode
from tests.slack.conftest import bot_settings, fixture_log, make_store
from tests.slack.fakeslack import APP_TOKEN, CHANNEL, FakeSocketMode, SlackDriver

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def socket_bot(fake, sqlite_url, tmp_path):
    with FakeSocketMode() as server:
        fake.socket_url = server.url
        store = make_store(sqlite_url, tmp_path / "spool.jsonl")
        app = build_app(bot_settings(fake, sqlite_url, signing_secret="", app_token=APP_TOKEN), store=store)
        stop = threading.Event()
        runner = threading.Thread(target=serve_socket_mode, args=(app, APP_TOKEN), kwargs={"stop": stop}, daemon=True)
        runner.start()
        try:
            server.wait_connected()
            yield server
        finally:
            stop.set()
            runner.join(15)
            app.listener_runner.listener_executor.shutdown(wait=True)
            store.dispose()
        assert not runner.is_alive()


def test_connection_is_opened_with_the_app_level_token(socket_bot, fake):
    [opened] = fake.calls_to("apps.connections.open")
    assert opened.token == APP_TOKEN and opened.answer["ok"] is True


def test_an_event_envelope_is_acked_and_answered_in_the_thread(socket_bot, fake, botlog):
    driver = SlackDriver("http://unused", fake)
    event = driver.message_event("engine won't start\n" + fixture_log("kv-cache-no-memory"))
    envelope_id = socket_bot.send_envelope("events_api", driver.event_envelope(event))
    ack = socket_bot.wait_ack(envelope_id)
    assert ack == {"envelope_id": envelope_id}
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered: kv-cache-no-memory")
    [reply] = fake.ok_calls("chat.postMessage")
    assert reply.params["thread_ts"] == event["ts"]


def test_a_retried_envelope_is_acked_but_not_answered_twice(socket_bot, fake, botlog):
    driver = SlackDriver("http://unused", fake)
    event = driver.message_event(fixture_log("port-in-use"))
    envelope = driver.event_envelope(event)
    socket_bot.wait_ack(socket_bot.send_envelope("events_api", envelope))
    assert botlog.outcome(CHANNEL, event["ts"]).startswith("answered")
    retry_id = socket_bot.send_envelope("events_api", envelope, retry_attempt=1, retry_reason="timeout")
    socket_bot.wait_ack(retry_id)
    botlog.wait(rf"message {CHANNEL}/{event['ts']}: duplicate delivery")
    assert len(fake.ok_calls("chat.postMessage")) == 1


def test_a_slash_command_envelope_is_acked_with_its_answer(socket_bot, fake):
    driver = SlackDriver("http://unused", fake)
    envelope_id = socket_bot.send_envelope("slash_commands", driver.command_form("help"),
                                           accepts_response_payload=True)
    ack = socket_bot.wait_ack(envelope_id)
    assert "/vllm diagnose" in ack["payload"]["text"]
