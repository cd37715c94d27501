"""GPU bookkeeping of the worker (what can be checked without a GPU)."""

import os
import threading
import time

import pytest

from bot.repro.safety import ReproRefused
from bot.repro.worker import GpuPool, Worker, describe_gpus, detect_gpus, gpus_needed, wait_until_free


def test_pool_hands_out_whole_sets_and_waits():
    pool = GpuPool(["0", "1"])
    stop = threading.Event()
    one = pool.take(1, stop)
    got = {}
    t = threading.Thread(target=lambda: got.update(both=pool.take(2, stop)))
    t.start()
    time.sleep(0.3)
    assert t.is_alive(), "took two GPUs while only one was free"
    pool.give(one)
    t.join(5)
    assert sorted(got["both"]) == ["0", "1"]


def test_pool_hands_gpus_back_out_in_the_workers_order():
    pool = GpuPool(["0", "1", "2"])
    stop = threading.Event()
    a, b, c = pool.take(1, stop), pool.take(1, stop), pool.take(1, stop)
    pool.give(c)
    pool.give(a)
    assert pool.take(2, stop) == ["0", "2"]


def test_pool_wait_ends_on_stop():
    pool = GpuPool(["0"])
    stop = threading.Event()
    pool.take(1, stop)
    threading.Timer(0.3, stop.set).start()
    assert pool.take(1, stop) is None


def test_gpus_needed_and_too_many_refused():
    assert gpus_needed({}) == 1
    assert gpus_needed({"tensor_parallel_size": 2, "pipeline_parallel_size": 2}) == 4
    worker = Worker(store=None, python="python", gpus=["0", "1"], roots=[])
    with pytest.raises(ReproRefused, match="needs 4 GPUs"):
        worker._gpus_for({"tensor_parallel_size": 4}, ["0"])
    assert worker._gpus_for({}, ["0"]) == ["0"]


def test_detect_gpus_follows_cuda_visible_devices(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert detect_gpus() == ["2", "3"]


def test_nothing_to_wait_for_on_a_cpu_slot():
    assert wait_until_free(None, None, timeout_s=0.1) is True


def test_a_job_log_names_the_gpus_it_runs_on(tmp_path, monkeypatch):
    """nvidia-smi's own words for each GPU (a stand-in nvidia-smi on PATH prints what the real one
    prints for `--query-gpu=index,name,uuid --format=csv,noheader -i 0,1`)."""
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\necho '0, NVIDIA H200, GPU-aaaa'\necho '1, NVIDIA H200, GPU-bbbb'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    assert describe_gpus(["0", "1"]) == "0 (NVIDIA H200, GPU-aaaa), 1 (NVIDIA H200, GPU-bbbb)"
    assert describe_gpus([None]) == "the CPU"
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    assert describe_gpus(["3"]) == "3"
