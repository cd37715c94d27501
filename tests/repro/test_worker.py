"""Worker processes against the real databases, with a stand-in for the vLLM interpreter.

The workers, their plans, probe runners, leases and claims are the real code; only the program
they start for each probe step is a stand-in that sleeps and answers "ok" (see conftest). The
probe itself is tested with real vLLM in test_plan.py / test_cli.py.
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.repro import queue
from bot.store import Store
from tests.support.waiting import wait_until as _wait

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def models(tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    return root


def _store(url, tmp_path):
    store = Store.from_env(url, spool_path=tmp_path / "spool.jsonl")
    store.upgrade()
    return store


def _jobs(store, models, n, **kw):
    ids = []
    for i in range(n):
        (models / f"m{i}").mkdir(exist_ok=True)
        ids.append(queue.enqueue(store, str(models / f"m{i}"), kw.get("settings", {}), requested_by=f"U{i}",
                                 roots=[str(models)], channel="C1", thread_ts=f"{i}.0"))
    return ids


def _worker(url, standin, models, log, name, *, sleep="0.2", lease="30", gpus="0", once=True, extra_env=None):
    env = {**os.environ, "STANDIN_LOG": str(log), "STANDIN_SLEEP": sleep, "STANDIN_WORKER": name,
           "MODEL_ROOTS": str(models), **(extra_env or {})}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    argv = [sys.executable, "-m", "bot.repro.cli", "worker", "--db", url, "--python", str(standin),
            "--lease", lease, "--poll", "0.2", "--gpus", gpus, "--name", name]
    if once:
        argv.append("--once")
    return subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _finish(procs, seconds=90):
    outputs = []
    for p in procs:
        out, _ = p.communicate(timeout=seconds)
        outputs.append(out)
        assert p.returncode == 0, out[-3000:]
    return outputs


@pytest.mark.postgres
def test_many_workers_many_jobs_each_run_exactly_once(pg_url, tmp_path, models, standin_python):
    store = _store(pg_url, tmp_path)
    try:
        ids = _jobs(store, models, 16)
        log = tmp_path / "calls.jsonl"
        procs = [_worker(pg_url, standin_python, models, log, f"w{i}", gpus="0,1") for i in range(3)]
        _finish(procs)
        jobs = [queue.get_job(store, i) for i in ids]
        assert all(j["status"] == "done" and j["attempts"] == 1 for j in jobs), [j["status"] for j in jobs]
        assert all(j["result"]["verdict"] == "ok" for j in jobs)
        # every job: one preflight and one bare start, by exactly one worker slot
        calls = Counter((c["model"], c["mode"]) for c in _calls(log))
        assert calls == Counter({(j["model_path"], mode): 1 for j in jobs for mode in ("preflight", "run")})
        assert all([s["kind"] for s in j["steps"]] == ["preflight", "bare"] for j in jobs)
        by_worker = Counter(j["claimed_by"].split("/")[0] for j in jobs)
        assert len(by_worker) >= 2, f"one worker took everything: {by_worker}"
        # each slot's probe saw its own GPU
        assert {c["cuda"] for c in _calls(log)} <= {"0", "1"}
    finally:
        store.dispose()


@pytest.mark.postgres
def test_killed_worker_job_is_finished_by_another(pg_url, tmp_path, models, standin_python):
    store = _store(pg_url, tmp_path)
    try:
        [job_id] = _jobs(store, models, 1)
        log = tmp_path / "calls.jsonl"
        doomed = _worker(pg_url, standin_python, models, log, "doomed", sleep="120", lease="2", once=False)
        _wait(lambda: _calls(log), 30, "the doomed worker's probe to start")
        probe_pid = _calls(log)[0]["pid"]
        assert queue.get_job(store, job_id)["claimed_by"].startswith("doomed/")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(10)
        # The probe dies with its worker (PR_SET_PDEATHSIG): it must not hold the GPU.
        _wait(lambda: not _running(probe_pid), 10, "the orphaned probe to die")
        rescuer = _worker(pg_url, standin_python, models, log, "rescuer", lease="2")
        _finish([rescuer])
        job = queue.get_job(store, job_id)
        assert job["status"] == "done" and job["attempts"] == 2
        assert job["claimed_by"].startswith("rescuer/")
        assert job["result"]["verdict"] == "ok"
        assert [s["kind"] for s in job["steps"]] == ["preflight", "bare"]    # the new attempt's steps only
        assert [c["worker"] for c in _calls(log)].count("rescuer") == 2
    finally:
        store.dispose()


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_sqlite_one_host_two_slots(sqlite_url, tmp_path, models, standin_python):
    store = _store(sqlite_url, tmp_path)
    try:
        ids = _jobs(store, models, 6, settings={"max_num_seqs": 4})
        log = tmp_path / "calls.jsonl"
        _finish([_worker(sqlite_url, standin_python, models, log, "solo", gpus="0,1")])
        jobs = [queue.get_job(store, i) for i in ids]
        assert [j["status"] for j in jobs] == ["done"] * 6
        # preflight, bare, + max_num_seqs: k settings, k + 1 engine starts
        assert all(j["result"]["engine_starts"] == 2 for j in jobs)
        assert all([s["kind"] for s in j["steps"]] == ["preflight", "bare", "add"] for j in jobs)
        assert Counter(c["mode"] for c in _calls(log)) == {"preflight": 6, "run": 12}
        assert {j["claimed_by"] for j in jobs} == {"solo/slot0", "solo/slot1"}
    finally:
        store.dispose()


def test_one_gpu_jobs_run_side_by_side_and_a_two_gpu_job_waits_for_both(sqlite_url, tmp_path, models, standin_python):
    """`worker --gpus 0,1`: two one-GPU jobs at the same time, each on its own GPU; a
    tensor_parallel_size=2 job gets both, and only once neither is running anything."""
    store = _store(sqlite_url, tmp_path)
    try:
        one_a, one_b = _jobs(store, models, 2)
        (models / "tp2").mkdir()
        tp2 = queue.enqueue(store, str(models / "tp2"), {"tensor_parallel_size": 2}, requested_by="U9",
                            roots=[str(models)], channel="C1", thread_ts="9.0")
        log = tmp_path / "calls.jsonl"
        _finish([_worker(sqlite_url, standin_python, models, log, "pool", gpus="0,1", sleep="1.5")])
        assert [queue.get_job(store, i)["status"] for i in (one_a, one_b, tp2)] == ["done"] * 3
        runs = [c for c in _calls(log) if c["mode"] == "run"]
        by_model = {m: [c for c in runs if c["model"].endswith(m)] for m in ("m0", "m1", "tp2")}
        assert {c["cuda"] for c in by_model["m0"]} | {c["cuda"] for c in by_model["m1"]} == {"0", "1"}
        assert {c["cuda"] for c in by_model["tp2"]} == {"0,1"}
        spans = {m: (min(c["start"] for c in cs), max(c["start"] for c in cs) + 1.5) for m, cs in by_model.items()}
        overlap = lambda a, b: a[0] < b[1] and b[0] < a[1]       # noqa: E731
        assert overlap(spans["m0"], spans["m1"]), spans            # side by side
        assert not overlap(spans["tp2"], spans["m0"]) and not overlap(spans["tp2"], spans["m1"]), spans
    finally:
        store.dispose()


def test_cancel_a_running_job(sqlite_url, tmp_path, models, standin_python):
    store = _store(sqlite_url, tmp_path)
    try:
        [job_id] = _jobs(store, models, 1)
        log = tmp_path / "calls.jsonl"
        worker = _worker(sqlite_url, standin_python, models, log, "w", sleep="120", lease="1.5")
        _wait(lambda: _calls(log), 30, "the probe to start")
        started = time.monotonic()
        assert queue.cancel(store, job_id, "U0") == "cancelling"
        _finish([worker], seconds=30)
        assert time.monotonic() - started < 15
        job = queue.get_job(store, job_id)
        assert job["status"] == "cancelled" and job["result"]["verdict"] == "cancelled"
        assert not _running(_calls(log)[0]["pid"])
        assert len(_calls(log)) == 1                      # nothing ran after the cancel
    finally:
        store.dispose()


def test_worker_refuses_a_job_outside_its_roots(sqlite_url, tmp_path, models, standin_python):
    store = _store(sqlite_url, tmp_path)
    try:
        [job_id] = _jobs(store, models, 1)
        elsewhere = tmp_path / "other-root"
        elsewhere.mkdir()
        log = tmp_path / "calls.jsonl"
        _finish([_worker(sqlite_url, standin_python, models, log, "w", extra_env={"MODEL_ROOTS": str(elsewhere)})])
        job = queue.get_job(store, job_id)
        assert job["status"] == "failed" and "outside the model roots" in job["error"]
        assert _calls(log) == []
    finally:
        store.dispose()


def test_failing_job_records_culprit_diagnosis_and_capped_fix(sqlite_url, tmp_path, models, standin_python):
    """A job whose third step fails: the worker stores the culprit, the diagnosis (linked to the
    diagnoses table), the fix run, and the result renders for the thread."""
    store = _store(sqlite_url, tmp_path)
    try:
        [job_id] = _jobs(store, models, 1, settings={"dtype": "half", "gpu_memory_utilization": 0.01,
                                                     "max_num_seqs": 4})
        log = tmp_path / "calls.jsonl"
        error = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                 "when initializing the engine.")
        _finish([_worker(sqlite_url, standin_python, models, log, "w", extra_env={
            "STANDIN_FAIL": '{"gpu_memory_utilization": 0.01}', "STANDIN_ERROR": error,
            "REPRO_GPU_MEMORY_UTILIZATION": "0.2", "REPRO_MAX_GPU_MEMORY_UTILIZATION": "0.3"})])
        job = queue.get_job(store, job_id)
        result = job["result"]
        assert job["status"] == "done" and result["verdict"] == "fails"
        assert result["culprit"] == {"key": "gpu_memory_utilization", "value": 0.01}
        assert result["diagnosis"]["rule_id"] == "kv-cache-no-memory"
        # the rule says 0.9; this worker allows 0.3, and says so
        assert result["fix_settings"] == {"gpu_memory_utilization": 0.3} and result["fix_confirmed"] is True
        assert any("at most 0.3" in n for n in result["notes"])
        assert [s["kind"] for s in job["steps"]] == ["preflight", "bare", "add", "add", "fix"]
        assert [s["rule_id"] for s in job["steps"]][3] == "kv-cache-no-memory"
        # bare, + dtype, + gpu_memory_utilization, the fix; never max_num_seqs
        assert Counter(c["mode"] for c in _calls(log))["run"] == 4
        assert job["diagnosis_id"] is not None
        from bot.store.models import Diagnosis
        with store.session() as s:
            row = s.get(Diagnosis, job["diagnosis_id"])
            assert row.source == "repro" and row.top_rule_id == "kv-cache-no-memory"
        text = queue.render_result_markdown(result)
        assert "gpu_memory_utilization=0.01" in text and "kv-cache-no-memory" in text and "it cures it" in text
    finally:
        store.dispose()


def test_sigterm_hands_the_running_job_back(sqlite_url, tmp_path, models, standin_python):
    store = _store(sqlite_url, tmp_path)
    try:
        [job_id] = _jobs(store, models, 1)
        log = tmp_path / "calls.jsonl"
        worker = _worker(sqlite_url, standin_python, models, log, "w", sleep="120", once=False)
        _wait(lambda: _calls(log), 30, "the probe to start")
        worker.send_signal(signal.SIGTERM)
        _finish([worker], seconds=30)
        job = queue.get_job(store, job_id)
        assert job["status"] == "queued" and job["attempts"] == 0 and job["claimed_by"] is None
        assert not _running(_calls(log)[0]["pid"])
    finally:
        store.dispose()
