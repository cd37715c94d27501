"""Paste-to-reply time on loopback: from the signed event POST leaving "Slack" to the bot's
chat.postMessage arriving at the fake Slack, for a 100 KB paste.

    python tests/slack/bench_reply.py [--runs 50] [--kb 100] [--pg SERVER_URL] [--no-pg]

Everything is real except Slack itself: bolt behind waitress, the rule engine, the store, the Web
API client with its retry handlers. The paste is a real fixture log padded with vLLM start-up
noise, and every run is a new message, so nothing is cached between runs but the rule book.

Three bots are timed on the same pastes, one paste each in turn, so that a busy machine slows
them alike:
- floor: the same HTTP path (waitress, the signature check, bolt, the Web API client) with a
  listener that posts a fixed reply at once: what no change to vllm-doctor can take away;
- sqlite: the bot on a fresh SQLite file;
- postgresql: the bot on a fresh database of the PostgreSQL at --pg (default: DATABASE_URL_TEST,
  else postgresql://postgres@127.0.0.1:5432), dropped afterwards.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.slack.conftest import RunningBot, bot_settings, fixture_log, start_bot  # noqa: E402
from tests.slack.fakeslack import FakeSlack, SlackDriver  # noqa: E402

NOISE = "INFO 11-09 12:00:00 [gpu_model_runner.py:1830] Loading weights took 3.21 seconds\n"
TARGET_P95_MS = 150


def paste(kb: int) -> str:
    tail = fixture_log("kv-cache-no-memory")
    return NOISE * max(0, (kb * 1024 - len(tail)) // len(NOISE)) + tail


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_floor(fake: FakeSlack) -> RunningBot:
    """bolt behind the bot's own HTTP server, answering every message with a fixed reply."""
    from slack_bolt import App

    from bot.slack.app import make_client
    from bot.slack.http import make_server

    settings = bot_settings(fake, "sqlite://")
    app = App(client=make_client(settings), signing_secret=settings.signing_secret,
              token_verification_enabled=False, process_before_response=False)

    @app.event("message")
    def reply(event, client):
        client.chat_postMessage(channel=event["channel"], thread_ts=event["ts"], text="ok")

    server = make_server(app, signing_secret=settings.signing_secret, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return RunningBot(app, _NoStore(), server, SlackDriver(f"http://127.0.0.1:{server.effective_port}", fake),
                      settings, thread)


class _NoStore:
    def dispose(self) -> None:
        pass


def fresh_pg_database(server: str | None):
    from sqlalchemy.engine import make_url

    from tests.support.db import fresh_database

    url = None
    if server is not None:
        url = make_url(server).set(drivername="postgresql+psycopg")
        url = url if url.database else url.set(database="postgres")
    return fresh_database(url, prefix="vd_bench")


def time_one(bot: RunningBot, fake: FakeSlack, text: str) -> tuple[float, float]:
    event = bot.driver.message_event(text)
    start = time.monotonic()
    reply, _ = bot.driver.send_event(event)
    assert reply.status == 200, reply.body
    [post] = fake.wait_for(lambda calls: [c for c in calls if c.method == "chat.postMessage"
                                          and c.params.get("thread_ts") == event["ts"]], timeout=30)
    return post.t - start, reply.elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--kb", type=int, default=100)
    parser.add_argument("--pg", metavar="SERVER_URL", help="PostgreSQL server to make the bench database on")
    parser.add_argument("--no-pg", action="store_true", help="time the floor and SQLite only")
    args = parser.parse_args(argv)

    text = "the engine dies on start, log below\n```" + paste(args.kb) + "```"
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake, ExitStack() as stack:
        bots = {"floor": start_floor(fake),
                "sqlite": start_bot(fake, f"sqlite:///{tmp}/bench.db", Path(tmp) / "spool-sqlite.jsonl")}
        if not args.no_pg:
            pg_url = stack.enter_context(fresh_pg_database(args.pg))
            bots["postgresql"] = start_bot(fake, pg_url, Path(tmp) / "spool-pg.jsonl")
        for bot in bots.values():
            stack.callback(bot.close)
            bot.driver.send_event(bot.driver.message_event("hello"))   # bolt's lazy auth.test, not measured
        latencies: dict[str, list[float]] = {name: [] for name in bots}
        acks: dict[str, list[float]] = {name: [] for name in bots}
        for _ in range(args.runs):
            for name, bot in bots.items():
                latency, ack = time_one(bot, fake, text)
                latencies[name].append(latency * 1000)
                acks[name].append(ack * 1000)

    print(f"{args.runs} pastes of {len(text) / 1024:.0f} KB each, paste-to-reply on loopback "
          f"(target: p95 <= {TARGET_P95_MS} ms with PostgreSQL)")
    print(f"{'':12} {'p50':>8} {'p95':>8} {'max':>8} {'mean':>8}   ack p95")
    for name, ms in latencies.items():
        print(f"{name:12} {percentile(ms, 0.5):8.1f} {percentile(ms, 0.95):8.1f} {max(ms):8.1f} "
              f"{statistics.mean(ms):8.1f}   {percentile(acks[name], 0.95):6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
