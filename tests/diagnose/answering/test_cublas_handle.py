"""cuBLAS failing to create its handle under vLLM: the statuses cublasCreate returns, the share of the GPU
the run gave vLLM, and where in the run it failed."""

from bot.diagnose import diagnose

ARGS = "INFO 05-19 06:58:00 [cli_args.py:297] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.92}\n"
SMI = "|  0%   30C    P0             60W /  300W |   70000MiB /  81559MiB |      0%      Default |\n"
FRAMES = {
    "serving": ('  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/engine/core.py", line 200, in run_busy_loop\n'
                "    self._process_engine_step()\n"),
    "startup": ('  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2000, in profile_run\n'
                "    self._dummy_run(self.max_num_tokens)\n"),
    # V1 captures CUDA graphs after the KV cache is allocated, through the same _dummy_run the profiling run calls
    "capture": ('  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_worker.py", line 300, in compile_or_warm_up_model\n'
                "    self.model_runner.capture_model()\n"
                '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2500, in capture_model\n'
                "    self._dummy_run(num_tokens)\n"
                '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2200, in _dummy_run\n'
                "    outputs = self.model(input_ids=input_ids)\n"),
}


def _paste(status: str, where: str) -> str:
    return (ARGS + SMI + "Traceback (most recent call last):\n" + FRAMES[where]
            + '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/linear.py", line 485, in forward\n'
            + "    output = F.linear(x, layer.weight, bias)\n"
            + f"RuntimeError: CUDA error: {status} when calling `cublasCreate(handle)`\n")


def test_every_status_cublascreate_returns_is_the_handle_rule():
    for status in ("CUBLAS_STATUS_NOT_INITIALIZED", "CUBLAS_STATUS_ALLOC_FAILED", "CUBLAS_STATUS_INTERNAL_ERROR"):
        d = diagnose(_paste(status, "serving")).diagnoses[0]
        assert d.rule_id == "cublas-handle-init-failed" and status in d.cause


def test_while_serving_it_names_the_headroom_and_offers_a_lower_share():
    d = diagnose(_paste("CUBLAS_STATUS_INTERNAL_ERROR", "serving")).diagnoses[0]
    assert "0.92 of the GPU's 79.65 GiB" in d.cause and "about 6.4 GiB" in d.cause and "while serving" in d.cause
    assert d.suggested == {"gpu_memory_utilization": 0.87}


def test_at_start_up_a_lower_share_is_not_offered():
    d = diagnose(_paste("CUBLAS_STATUS_NOT_INITIALIZED", "startup")).diagnoses[0]
    assert "start-up profiling run" in d.cause and "frees nothing there" in d.cause
    assert "gpu_memory_utilization" not in (d.suggested or {})


def test_capturing_cuda_graphs_comes_after_the_kv_cache_so_a_lower_share_is_offered():
    d = diagnose(_paste("CUBLAS_STATUS_ALLOC_FAILED", "capture")).diagnoses[0]
    assert "after the KV cache was allocated" in d.cause and "captured CUDA graphs" in d.cause
    assert "profiling run" not in d.cause and "frees nothing" not in d.cause
    assert d.suggested == {"gpu_memory_utilization": 0.87}


def test_both_rules_that_answer_a_handle_show_one_text_in_each_language():
    # cublasCreate's status is the hand-written rule's; the same status at cublasSetWorkspace is the stack index's
    for lang in ("en", "zh"):
        rule = diagnose(_paste("CUBLAS_STATUS_ALLOC_FAILED", "serving"), lang=lang).diagnoses[0]
        stack = diagnose(_paste("CUBLAS_STATUS_ALLOC_FAILED", "serving").replace(
            "`cublasCreate(handle)`", "`cublasSetWorkspace(handle, workspace, size)`"), lang=lang).diagnoses[0]
        assert (rule.rule_id, stack.rule_id) == ("cublas-handle-init-failed", "stack-error-code")
        shared = rule.cause.split("\n\n")[-2:]
        assert all(p in stack.cause for p in shared) and ("6.4 GiB" in shared[0])
