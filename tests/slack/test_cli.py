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


def wait_for_line(lines: "queue.Queue[str]", pattern: str, timeout: float = 30.0,
                  seen: list[str] | None = None) -> re.Match:
    deadline = time.monotonic() + timeout
    seen = [] if seen is None else seen
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
        started: list[str] = []
        port = wait_for_line(lines, r"listening on http://127\.0\.0\.1:(\d+)/slack/events", seen=started).group(1)
        # The start says what it serves, and nothing an operator cannot act on: not bolt's "`token`
        # will be unused" (the token is our client's), not Alembic's per-connection INFO lines.
        assert not [line for line in started if "will be unused" in line or "alembic" in line
                    or "Context impl" in line or "WARNING" in line], started
        assert len(started) <= 4, started
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


def serve_env(fake, db_url: str, tmp_path, **extra: str) -> dict:
    return {**os.environ, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": fake.api_url, "SLACK_FILE_HOSTS": fake.host, "GPU_HELP_CHANNELS": CHANNEL,
            "DATABASE_URL": db_url, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(ROOT), **extra}


class Serving:
    """`vllm-doctor serve --http` as a real process on a free port."""

    def __init__(self, env: dict, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "bot.slack.cli", "--http", "--host", "127.0.0.1",
                                      "--port", "0", *args], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        self.lines = lines_of(self.proc.stderr)
        self.log: list[str] = []

    def wait(self, pattern: str, timeout: float = 30.0) -> re.Match:
        return wait_for_line(self.lines, pattern, timeout, seen=self.log)

    def __enter__(self) -> "Serving":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:      # what it printed on the way out
            try:
                self.log.append(self.lines.get(timeout=0.2))
            except queue.Empty:
                break


