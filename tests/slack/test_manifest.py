"""deploy/slack-manifest.yaml must ask Slack for exactly what the bot listens to: every event,
command and interactive surface in the manifest reaches a listener, and nothing the bot
listens to is missing from the manifest."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.slack import modals
from bot.slack.listeners import actions, commands, messages, views

MANIFEST = Path(__file__).resolve().parents[2] / "deploy" / "slack-manifest.yaml"
# The scopes each feature needs (https://api.slack.com/scopes).
NEEDED_SCOPES = {"channels:history", "groups:history", "chat:write", "commands", "files:read", "files:write"}
# bot_events name a subscription; the event that arrives is the part before the dot.
CHANNEL_FOR_SUBSCRIPTION = {"message.channels": ("C0PUBLIC1", "channel"), "message.groups": ("G0PRIVATE", "group")}


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load(MANIFEST.read_text())


def test_events_match_the_message_listener(manifest):
    subscribed = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert {name.split(".")[0] for name in subscribed} == set(messages.EVENTS)
    assert set(subscribed) == set(CHANNEL_FOR_SUBSCRIPTION)


def test_commands_match_the_command_listener(manifest):
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == list(commands.COMMANDS)
    hint = manifest["features"]["slash_commands"][0]["usage_hint"]
    assert all(sub in hint for sub in commands.SUBCOMMANDS)


def test_interactivity_is_on_because_there_are_buttons_and_modals(manifest):
    assert actions.ACTIONS and views.VIEWS
    assert manifest["settings"]["interactivity"]["is_enabled"] is True


def test_scopes_cover_what_the_bot_does(manifest):
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == NEEDED_SCOPES


def test_sign_in_with_slack_asks_for_what_the_dashboard_uses(manifest):
    from bot.dashboard.auth import CALLBACK_PATH, SCOPES

    assert manifest["oauth_config"]["scopes"]["user"] == list(SCOPES)
    assert all(url.endswith("/dashboard" + CALLBACK_PATH) for url in manifest["oauth_config"]["redirect_urls"])


def test_socket_mode_is_the_default(manifest):
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in manifest["settings"]["event_subscriptions"]


def test_every_subscribed_event_reaches_a_listener(manifest, bot, botlog):
    for name in manifest["settings"]["event_subscriptions"]["bot_events"]:
        channel, channel_type = CHANNEL_FOR_SUBSCRIPTION[name]
        event = bot.driver.message_event("hello", channel=channel, channel_type=channel_type)
        reply, _ = bot.driver.send_event(event)
        assert reply.status == 200
        botlog.wait(rf"^message {channel}/{event['ts']}: ")


def test_every_command_and_interaction_reaches_a_listener(manifest, bot, fake):
    for entry in manifest["features"]["slash_commands"]:
        reply, _ = bot.driver.send_command("help", command=entry["command"])
        assert reply.status == 200 and "/vllm" in reply.json()["text"]
    # A command the manifest does not declare is not handled: the check above can fail.
    assert bot.driver.send_command("help", command="/other")[0].status == 404

    message = {"ts": fake.new_ts(), "blocks": [{"type": "actions", "block_id": "feedback-en", "elements": [
        {"type": "button", "action_id": a, "value": "1", "text": {"type": "plain_text", "text": a}}
        for a in actions.ACTIONS]}]}
    for action_id in actions.ACTIONS:
        assert bot.driver.click(message, action_id)[0].status == 200
    for callback_id in views.VIEWS:
        view = {"id": "V1", "callback_id": callback_id, "private_metadata": "{}"}
        values = {modals.PASTE_BLOCK: {modals.PASTE_ACTION: {"type": "plain_text_input", "value": "x"}}}
        assert bot.driver.submit_view(view, values).status == 200
