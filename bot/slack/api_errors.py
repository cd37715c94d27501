"""Short, user-presentable names for what went wrong in a Slack API call."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError


def api_error(err: BaseException) -> str:
    """Slack's error code ("expired_trigger_id") for an API error, else the exception's class name."""
    if isinstance(err, SlackApiError):
        try:
            return str(err.response.get("error") or err.response.status_code)
        except Exception:  # noqa: BLE001 - a malformed response still needs a name
            pass
    return type(err).__name__
