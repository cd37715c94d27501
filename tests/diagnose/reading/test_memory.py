"""The memory numbers vLLM prints while it sizes the KV cache, read for the run that failed. The lines are
vLLM's own templates (checked in the wheels: 0.6.4 worker.py, 0.6.6 - 0.10 worker.py, 0.10 - 0.32
gpu_worker.py, gpu_model_runner.py and mem_utils.py) filled with numbers."""

from bot.diagnose.reading.memory import profile

ERROR = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."

V0_SPLIT = """INFO 04-06 18:45:14 [model_runner.py:1146] Model loading took 0.4315 GiB and 0.745171 seconds
INFO 04-06 18:45:15 [worker.py:267] Memory profiling takes 0.47 seconds
INFO 04-06 18:45:15 [worker.py:267] the current vLLM instance can use total_gpu_memory (44.55GiB) x gpu_memory_utilization (0.10) = 4.45GiB
INFO 04-06 18:45:15 [worker.py:267] model weights take 0.43GiB; non_torch_memory takes 5.06GiB; PyTorch activation peak memory takes 0.09GiB; the rest of the memory reserved for KV Cache is -1.13GiB.
"""


def _at_error(text: str) -> tuple[str, int]:
    text = text + ERROR + "\n"
    return text, text.count("\n")


def test_v0_split_gives_every_part():
    p = profile(*_at_error(V0_SPLIT))
    assert p == {"weights": 0.43, "total": 44.55, "util": 0.10, "budget": 4.45, "non_torch": 5.06,
                 "activation": 0.09, "kv": -1.13}


def test_v1_gives_weights_and_kv_only():
    text = ("(EngineCore pid=1723) INFO 12-06 04:30:20 [model_runner.py:305] Model loading took 0.01 GiB and 1.179089 seconds\n"
            "(EngineCore pid=1723) INFO 12-06 04:30:28 [gpu_worker.py:560] Available KV cache memory: -0.43 GiB\n")
    assert profile(*_at_error(text)) == {"weights": 0.01, "kv": -0.43}


def test_v1_debug_lines_give_the_budget_and_its_split():
    text = ("INFO [gpu_model_runner.py:2392] Model loading took 14.9889 GiB and 6.2 seconds\n"
            "DEBUG [gpu_worker.py:549] Initial free memory: 54.10 GiB; Requested memory: 0.500000 (util), 39.59 GiB\n"
            "DEBUG [gpu_worker.py:554] Memory profiling takes 2.01 seconds. Total non KV cache memory: 41.20GiB; "
            "torch peak memory increase: 1.18GiB; non-torch forward increase memory: 25.03GiB; weights memory: 14.99GiB.\n"
            "INFO [gpu_worker.py:560] Available KV cache memory: -1.61 GiB\n")
    assert profile(*_at_error(text)) == {"weights": 14.99, "util": 0.5, "budget": 39.59, "activation": 1.18,
                                          "non_torch": 25.03, "kv": -1.61}


def test_064_line_splits_the_torch_peak():
    text = ("INFO 11-30 13:57:01 model_runner.py:1077] Loading model weights took 3.2636 GB\n"
            "INFO 11-30 13:57:06 worker.py:232] Memory profiling results: total_gpu_memory=15.56GiB "
            "initial_memory_usage=4.78GiB peak_torch_memory=4.43GiB memory_usage_post_profile=4.78GiB "
            "non_torch_memory=1.23GiB kv_cache_size=-0.78GiB gpu_memory_utilization=0.30\n")
    p = profile(*_at_error(text))
    assert p["weights"] == 3.2636 and p["activation"] == 1.17 and p["non_torch"] == 1.23
    assert p["kv"] == -0.78 and p["budget"] == round(15.56 * 0.3, 2)


def test_only_the_failing_runs_lines_count():
    # a server that started (KV 3.88 GiB), then a second run that failed with no memory lines of its own
    text = (V0_SPLIT.replace("-1.13GiB", "3.88GiB")
            + "INFO 04-06 18:46:00 [api_server.py:1035] non-default args: {'gpu_memory_utilization': 0.1}\n"
            + "INFO 04-06 18:46:09 [gpu_model_runner.py:1273] Model loading took 0.4315 GiB and 0.93 seconds\n")
    assert profile(*_at_error(text)) == {"weights": 0.4315}


def test_the_rank_with_the_least_kv_cache_is_the_one_that_failed():
    rank = "(VllmWorker rank={r} pid=1{r}) INFO [gpu_worker.py:560] Available KV cache memory: {kv} GiB\n"
    text = "".join(rank.format(r=r, kv=kv) for r, kv in enumerate(("2.10", "-0.30", "1.90")))
    assert profile(*_at_error(text))["kv"] == -0.30


def test_nothing_printed_gives_nothing():
    assert profile(*_at_error("INFO 12-06 04:30:17 [model.py:1788] Using max model len 512\n")) == {}
