"""`vllm-doctor dashboard` as a real process: it starts quietly, serves, and stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.slack.conftest import make_store
from tests.slack.test_cli import lines_of, wait_for_line

from .page import Browser

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(90)


def test_the_dashboard_starts_in_one_line_and_stops_on_sigterm(sqlite_url, tmp_path):
    make_store(sqlite_url, tmp_path / "spool.jsonl").dispose()
    env = {**os.environ, "DATABASE_URL": sqlite_url, "PYTHONPATH": str(ROOT), "SLACK_CLIENT_ID": ""}
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "dashboard", "--port", "0"], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        started: list[str] = []
        lines = lines_of(proc.stderr)
        url = wait_for_line(lines, r"dashboard on (http://127\.0\.0\.1:\d+/dashboard/)", seen=started).group(1)
        # Alembic's "Context impl SQLiteImpl." / "Will assume non-transactional DDL." lines are gone.
        assert len(started) == 1, started
        assert Browser().get(url).status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
