"""Fixtures for the Slack bot tests: a fake Slack on loopback and the bot served over HTTP by
waitress on port 0, talking to each other over real sockets."""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.slack.fakeslack import BOT_TOKEN, CHANNEL, SIGNING_SECRET, FakeSlack, SlackDriver

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


@dataclass
class RunningBot:
    app: Any
    store: Any
    server: Any
    driver: SlackDriver
    settings: Any
    thread: threading.Thread
    replies: Any = None
    closed: bool = field(default=False)

    @property
    def url(self) -> str:
        return self.driver.bot_url

    def close(self) -> None:
        if not self.closed:
            from bot.http.server import stop_server

            self.closed = True
            stop_server(self.server)
            self.thread.join(10)
            # Let listeners still at work finish while the fake Slack is still there.
            self.app.listener_runner.listener_executor.shutdown(wait=True)
            if self.replies is not None:
                self.replies.stop()
            assert not self.thread.is_alive(), "the bot's HTTP server did not stop"
            self.store.dispose()


def bot_settings(fake: FakeSlack, db_url: str, **overrides: Any) -> Any:
    from bot.slack.settings import Settings

    values = dict(bot_token=BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=fake.api_url,
                  channels=frozenset({CHANNEL}), database_url=db_url, file_hosts=(fake.host,))
    values.update(overrides)
    return Settings(**values)


def make_store(db_url: str, spool: Path) -> Any:
    from bot.store import Store

    store = Store.from_env(db_url, spool_path=spool)
    store.upgrade()
    return store


def start_bot(fake: FakeSlack, db_url: str, spool: Path, *, http_limits: dict | None = None,
              **overrides: Any) -> RunningBot:
    from bot.slack.app import build_app, load_book, make_client
    from bot.slack.health import Readiness
    from bot.slack.http import make_server
    from bot.slack.replies import Replies

    settings = bot_settings(fake, db_url, **overrides)
    store = make_store(db_url, spool)
    book = load_book(settings)
    # The outbox's timer runs as in `serve`: what a failed post left is posted from there.
    replies = Replies(make_client(settings), store, retry_s=settings.reply_retry_s).start()
    app = build_app(settings, store=store, book=book, replies=replies)
    server = make_server(app, signing_secret=settings.signing_secret, host="127.0.0.1", port=0, threads=4,
                         ready=Readiness(store, book), **(http_limits or {}))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    driver = SlackDriver(f"http://127.0.0.1:{server.effective_port}", fake)
    return RunningBot(app, store, server, driver, settings, thread, replies)


class LogWatcher(logging.Handler):
    """Collects the bot's log lines so a test can wait for "message C/ts: answered…" with a
    deadline instead of sleeping."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []
        self._cond = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self._cond:
            self.lines.append(record.getMessage())
            self._cond.notify_all()

    def wait(self, pattern: str, count: int = 1, timeout: float = 15.0) -> list[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                hits = [line for line in self.lines if regex.search(line)]
                if len(hits) >= count:
                    return hits
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"log line /{pattern}/ x{count} not seen in {timeout}s; lines: {self.lines}")
                self._cond.wait(left)

    def outcome(self, channel: str, ts: str, timeout: float = 15.0) -> str:
        """What the bot decided about one message (see listeners/messages.py)."""
        line = self.wait(rf"^message {re.escape(channel)}/{re.escape(ts)}: (?!duplicate)", timeout=timeout)[0]
        return line.split(": ", 1)[1]


@pytest.fixture
def botlog():
    watcher = LogWatcher()
    logger = logging.getLogger("bot.slack")
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(watcher)
    yield watcher
    logger.removeHandler(watcher)
    logger.setLevel(old_level)


@pytest.fixture
def fake():
    with FakeSlack() as f:
        yield f


@pytest.fixture
def bot(fake, sqlite_url, tmp_path):
    running = start_bot(fake, sqlite_url, tmp_path / "spool.jsonl")
    yield running
    running.close()


@pytest.fixture
def pg_bot(fake, pg_url, tmp_path):
    """The bot over HTTP on the real PostgreSQL."""
    running = start_bot(fake, pg_url, tmp_path / "spool.jsonl")
    yield running
    running.close()


@pytest.fixture
def start(fake, tmp_path):
    """start(db_url, **settings): bots with settings of the test's own, closed at the end."""
    started: list[RunningBot] = []

    def run(db_url: str, **overrides: Any) -> RunningBot:
        started.append(start_bot(fake, db_url, tmp_path / f"spool-{len(started)}.jsonl", **overrides))
        return started[-1]

    yield run
    for running in started:
        running.close()


@pytest.fixture
def driver(bot) -> SlackDriver:
    return bot.driver


# The real logs these tests paste, named, so adding fixtures to the rule book does not change them.
PASTES = {
    "cuda-oom": "v0.6-ray-worker-sampler-sort.log",
    "kv-cache-no-memory": "seed-0.30-two-llm-code-only.log",
    "max-model-len-too-large": "seed-0.30-pydantic.log",
    "port-in-use": "seed-0.30-uvicorn.log",
}


def fixture_log(rule_id: str) -> str:
    """A real vLLM log from the rule book's fixtures, header lines and all."""
    name = PASTES.get(rule_id)
    path = FIXTURES / rule_id / name if name else sorted((FIXTURES / rule_id).glob("*.log"))[0]
    return path.read_text(encoding="utf-8")
