"""The fake Slack enforces the platform rules the bot's tests rely on; if it stopped doing so,
those tests would pass for the wrong reason."""

from __future__ import annotations

import urllib.request

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from tests.slack.fakeslack import BOT_TOKEN, FakeSlack


@pytest.fixture
def client(fake) -> WebClient:
    return WebClient(token=BOT_TOKEN, base_url=fake.api_url, retry_handlers=[])


def test_a_trigger_works_once_and_expires():
    now = [100.0]
    with FakeSlack(clock=lambda: now[0]) as fake:
        client = WebClient(token=BOT_TOKEN, base_url=fake.api_url, retry_handlers=[])
        view = {"type": "modal", "title": {"type": "plain_text", "text": "t"}, "blocks": []}
        first, late = fake.new_trigger(), fake.new_trigger()
        assert client.views_open(trigger_id=first, view=view)["ok"]
        with pytest.raises(SlackApiError, match="exchanged_trigger_id"):
            client.views_open(trigger_id=first, view=view)
        now[0] += 3.5
        with pytest.raises(SlackApiError, match="expired_trigger_id"):
            client.views_open(trigger_id=late, view=view)
        with pytest.raises(SlackApiError, match="invalid_trigger_id"):
            client.views_open(trigger_id="made-up", view=view)


def test_a_response_url_takes_five_posts():
    with FakeSlack() as fake:
        hook = WebhookClient(fake.new_response_url())
        assert [hook.send(text=str(i)).status_code for i in range(6)] == [200] * 5 + [404]


def test_block_limits_are_enforced(client):
    too_long = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        client.chat_postMessage(channel="C1", blocks=too_long, text="t")
    too_many = [{"type": "divider"}] * 51
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        client.chat_postMessage(channel="C1", blocks=too_many, text="t")
    too_much = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 2900}}] * 5
    with pytest.raises(SlackApiError, match="msg_blocks_too_long"):
        client.chat_postMessage(channel="C1", blocks=too_much, text="t")


def test_injected_errors_come_with_retry_after(fake, client):
    fake.inject("auth.test", 429, retry_after=7)
    with pytest.raises(SlackApiError) as err:
        client.auth_test()
    assert err.value.response.status_code == 429 and err.value.response.headers["retry-after"] == "7"
    assert client.auth_test()["ok"]


def test_a_bad_token_is_refused(fake):
    bad = WebClient(token="xoxb-wrong", base_url=fake.api_url, retry_handlers=[])
    with pytest.raises(SlackApiError, match="invalid_auth"):
        bad.auth_test()


def test_the_upload_flow_needs_all_three_steps(fake, client):
    done = client.files_upload_v2(channel="C1", thread_ts="1.2", content="abc", filename="a.txt")
    assert done["file"]["name"] == "a.txt"
    [upload] = fake.uploads.values()
    assert (upload["content"], upload["thread_ts"], upload["channel"]) == (b"abc", "1.2", "C1")
    url = client.files_getUploadURLExternal(filename="b.txt", length=3)["file_id"]
    with pytest.raises(SlackApiError, match="file_not_found"):  # completed before the bytes arrived
        client.files_completeUploadExternal(files=[{"id": url, "title": "b"}])


def test_private_files_need_the_bearer_token(fake):
    f = fake.add_file("x.log", "secret log")
    with urllib.request.urlopen(f["url_private_download"]) as anonymous:
        assert b"<!DOCTYPE html>" in anonymous.read()
    request = urllib.request.Request(f["url_private_download"], headers={"Authorization": f"Bearer {BOT_TOKEN}"})
    with urllib.request.urlopen(request) as authorised:
        assert authorised.read() == b"secret log"


def test_apps_connections_open_wants_the_app_token(fake):
    fake.socket_url = "ws://127.0.0.1:1/link"
    app = WebClient(token=fake.app_token, base_url=fake.api_url)
    assert app.apps_connections_open(app_token=fake.app_token)["url"] == "ws://127.0.0.1:1/link"
    with pytest.raises(SlackApiError, match="invalid_auth"):
        app.apps_connections_open(app_token=BOT_TOKEN)
    assert [c.token for c in fake.calls_to("apps.connections.open")] == [fake.app_token, BOT_TOKEN]
