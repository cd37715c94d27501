"""Listeners, one module per kind of Slack request, each with register(app)."""

from __future__ import annotations

from typing import Any

from bot.slack.listeners import actions, commands, messages, views

KINDS = (messages, commands, actions, views)


def register_all(app: Any) -> None:
    for kind in KINDS:
        kind.register(app)
