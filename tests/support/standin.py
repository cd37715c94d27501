"""A stand-in for the vLLM interpreter (tests/repro/standin_probe.py), for tests that drive the
real worker, plan, runner and queue without starting vLLM: the repro tests and the dashboard's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STANDIN = REPO / "tests" / "repro" / "standin_probe.py"


@pytest.fixture
def standin_python(tmp_path) -> Path:
    """An executable that takes the probe's place for queue tests: it logs each call, sleeps
    $STANDIN_SLEEP seconds and prints a passing probe result line. The worker, plan, runner and
    queue code it is driven by are the real ones; the probe itself is tested with real vLLM."""
    exe = tmp_path / "standin-python"
    exe.write_text(f"#!{sys.executable}\nimport os; os.environ.setdefault('STANDIN_REPO', {str(REPO)!r})\n"
                   + STANDIN.read_text())
    exe.chmod(0o755)
    return exe
