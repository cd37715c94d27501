import json
import os
import time

import pytest

from bot.repro.runner import CappedText, ProbeRunner, ProbeUnavailable, strip_markers


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose: it holds no memory and runs nothing
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def _wait_dead(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_time_limit_kills_the_whole_process_group(standin_python, tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.setenv("STANDIN_SLEEP", "60")
    monkeypatch.setenv("STANDIN_CHILD", "1")
    runner = ProbeRunner(python=str(standin_python), timeout_s=1.5)
    started = time.monotonic()
    probe = runner.run("/models/x", {"enforce_eager": True})
    assert probe.timed_out and not probe.records
    assert time.monotonic() - started < 10
    assert "time limit" in probe.output
    call = json.loads(log.read_text().splitlines()[0])
    assert _wait_dead(call["pid"]) and _wait_dead(call["child"]), "the probe or its engine child outlived the limit"


def test_cancel_stops_the_probe(standin_python, tmp_path, monkeypatch):
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("STANDIN_SLEEP", "60")
    deadline = time.monotonic() + 1.0
    runner = ProbeRunner(python=str(standin_python), should_stop=lambda: time.monotonic() > deadline)
    probe = runner.run("/models/x", {})
    assert probe.cancelled and not probe.timed_out
    assert probe.seconds < 10


def test_result_line_and_output_are_kept(standin_python, tmp_path, monkeypatch):
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    runner = ProbeRunner(python=str(standin_python), env={"CUDA_VISIBLE_DEVICES": "3"})
    probe = runner.run("/models/x", {"max_num_seqs": 4})
    assert probe.returncode == 0
    assert probe.records[0]["ok"] is True and probe.records[0]["settings"] == {"max_num_seqs": 4}
    assert "stand-in probe starting" in strip_markers(probe.output)
    assert "@@vllm-doctor-probe@@" not in strip_markers(probe.output)
    call = json.loads((tmp_path / "calls.jsonl").read_text())
    assert call["cuda"] == "3" and call["mode"] == "run"


def test_missing_interpreter_is_unavailable_not_a_failure(tmp_path):
    with pytest.raises(ProbeUnavailable, match="cannot start"):
        ProbeRunner(python=str(tmp_path / "no-such-python")).run("/models/x", {})


def test_capped_text_keeps_head_and_tail():
    cap = CappedText(head=10, tail=20)
    for i in range(100):
        cap.add(f"line {i:03d}\n".encode())
    text = cap.text()
    assert text.startswith("line 000\nl")
    assert text.endswith("line 099\n")
    assert "bytes of output left out" in text
    assert len(text) < 200


def test_a_hung_exit_after_the_answer_is_not_a_timeout(standin_python, tmp_path, monkeypatch):
    from bot.repro import runner as runner_module

    monkeypatch.setattr(runner_module, "EXIT_GRACE_S", 0.5)
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("STANDIN_LINGER", "60")
    probe = ProbeRunner(python=str(standin_python), timeout_s=30).run("/models/x", {})
    assert probe.records[0]["ok"] is True and not probe.timed_out
    assert probe.seconds < 10
