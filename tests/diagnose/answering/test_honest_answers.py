"""Answers that must not say too little or something near-false: the stream-capture code named, no "lower"
gpu_memory_utilization that is not lower, no list "in the message" where the message has none."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.answering import advice

HEAD = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] EngineCore failed to start.\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] Traceback (most recent call last):\n"
        '(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]   File "/usr/local/lib/python3.12/dist-packages/'
        'vllm/v1/worker/gpu_model_runner.py", line 4100, in capture_model\n')


@pytest.mark.parametrize("text, name", [
    ("operation not permitted when stream is capturing", "cudaErrorStreamCaptureUnsupported` (900)"),
    ("operation failed due to a previous error during capture", "cudaErrorStreamCaptureInvalidated` (901)"),
    ("capturing stream has unjoined work", "cudaErrorStreamCaptureUnjoined` (904)"),
    ("operation would make the legacy stream depend on a capturing blocking stream", "cudaErrorStreamCaptureImplicit` (906)"),
    ("operation not permitted on an event last recorded in a capturing stream", "cudaErrorCapturedEvent` (907)"),
])
def test_capture_error_names_cudas_code(text, name):
    d = diagnose(HEAD + f"(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] torch.AcceleratorError: "
                        f"CUDA error: {text}\n").best
    assert d.rule_id == "cuda-graph-capture-unsupported"
    assert name in d.cause
    # 901 alone says an earlier call broke the capture
    assert ("first capture error above" in d.cause) == name.startswith("cudaErrorStreamCaptureInvalidated")


def test_capture_error_under_rocm_names_hips_code():
    d = diagnose(HEAD + "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] RuntimeError: HIP error: "
                        "operation not permitted when stream is capturing\n").best
    assert d.rule_id == "cuda-graph-capture-unsupported" and "`hipErrorStreamCaptureUnsupported` (900)" in d.cause


@pytest.mark.parametrize("used", [0.05, 0.03])
def test_no_lower_share_below_the_floor(used):
    text = "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 44.53 GiB of which 448.00 KiB is free."
    facts = {"engine_args": {"gpu_memory_utilization": used}}
    out = advice.derive("cuda-oom", {"matched_text": text}, facts)
    assert out.get("lower_util") is None and out["util_floor"] == f"{used:g}"
    assert "cannot leave more room" in out["util_at_floor"]
    npu = advice.derive("npu-oom", {"matched_text": ""}, facts)
    assert "lower_util" not in npu and npu["util_floor"] == f"{used:g}"
    # a share above the floor still gets a lower one, and no floor text
    out = advice.derive("cuda-oom", {"matched_text": text}, {"engine_args": {"gpu_memory_utilization": 0.08}})
    assert out["lower_util"] == "0.05" and "util_floor" not in out


def test_oom_answer_at_the_floor_suggests_no_share_that_is_not_lower():
    log = ("INFO 03-27 10:29:00 [api_utils.py:273] non-default args: {'model': '/models/m', 'gpu_memory_utilization': 0.05}\n"
           "ERROR 03-27 10:29:05 [core.py:1330] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. "
           "GPU 0 has a total capacity of 44.53 GiB of which 448.00 KiB is free. Process 1686436 has 44.51 GiB memory in use.\n")
    d = diagnose(log).best
    assert d.rule_id == "cuda-oom"
    assert "gpu-memory-utilization 0.05`" not in d.fix and "gpu_memory_utilization=0.05)" not in d.fix
    assert "already 0.05" in d.fix


@pytest.mark.parametrize("message, listed", [
    ("RuntimeError: Unsupported head size: 32", False),
    ("ValueError: Head size 160 is not supported by PagedAttention. Supported head sizes are: [64, 80, 96, 112, 128, 256].",
     True),
])
def test_head_size_fix_points_at_a_list_only_where_the_message_has_one(message, listed):
    d = diagnose("INFO 12-02 10:00:00 vLLM 0.3.3 starting\n" + HEAD.replace("gpu_model_runner.py", "attention.py")
                 + f"(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] {message}\n").best
    assert d.rule_id == "attn-head-size-unsupported"
    assert ("the list in the message" in d.fix) == listed
    assert ("names no\nlist" in d.fix or "names no list" in d.fix) == (not listed)


# vllm/version.py's warning, as Python prints a RuntimeWarning (the caller's file: stacklevel=2), in 0.33.0's and
# 0.5.4's words; the traceback's own frames here are the user's script and site-packages only
@pytest.mark.parametrize("module", ["vllm._version", "vllm.commit_id"])
def test_checkout_seen_only_in_the_commit_hash_warning(module):
    log = ("/home/u/vllm/vllm/__init__.py:7: RuntimeWarning: Failed to read commit hash:\n"
           f"No module named '{module}'\n"
           "  from .version import __version__, __version_tuple__  # isort:skip\n"
           "Traceback (most recent call last):\n"
           '  File "/home/u/run.py", line 1, in <module>\n'
           "    from vllm import LLM\n"
           "ModuleNotFoundError: No module named 'vllm._C'\n")
    d = diagnose(log).best
    assert d is not None and d.rule_id == "vllm-checkout-shadow"
    # without the warning, the same frames show no checkout
    bare = diagnose(log.split("Traceback", 1)[0].replace("Failed to read commit hash", "x") + "Traceback" + log.split("Traceback", 1)[1]).best
    assert bare is None or bare.rule_id != "vllm-checkout-shadow"


BANNER = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
          "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
          "   https://docs.nvidia.com/datacenter/cloud-native/ .\n\n"
          "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.8.5\n")


def test_the_cuda_image_s_no_driver_banner_is_no_answer_once_vllm_found_its_cuda_platform():
    # vLLM's CUDA platform is found through NVML counting a GPU: the driver is in the container, the banner was wrong
    assert diagnose(BANNER + "RuntimeError: Failed to infer device type\n").best.rule_id \
        == "container-nvidia-driver-not-detected"
    found = diagnose(BANNER + "INFO 05-01 10:00:01 [__init__.py:239] Automatically detected platform cuda.\n"
                     "ERROR 05-01 10:00:40 [core.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                     "2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.02 GiB is free.\n")
    assert "container-nvidia-driver-not-detected" not in [d.rule_id for d in found.diagnoses]


def test_a_vfio_group_refused_with_eperm_is_not_a_busy_tpu():
    # a VFIO group refuses a second opener with EBUSY; EPERM is the container's device rules or the node's permissions
    line = ("RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: open(/dev/vfio/0): {}: {}; "
            "Couldn't open iommu group /dev/vfio/0\n")
    head = "INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.2\n"
    assert diagnose(head + line.format(*["Device or resource busy"] * 2)).best.rule_id == "tpu-device-busy"
    assert "tpu-device-busy" not in [d.rule_id for d in diagnose(head + line.format(*["Operation not permitted"] * 2)).diagnoses]


def test_a_transformers_module_of_a_middle_range_gets_a_direction_only_from_the_version_shown():
    # transformers.agents: 4.41 to 4.51 only; without the transformers that ran, neither "newer" nor "older" is known
    unknown = advice._submodule_history("transformers.agents", {"vllm_version": "0.8.5"})
    if not unknown:
        pytest.skip("no exports table")
    assert "ms_first" not in unknown and "ms_removed" not in unknown and unknown["ms_span"]
    assert advice._submodule_history("transformers.agents", {"transformers_version": "4.30.0"}).get("ms_first")
    too_new = advice._submodule_history("transformers.agents", {"transformers_version": "5.2.0"})
    assert too_new.get("ms_removed") and "ms_first" not in too_new


def test_a_tokenizer_class_the_shown_transformers_has_is_no_newer_releases():
    shown = {"tokenizer_class": "Qwen3_5Tokenizer"}
    assert advice._tokenizer_class(shown, {"transformers_version": "5.5.0"}) == {}
    older = advice._tokenizer_class(shown, {"transformers_version": "4.57.0"})
    assert not older or older.get("tc_installed") == "4.57.0"


def test_a_circular_import_between_the_users_own_modules_is_no_shadowed_library():
    paste = ("Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 3, in <module>\n    from server import app\n"
             "ImportError: cannot import name 'app' from partially initialized module 'server' (most likely due to a "
             "circular import) (/srv/app/server.py)\nINFO 12-02 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n")
    assert "module-file-shadow" not in [d.rule_id for d in diagnose(paste).diagnoses]
    shadow = paste.replace("'server'", "'transformers'").replace("/srv/app/server.py", "/srv/app/transformers.py")
    assert [d.rule_id for d in diagnose(shadow).diagnoses][:1] == ["module-file-shadow"]
