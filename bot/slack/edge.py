"""What reaches bolt over HTTP: signed, well-formed Slack requests only.

bolt parses a body before it checks the signature, so junk from a stranger used to be a 500 with a
traceback, and its verification logger wrote the whole body of every rejected request at INFO (a
forged 5 MB request is 5 MB of log; a stale request's token sits in it in plain text). Here the
signature is checked first, on the raw bytes, then the shape bolt relies on; a rejection is one
short log line with no body in it. The HMAC is computed here on the bytes as received
(slack_sdk's verifier decodes them first, and fails on a body that is not UTF-8).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from typing import Any
from urllib.parse import parse_qs

log = logging.getLogger(__name__)

# Slack's own rule: a request older than five minutes may be a replay.
MAX_AGE_S = 5 * 60
FORM = "application/x-www-form-urlencoded"


class Rejected(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def read_body(environ: dict) -> bytes:
    stream = environ["wsgi.input"]
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise Rejected(400, "bad Content-Length") from None
    return stream.read(length) if length > 0 else b""


def is_ssl_check(environ: dict, body: bytes) -> bool:
    """Slack's periodic certificate check of a slash command URL: bolt answers it unsigned too."""
    return _content_type(environ) == FORM and parse_qs(body.decode("latin-1")).get("ssl_check") == ["1"]


def screen(environ: dict, body: bytes, secret: bytes) -> None:
    """Raise Rejected unless `body` is a signed, fresh Slack request of a shape bolt can take."""
    timestamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP", "")
    signature = environ.get("HTTP_X_SLACK_SIGNATURE", "")
    if not timestamp.isdigit() or not signature:
        raise Rejected(401, "no Slack signature")
    if abs(time.time() - int(timestamp)) > MAX_AGE_S:
        raise Rejected(401, "stale request timestamp")
    expected = "v0=" + hmac.new(secret, b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")):
        raise Rejected(401, "invalid signature")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected(400, "body is not UTF-8") from None
    kind = _content_type(environ)
    if kind == "application/json":
        _check_envelope(_json_object(text, "body"))
    elif kind == FORM:
        _check_form(parse_qs(text))
    else:
        raise Rejected(400, f"unexpected Content-Type {kind[:60]!r}")


def _content_type(environ: dict) -> str:
    return environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()


def _json_object(text: str, what: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        raise Rejected(400, f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise Rejected(400, f"{what} is JSON but not an object")
    return value


def _check_envelope(envelope: dict[str, Any]) -> None:
    if envelope.get("type") == "event_callback" and not isinstance(envelope.get("event"), dict):
        raise Rejected(400, "event_callback without an event object")


def _check_form(form: dict[str, list[str]]) -> None:
    if "payload" in form:
        _check_payload(_json_object(form["payload"][0], "payload"))
    elif "command" not in form:
        raise Rejected(400, "form with neither a command nor a payload")


def _check_payload(payload: dict[str, Any]) -> None:
    """What bolt's matchers and the listeners index without looking: a signed `actions: [{}]` used
    to fail inside bolt's middleware, a 500 and an ERROR line."""
    kind = payload.get("type")
    if not isinstance(kind, str):
        raise Rejected(400, "payload without a type")
    user = payload.get("user")
    if kind in ("block_actions", "view_submission", "view_closed") and not _has_str(user, "id"):
        raise Rejected(400, f"{kind[:40]} without a user id")
    if kind == "block_actions":
        actions = payload.get("actions")
        if not isinstance(actions, list) or not actions or not all(_has_str(a, "action_id") for a in actions):
            raise Rejected(400, "block_actions whose actions are not objects with an action_id")
    elif kind in ("view_submission", "view_closed"):
        if not _has_str(payload.get("view"), "callback_id"):
            raise Rejected(400, f"{kind} without a view that has a callback_id")
    elif kind in ("shortcut", "message_action") and not isinstance(payload.get("callback_id"), str):
        raise Rejected(400, f"{kind} without a callback_id")


def _has_str(value: Any, key: str) -> bool:
    return isinstance(value, dict) and isinstance(value.get(key), str)


def reject(start_response: Any, environ: dict, rejected: Rejected) -> list[bytes]:
    log.info("rejected %s %s from %s: %s (%d)", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"),
             environ.get("REMOTE_ADDR", "?"), rejected.reason, rejected.status)
    body = json.dumps({"error": rejected.reason}).encode()
    status = "401 Unauthorized" if rejected.status == 401 else "400 Bad Request"
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
