"""A fake Slack for tests: the Web API (webapi), a Socket Mode WebSocket end (socketmode) and a
driver that sends signed events, commands and interactions to the bot (driver)."""

from .driver import CHANNEL, SIGNING_SECRET, USER, SlackDriver
from .socketmode import FakeSocketMode
from .webapi import APP_TOKEN, BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID, FakeSlack

__all__ = ["APP_TOKEN", "BOT_ID", "BOT_TOKEN", "BOT_USER_ID", "CHANNEL", "SIGNING_SECRET", "TEAM_ID", "USER",
           "FakeSlack", "FakeSocketMode", "SlackDriver"]
