"""The App factory: no network at build time, a Web API client that honours Slack's retry
signals, and the same listeners for both transports."""

from __future__ import annotations

import time

from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.slack.app import TransientErrorRetryHandler, build_app, make_client
from tests.slack.conftest import bot_settings, make_store


def test_building_the_app_calls_nothing(fake, sqlite_url, tmp_path):
    store = make_store(sqlite_url, tmp_path / "spool.jsonl")
    app = build_app(bot_settings(fake, sqlite_url), store=store)
    assert app.client.base_url == fake.api_url
    assert fake.calls == []  # auth.test waits for the first request
    store.dispose()


def test_the_client_retries_rate_limits_server_errors_and_dropped_connections(fake, sqlite_url):
    client = make_client(bot_settings(fake, sqlite_url))
    kinds = {type(h) for h in client.retry_handlers}
    assert kinds == {RateLimitErrorRetryHandler, ServerErrorRetryHandler, ConnectionErrorRetryHandler,
                     TransientErrorRetryHandler}


def test_slacks_transient_ok_false_is_retried_and_a_real_refusal_is_not(fake, sqlite_url):
    from slack_sdk.errors import SlackApiError

    client = make_client(bot_settings(fake, sqlite_url))
    fake.inject("chat.postMessage", 200, error="internal_error")
    assert client.chat_postMessage(channel="C1", text="hi")["ok"]
    assert [c.answer["ok"] for c in fake.calls_to("chat.postMessage")] == [False, True]
    fake.inject("chat.postMessage", 200, error="channel_not_found")
    try:
        client.chat_postMessage(channel="C1", text="hi")
        raise AssertionError("a refusal that retrying cannot fix was retried into success")
    except SlackApiError as e:
        assert e.response["error"] == "channel_not_found"
    assert len(fake.calls_to("chat.postMessage")) == 3


def test_a_429_is_retried_after_the_retry_after_it_names(fake, sqlite_url):
    client = make_client(bot_settings(fake, sqlite_url))
    fake.inject("chat.postMessage", 429, retry_after=1, times=2)
    start = time.monotonic()
    response = client.chat_postMessage(channel="C1", text="hi")
    assert response["ok"] and time.monotonic() - start >= 2.0
    assert [c.status for c in fake.calls_to("chat.postMessage")] == [429, 429, 200]


def test_the_api_url_gets_its_trailing_slash(fake, sqlite_url):
    settings = bot_settings(fake, sqlite_url, api_url=fake.api_url.rstrip("/"))
    client = make_client(settings)
    assert client.auth_test()["user_id"] == "UBOT0001"
    assert fake.calls[0].path == "/api/auth.test"
