"""Paste-to-reply time on loopback: from the signed event POST leaving "Slack" to the bot's
chat.postMessage arriving at the fake Slack, for a 100 KB paste.

    python tests/slack/bench_reply.py [--runs 50] [--kb 100] [--db postgresql://...]

Everything is real except Slack itself: bolt behind waitress, the rule engine, the store (SQLite in
a temporary directory unless --db is given; a fresh database is migrated there), the Web API
client with its retry handlers. The paste is a real fixture log padded with vLLM start-up noise,
and every run is a new message, so nothing is cached between runs but the rule book.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.slack.conftest import fixture_log, start_bot  # noqa: E402
from tests.slack.fakeslack import FakeSlack  # noqa: E402

NOISE = "INFO 11-09 12:00:00 [gpu_model_runner.py:1830] Loading weights took 3.21 seconds\n"


def paste(kb: int) -> str:
    tail = fixture_log("kv-cache-no-memory")
    return NOISE * max(0, (kb * 1024 - len(tail)) // len(NOISE)) + tail


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--kb", type=int, default=100)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args(argv)

    text = "the engine dies on start, log below\n```" + paste(args.kb) + "```"
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        db_url = args.db or f"sqlite:///{tmp}/bench.db"
        bot = start_bot(fake, db_url, Path(tmp) / "spool.jsonl")
        try:
            bot.driver.send_command("help")  # first request: bolt's lazy auth.test, not measured
            latencies, acks = [], []
            for _ in range(args.runs):
                event = bot.driver.message_event(text)
                start = time.monotonic()
                reply, _ = bot.driver.send_event(event)
                assert reply.status == 200, reply.body
                acks.append(reply.elapsed)
                [post] = fake.wait_for(lambda calls: [c for c in calls if c.method == "chat.postMessage"
                                                      and c.params.get("thread_ts") == event["ts"]], timeout=30)
                latencies.append(post.t - start)
        finally:
            bot.close()

    ms = [x * 1000 for x in latencies]
    print(f"{args.runs} pastes of {len(text) / 1024:.0f} KB, database {db_url.split(':', 1)[0]}")
    print(f"paste-to-reply: p50 {percentile(ms, 0.50):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
          f"max {max(ms):.1f} ms, mean {statistics.mean(ms):.1f} ms")
    print(f"event ack:      p50 {percentile(acks, 0.50) * 1000:.1f} ms, p95 {percentile(acks, 0.95) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