@pytest.mark.postgres
@pytest.mark.timeout(90)
def test_serve_refuses_an_unmigrated_database_in_one_line_and_migrates_when_asked(fake, pg_url, tmp_path):
    env = serve_env(fake, pg_url, tmp_path)
    refused = subprocess.run([sys.executable, "-m", "bot.slack.cli", "--http", "--port", "0"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    [line] = refused.stderr.splitlines()
    assert "vllm-doctor db upgrade" in line and "not at the newest migration" in line
    with Serving(env, "--migrate") as bot:
        bot.wait(r"upgraded from an empty database to")
        port = bot.wait(r"listening on http://127\.0\.0\.1:(\d+)/slack/events").group(1)
        ready = SlackDriver(f"http://127.0.0.1:{port}", fake).get("/readyz")
        assert ready.status == 200 and ready.json()["ready"] is True


@pytest.mark.postgres
@pytest.mark.timeout(120)
def test_an_outage_answers_once_spools_and_the_timer_writes_it_back(fake, pg_relay, pg_url, tmp_path):
    from sqlalchemy import create_engine, func, select, text

    from bot.store.models import Diagnosis

    url, relay = pg_relay
    make_store(pg_url, tmp_path / "unused.jsonl").dispose()
    env = serve_env(fake, url, tmp_path, SPOOL_FLUSH_SECONDS="0.5", REPRO_POLL_SECONDS="0.2")
    with Serving(env) as bot:
        port = bot.wait(r"listening on http://127\.0\.0\.1:(\d+)/").group(1)
        driver = SlackDriver(f"http://127.0.0.1:{port}", fake)
        relay.cut()
        event = driver.message_event(fixture_log("kv-cache-no-memory"))
        reply, event_id = driver.send_event(event)
        assert reply.status == 200
        bot.wait(r"diagnosis record spooled")
        bot.wait(rf"message {CHANNEL}/{re.escape(event['ts'])}: answered")
        for retry in (1, 2):       # Slack did not see the ack in time and retries, the database still down
            assert driver.send_event(event, event_id=event_id, retry_num=retry)[0].status == 200
            bot.wait(rf"message {CHANNEL}/{re.escape(event['ts'])}: duplicate delivery")
        assert len([c for c in fake.ok_calls("chat.postMessage") if c.params.get("thread_ts") == event["ts"]]) == 1
        relay.restore()
        # The diagnosis, the claim (so another replica sees the message as answered) and the reply.
        bot.wait(r"wrote 3 spooled record", timeout=30)
        engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
        try:
            with engine.connect() as conn:
                assert conn.scalar(select(func.count()).select_from(Diagnosis)) == 1
                assert conn.scalar(text("select top_rule_id from diagnoses")) == "kv-cache-no-memory"
        finally:
            engine.dispose()
    log = "".join(bot.log)
    assert "Traceback" not in log
    assert len(re.findall(r"posting finished repro jobs failed", log)) == 1     # one line per outage, not per round


@pytest.mark.postgres
@pytest.mark.timeout(90)
def test_records_spooled_by_an_earlier_run_are_written_at_startup(fake, pg_url, tmp_path):
    from sqlalchemy import select

    from bot.diagnose import diagnose
    from bot.store import Store
    from bot.store.models import Diagnosis
    from bot.store.records import diagnosis_record

    store = make_store(pg_url, tmp_path / "unused.jsonl")
    # What a `vllm-doctor diagnose --record` left in the spool while this database was down.
    spool = Store(pg_url, spool_path=tmp_path / "data" / "vllm-doctor" / "spool.jsonl").spool
    spool.append("diagnosis", diagnosis_record(diagnose(fixture_log("cuda-oom")), source="cli",
                                               text=fixture_log("cuda-oom")))
    try:
        with Serving(serve_env(fake, pg_url, tmp_path)) as bot:
            bot.wait(r"wrote 1 spooled record")
        with store.session() as session:
            assert list(session.scalars(select(Diagnosis.top_rule_id))) == ["cuda-oom"]
    finally:
        store.dispose()


@pytest.mark.timeout(90)
def test_the_bot_watches_for_vllm_releases_and_says_once_that_pypi_fails(fake, sqlite_url, tmp_path):
    from tests.watch.fakepypi import FakePyPI
    make_store(sqlite_url, tmp_path / "spool.jsonl").dispose()
    with FakePyPI({}, fail=503) as pypi:
        env = serve_env(fake, sqlite_url, tmp_path, INDEX_WATCH_HOURS="24", VLLM_DOCTOR_PYPI_URL=pypi.url)
        with Serving(env) as bot:
            bot.wait(r"listening on http://")
            bot.wait(r"updating the index of vLLM's releases failed \(.*503.*the index is unchanged\); "
                     r"retrying every 3600s", timeout=60)
    assert pypi.requests == ["/simple/vllm/"]
    assert not any("Traceback" in line for line in bot.log)


@pytest.mark.postgres
@pytest.mark.timeout(120)
def test_sigterm_writes_what_was_spooled_once_the_database_is_back(fake, pg_relay, pg_url, tmp_path):
    from sqlalchemy import create_engine, func, select

    from bot.store.models import Diagnosis

    url, relay = pg_relay
    make_store(pg_url, tmp_path / "unused.jsonl").dispose()
    # No timer round before the stop: only the stop itself can write the spool.
    env = serve_env(fake, url, tmp_path, SPOOL_FLUSH_SECONDS="3600")
    with Serving(env) as bot:
        port = bot.wait(r"listening on http://127\.0\.0\.1:(\d+)/").group(1)
        driver = SlackDriver(f"http://127.0.0.1:{port}", fake)
        relay.cut()
        event = driver.message_event(fixture_log("kv-cache-no-memory"))
        assert driver.send_event(event)[0].status == 200
        bot.wait(rf"message {CHANNEL}/{re.escape(event['ts'])}: answered")
        relay.restore()
        bot.proc.send_signal(signal.SIGTERM)
        assert bot.proc.wait(timeout=60) == 0
    assert "wrote 3 spooled record" in "".join(bot.log)          # the diagnosis, the claim, the reply
    engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(Diagnosis)) == 1
    finally:
        engine.dispose()
    assert not (tmp_path / "data" / "vllm-doctor" / "spool.jsonl").exists()


@pytest.mark.postgres
@pytest.mark.timeout(90)
def test_records_spooled_for_another_database_stay_in_the_spool(fake, pg_url, sqlite_url, tmp_path):
    from sqlalchemy import select

    from bot.diagnose import diagnose
    from bot.store import Store
    from bot.store.models import Diagnosis
    from bot.store.records import diagnosis_record

    # Left by a run against PostgreSQL; this start, from the same data directory, uses SQLite.
    spool_path = tmp_path / "data" / "vllm-doctor" / "spool.jsonl"
    Store(pg_url, spool_path=spool_path).spool.append(
        "diagnosis", diagnosis_record(diagnose(fixture_log("cuda-oom")), source="cli", text=fixture_log("cuda-oom")))
    sqlite = make_store(sqlite_url, tmp_path / "unused.jsonl")
    with Serving(serve_env(fake, sqlite_url, tmp_path)) as bot:
        bot.wait(r"listening on http://127\.0\.0\.1:(\d+)/")
        bot.proc.send_signal(signal.SIGTERM)                 # the start's flush and the stop's have both run
        assert bot.proc.wait(timeout=60) == 0
    try:
        with sqlite.session() as session:
            assert list(session.scalars(select(Diagnosis))) == []
        assert Store(pg_url, spool_path=spool_path).spool.mine() == 1
        assert "spooled record" not in "".join(bot.log)
    finally:
        sqlite.dispose()
