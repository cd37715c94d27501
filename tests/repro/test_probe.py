import json
import subprocess
import sys

import pytest

from bot.repro.probe import MARKER
from bot.repro.runner import BOOTSTRAP, PROBE_PATH


def _records(stdout: str) -> list[dict]:
    return [json.loads(line[len(MARKER):]) for line in stdout.splitlines() if line.startswith(MARKER)]


def test_usage_errors_exit_2_without_importing_vllm():
    for argv in ([], ["explode", "/m", "{}"], ["run", "/m", "[1]"], ["run", "/m", "{}", "{}"]):
        out = subprocess.run([sys.executable, str(PROBE_PATH), *argv], capture_output=True, text=True, timeout=30)
        assert out.returncode == 2, argv
        assert "usage" in out.stderr or "one configuration per process" in out.stderr


@pytest.mark.vllm
def test_preflight_checks_each_configuration_and_stops_at_the_first_failure(vllm_python, tiny_model):
    argv = [vllm_python, "-u", "-c", BOOTSTRAP, str(PROBE_PATH), "preflight", str(tiny_model),
            "{}", '{"max_model_len": 4096}', '{"dtype": "float32"}']
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    records = _records(out.stdout)
    assert out.returncode == 1
    assert [r.get("event") for r in records] == ["begin", None, "begin", None]    # the third never ran
    first, second = records[1], records[3]
    assert first["ok"] is True and first["env"]["vllm"] and first["env"]["platform"] == "cpu"
    assert second["ok"] is False and second["error_type"] == "ValidationError"
    assert "User-specified max_model_len (4096)" in second["error"]
    assert "Traceback (most recent call last)" in out.stderr                       # kept for the diagnosis
