"""The bot's fixtures (a fake Slack, bots served over loopback, their log) for the server's tests:
slow clients are measured against the real bot answering real events."""

from tests.slack.conftest import botlog, fake, start  # noqa: F401 - fixtures, found by name
