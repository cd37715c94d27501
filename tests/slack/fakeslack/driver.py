"""Plays Slack's side of inbound traffic: builds the payloads Slack sends and POSTs them, signed,
to the bot's HTTP endpoint over real loopback HTTP.

The signature covers the raw body bytes exactly as sent: JSON for events, form fields for slash
commands, `payload=<urlencoded json>` for interactivity.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from .webapi import BOT_ID, BOT_USER_ID, TEAM_ID, FakeSlack

SIGNING_SECRET = "fake-signing-secret-0123456789abcdef"
CHANNEL = "C0GPUHELP"
USER = "U0HUMAN01"


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]
    elapsed: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class SlackDriver:
    def __init__(self, bot_url: str, fake: FakeSlack, signing_secret: str = SIGNING_SECRET) -> None:
        self.bot_url = bot_url.rstrip("/")
        self.fake = fake
        self.verifier = SignatureVerifier(signing_secret)
        self._event_ids = itertools.count(1)

    # ---- transport --------------------------------------------------------------------------

    def post(self, body: bytes, content_type: str, *, headers: dict[str, str] | None = None,
             timestamp: int | None = None, signature: str | None = None, path: str = "/slack/events") -> Reply:
        ts = str(int(time.time()) if timestamp is None else timestamp)
        sig = signature or self.verifier.generate_signature(timestamp=ts, body=body)
        request = urllib.request.Request(self.bot_url + path, data=body, method="POST", headers={
            "Content-Type": content_type, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig, **(headers or {})})
        start = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return Reply(resp.status, resp.read(), dict(resp.headers), time.monotonic() - start)
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.read(), dict(err.headers), time.monotonic() - start)

    def get(self, path: str) -> Reply:
        start = time.monotonic()
        try:
            with urllib.request.urlopen(self.bot_url + path, timeout=10) as resp:
                return Reply(resp.status, resp.read(), dict(resp.headers), time.monotonic() - start)
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.read(), dict(err.headers), time.monotonic() - start)

    # ---- events -----------------------------------------------------------------------------

    def new_event_id(self) -> str:
        return f"Ev{next(self._event_ids):08d}{int(time.time() * 1000) % 100000:05d}"

    def event_envelope(self, event: dict, *, event_id: str | None = None) -> dict:
        return {"token": "legacy-verification-token", "team_id": TEAM_ID, "api_app_id": "AFAKE",
                "event": event, "type": "event_callback", "event_id": event_id or self.new_event_id(),
                "event_time": int(time.time()), "authorizations": [
                    {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": False}]}

    def message_event(self, text: str, *, channel: str = CHANNEL, user: str = USER, files: list[dict] | None = None,
                      thread_ts: str | None = None, ts: str | None = None, **extra: Any) -> dict:
        event = {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts or self.fake.new_ts(),
                 "team": TEAM_ID, "channel_type": "channel" if channel.startswith("C") else "group",
                 "event_ts": time.time()}
        if files:
            event.update(subtype="file_share", files=files, upload=False, display_as_bot=False)
        if thread_ts:
            event["thread_ts"] = thread_ts
        event.update(extra)
        return event

    def bot_echo_event(self, posted: dict, channel: str = CHANNEL) -> dict:
        """The message event Slack sends back for one of the bot's own posts."""
        return {"type": "message", "channel": channel, "user": BOT_USER_ID, "bot_id": BOT_ID, "app_id": "AFAKE",
                "text": posted.get("text", ""), "ts": self.fake.new_ts(), "thread_ts": posted.get("thread_ts"),
                "team": TEAM_ID, "channel_type": "channel"}

    def send_event(self, event: dict, *, event_id: str | None = None, retry_num: int | None = None,
                   **kw: Any) -> tuple[Reply, str]:
        envelope = self.event_envelope(event, event_id=event_id)
        headers = {}
        if retry_num is not None:
            headers = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
        body = json.dumps(envelope).encode()
        return self.post(body, "application/json", headers=headers, **kw), envelope["event_id"]

    # ---- slash commands ---------------------------------------------------------------------

    def command_form(self, text: str, *, user: str = USER, channel: str = CHANNEL, command: str = "/vllm") -> dict:
        return {"token": "legacy", "team_id": TEAM_ID, "team_domain": "fake", "channel_id": channel,
                "channel_name": "gpu-help", "user_id": user, "user_name": "human", "command": command, "text": text,
                "api_app_id": "AFAKE", "is_enterprise_install": "false",
                "response_url": self.fake.new_response_url(), "trigger_id": self.fake.new_trigger()}

    def send_command(self, text: str, **kw: Any) -> tuple[Reply, dict]:
        form = self.command_form(text, **{k: v for k, v in kw.items() if k in ("user", "channel", "command")})
        rest = {k: v for k, v in kw.items() if k not in ("user", "channel", "command")}
        return self.post(urlencode(form).encode(), "application/x-www-form-urlencoded", **rest), form

    # ---- interactivity ----------------------------------------------------------------------

    def send_interaction(self, payload: dict, **kw: Any) -> Reply:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kw)

    def click(self, message: dict, action_id: str, *, channel: str = CHANNEL, user: str = USER,
              ephemeral: bool = False, include_message: bool = True) -> tuple[Reply, dict]:
        """Click the button `action_id` in a message the bot posted (as stored by the fake)."""
        button = find_button(message.get("blocks", []), action_id)
        assert button is not None, f"no button {action_id} in {message.get('blocks')}"
        payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": user, "name": "human"},
                   "api_app_id": "AFAKE", "token": "legacy", "trigger_id": self.fake.new_trigger(),
                   "container": {"type": "message", "message_ts": message["ts"], "channel_id": channel,
                                 "is_ephemeral": ephemeral},
                   "channel": {"id": channel}, "response_url": self.fake.new_response_url(),
                   "actions": [{"type": "button", "action_id": button["action_id"], "block_id": button["block_id"],
                                "value": button.get("value"), "action_ts": str(time.time())}]}
        if include_message:
            payload["message"] = message
        return self.send_interaction(payload), payload

    def submit_view(self, view: dict, values: dict, *, user: str = USER) -> Reply:
        """Submit a modal the bot opened (as recorded by the fake) with state `values`."""
        payload = {"type": "view_submission", "team": {"id": TEAM_ID}, "user": {"id": user, "name": "human"},
                   "api_app_id": "AFAKE", "token": "legacy", "trigger_id": self.fake.new_trigger(),
                   "view": {**view, "state": {"values": values}, "team_id": TEAM_ID, "type": "modal"}}
        return self.send_interaction(payload)

    def close_view(self, view: dict, *, user: str = USER) -> Reply:
        payload = {"type": "view_closed", "team": {"id": TEAM_ID}, "user": {"id": user, "name": "human"},
                   "api_app_id": "AFAKE", "token": "legacy", "is_cleared": False,
                   "view": {**view, "state": {"values": {}}, "team_id": TEAM_ID, "type": "modal"}}
        return self.send_interaction(payload)


def find_button(blocks: list[dict], action_id: str) -> dict | None:
    for block in blocks:
        for el in block.get("elements") or []:
            if el.get("type") == "button" and el.get("action_id") == action_id:
                return {**el, "block_id": block.get("block_id")}
    return None
