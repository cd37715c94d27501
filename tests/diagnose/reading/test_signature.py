import pytest

from bot.diagnose.reading.signature import signature

from tests.store.helpers import diagnose, fixture_logs, load_book, make_book, read


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return load_book(make_book(tmp_path_factory.mktemp("rules")))


def _root_line(rule_id: str, name: str, book) -> str:
    [path] = [p for p in fixture_logs(rule_id) if p.name == name]
    return diagnose(read(path), book).root.text


@pytest.mark.parametrize("rule_id, first, second", [
    # different GPU (RTX 2080 Ti / V100-SXM2-32GB) and capability (7.5 / 7.0), vLLM 0.5.4 vs newer
    ("bf16-unsupported-gpu", "rtx2080ti-vllm.log", "v100-transformerlab-vllm054.log"),
    # different sizes, GPU index 0 / 3, other process lists
    ("cuda-oom", "v0.6-vllmworkerprocess-aria.log", "v0.8-v1-engine-core.log"),
    # different LoRA ranks
    ("lora-rank-too-large", "v0.3-valueerror.log", "v0.1x-add-lora-utility-call.log"),
])
def test_same_failure_printed_differently_has_one_signature(rule_id, first, second, book):
    a, b = _root_line(rule_id, first, book), _root_line(rule_id, second, book)
    assert a != b
    sig_a, sig_b = signature(a), signature(b)
    if rule_id == "lora-rank-too-large":
        # one is raised bare, the other re-raised by a utility call: the message part must agree
        sig_a, sig_b = sig_a.split(": ", 1)[-1], sig_b.split("failed: ", 1)[-1]
    assert sig_a == sig_b


def test_headers_pids_ranks_paths_and_models_do_not_split_a_failure():
    lines = [
        "(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708] OSError: /models/Qwen3-8B does not "
        "appear to have a file named config.json. Checkout 'https://huggingface.co//models/Qwen3-8B/tree/None' "
        "for available files.",
        "(Worker_TP3 pid=91) ERROR 11-02 01:00:00 [core.py:700] OSError: /data/hf/Meta-Llama-3-8B-Instruct does "
        "not appear to have a file named config.json. Checkout 'https://huggingface.co//data/hf/Meta-Llama-3-8B"
        "-Instruct/tree/None' for available files.",
        "OSError: Qwen/Qwen2.5-VL-7B-Instruct-AWQ does not appear to have a file named config.json. Checkout "
        "'https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct-AWQ/tree/main' for available files.",
    ]
    sigs = {signature(line) for line in lines}
    assert len({s.replace("<model>", "<path>") for s in sigs}) == 1, sigs
    assert signature(lines[0]) == "OSError: <path> does not appear to have a file named config.json"


@pytest.mark.parametrize("line, masked, kept", [
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total "
     "capacity of 79.15 GiB of which 13.31 MiB is free. Process 77 has 79.1 GiB memory in use.",
     ["20.00 MiB", "79.15 GiB", "GPU 3", "Process 77", "torch.cuda."], ["OutOfMemoryError: CUDA out of memory"]),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda "
     "error, NCCL version 2.21.5 on rank3 Worker_TP1 at 0x7f3a2b00 from 10.0.0.12:29500",
     ["ProcessGroupNCCL.cpp", "2.21.5", "rank3", "TP1", "0x7f3a2b00", "10.0.0.12"], ["NCCL error in:", "unhandled cuda error"]),
    ("vllm serve: error: argument --dtype: invalid choice: 'torch.bfloat16' (choose from 'auto', 'bfloat16')",
     ["torch.bfloat16"], ["'bfloat16'", "argument --dtype: invalid choice: '<str>'"]),
    ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 "
     "GPU has compute capability 7.5. You can use float16 instead",
     ["8.0"], ["Bfloat16 is only supported on GPUs with compute capability of at least <num>"]),
    # torch's warning for a GPU newer than the wheel; the GPU name varies, the capability does not
    ("UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
     "PyTorch installation.", ["RTX 5090", "GeForce"], ["<gpu> with CUDA capability sm_120 is not compatible"]),
    ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
     "'namespace/repo_name': '/models/Qwen3-8B'. Use `repo_type` argument if needed.",
     ["/models/Qwen3-8B", "huggingface_hub.errors."], ["'namespace/repo_name'", "HFValidationError: Repo id"]),
    ("KeyError: 'model.layers.0.mlp.experts.12.weight' (job 3f2a9c1e-7b4d-4e2f-9a8b-1c2d3e4f5a6b, "
     "cache a3f9e2b17c)", ["3f2a9c1e-", "a3f9e2b17c", ".0.", ".12."], ["KeyError: 'model.layers.<num>.mlp"]),
])
def test_variable_parts_are_masked_and_the_message_is_kept(line, masked, kept):
    sig = signature(line)
    for part in masked:
        assert part not in sig, (part, sig)
    for part in kept:
        assert part in sig, (part, sig)


def test_tails_that_drift_between_releases_do_not_split_a_failure():
    # vLLM 0.7 / 0.15 / 0.22 endings of the same message (research: vllm-errors.md §1c)
    first = "ValueError: No available memory for the cache blocks."
    tails = [" Try increasing `gpu_memory_utilization` when initializing the engine.",
             " Try increasing `gpu_memory_utilization` when initializing the engine. See "
             "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
             " Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls "
             "CPU memory reservation on the CPU backend, despite its name)."]
    assert {signature(first + tail) for tail in tails} == {"ValueError: No available memory for the cache blocks"}
    # a first sentence too short to name the failure keeps the next one
    assert signature("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has") == (
        "OutOfMemoryError: CUDA out of memory. Tried to allocate <size>")


def test_distinct_failures_stay_distinct():
    assert signature("ValueError: dtype float16 is not supported") != signature("ValueError: dtype bfloat16 is not supported")
    assert signature("OSError: [Errno 28] No space left on device") != signature("OSError: [Errno 98] Address already in use")


def test_long_lines_are_cut_at_a_word_and_odd_input_does_not_crash():
    sig = signature("ValueError: " + "word " * 200)
    assert len(sig) <= 300 and sig.endswith("word")
    assert signature("") == "" and signature(None) == ""
    assert signature("\x00\x01 ünïcödé 日本語 123") == "\x00\x01 ünïcödé 日本語 <num>"
