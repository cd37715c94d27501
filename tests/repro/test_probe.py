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


@pytest.mark.vllm
def test_a_session_answers_every_check_in_one_process_with_one_import(vllm_python, tiny_model):
    from bot.repro.runner import ProbeRunner

    with ProbeRunner(python=vllm_python).session(str(tiny_model)) as session:
        first = session.check([{"max_model_len": 4096}, {}, {"dtype": "float32"}], search=True)
        pid = session.proc.pid
        second = session.check([{"max_model_len": 2048}])
        assert session.proc.pid == pid                       # the same process answered both
    assert first.returncode == 1 and [r["ok"] for r in first.records] == [False, True, True]
    assert "User-specified max_model_len (4096)" in first.records[0]["error"]
    assert "Traceback (most recent call last)" in first.section(0)      # kept for the diagnosis
    assert first.records[0]["import_s"] > 0 and first.records[0]["env"]["platform"] == "cpu"
    assert second.returncode == 0 and second.records[0]["ok"] is True
    assert second.records[0]["import_s"] == 0                # vLLM was imported once, by the first
    assert second.seconds < first.seconds


def test_session_usage_errors_and_a_dead_interpreter_are_answered(tmp_path):
    from bot.repro.runner import ProbeRunner, ProbeUnavailable

    bad = subprocess.run([sys.executable, str(PROBE_PATH), "session", "/m"], input="[1]\n", capture_output=True,
                         text=True, timeout=30)
    assert bad.returncode == 2 and "bad session command" in bad.stderr
    with pytest.raises(ProbeUnavailable):
        ProbeRunner(python=str(tmp_path / "no-python")).session("/m").check([{}])
    # an interpreter that exits at once: the check ends with its status, not a hang
    session = ProbeRunner(python="/bin/false").session("/m")
    run = session.check([{}])
    assert run.returncode == 1 and not run.records
    session.close()
