"""`vllm-doctor serve` as a real process: it refuses to start without what its mode needs, and
in HTTP mode serves /healthz and /slack/events until SIGTERM."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.slack.cli import main
from tests.slack.conftest import fixture_log, make_store
from tests.slack.fakeslack import BOT_TOKEN, CHANNEL, SIGNING_SECRET, SlackDriver

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env, args, message", [
    ({}, [], "SLACK_BOT_TOKEN is not set"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, [], "Socket Mode needs SLACK_APP_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, ["--http"], "--http needs SLACK_SIGNING_SECRET"),
])
def test_serve_refuses_to_start_without_its_tokens(monkeypatch, capsys, env, args, message):
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def lines_of(stream) -> "queue.Queue[str]":
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def wait_for_line(lines: "queue.Queue[str]", pattern: str, timeout: float = 30.0) -> re.Match:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"/{pattern}/ not printed in {timeout}s; got: {''.join(seen)}")


@pytest.mark.timeout(90)
def test_serve_http_answers_a_paste_and_stops_on_sigterm(fake, sqlite_url, tmp_path):
    make_store(sqlite_url, tmp_path / "spool.jsonl").dispose()  # `vllm-doctor db upgrade`, as deployed
    env = {**os.environ, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
           "SLACK_API_URL": fake.api_url, "SLACK_FILE_HOSTS": fake.host, "GPU_HELP_CHANNELS": CHANNEL,
           "DATABASE_URL": sqlite_url, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "bot.slack.cli", "--http", "--host", "127.0.0.1", "--port", "0"],
                            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        lines = lines_of(proc.stderr)
        port = wait_for_line(lines, r"listening on http://127\.0\.0\.1:(\d+)/slack/events").group(1)
        driver = SlackDriver(f"http://127.0.0.1:{port}", fake)
        assert driver.get("/healthz").status == 200
        event = driver.message_event(fixture_log("kv-cache-no-memory"))
        reply, _ = driver.send_event(event)
        assert reply.status == 200
        [post] = fake.wait_calls("chat.postMessage", timeout=30)
        assert post.params["thread_ts"] == event["ts"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        wait_for_line(lines, "stopping")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
