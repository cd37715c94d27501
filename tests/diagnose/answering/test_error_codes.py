"""A hand-written rule that answers a CUDA, NCCL or NVML code names it (`{error_code}`: enum and number), looked up in
the stack index's tables by the code's text, name or number in the message (advice.code_in), and names none where
the message shows no code's words (torch's own sentences, NCCL's WARN lines) or where they are another library's."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index

HEAD = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] EngineCore failed to start.\n"
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] Traceback (most recent call last):\n")
FRAME = '(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]   File "/usr/local/lib/python3.12/dist-packages/{}", line 9, in {}\n'
LAST = "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] {}\n"
CUDA = [("vllm/v1/worker/gpu_worker.py", "init_device"), ("torch/cuda/__init__.py", "set_device")]
NCCL = [("vllm/distributed/device_communicators/pynccl.py", "__init__")]
NVML = [("vllm/platforms/cuda.py", "device_id_to_physical_device_id"), ("vllm/third_party/pynvml.py", "_nvmlCheckReturn")]


def paste(message: str, frames) -> str:
    return HEAD + "".join(FRAME.format(f, fn) for f, fn in frames) + LAST.format(message)


@pytest.mark.parametrize("rule, message, frames, code", [
    ("driver-too-old", "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", CUDA,
     "`cudaErrorInsufficientDriver` (35)"),
    ("driver-too-old", "torch.AcceleratorError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
     CUDA, "`cudaErrorUnsupportedPtxVersion` (222)"),
    ("no-kernel-image", "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
     CUDA, "`cudaErrorNoKernelImageForDevice` (209)"),
    ("no-kernel-image", "RuntimeError: Triton Error [CUDA]: CUDA_ERROR_NO_BINARY_FOR_GPU", CUDA,
     "`CUDA_ERROR_NO_BINARY_FOR_GPU` (209)"),
    ("illegal-memory-access", "torch.AcceleratorError: CUDA error: an illegal memory access was encountered", CUDA,
     "`cudaErrorIllegalAddress` (700)"),
    ("illegal-memory-access", "RuntimeError: HIP error: an illegal memory access was encountered", CUDA,
     "`hipErrorIllegalAddress` (700)"),
    ("cuda-forward-compat", "RuntimeError: Triton Error [CUDA]: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", CUDA,
     "`CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE` (804)"),
    ("nccl-error", "RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers", NCCL,
     "`ncclInternalError` (3)"),
    # NCCL 2.x before its hints: "unhandled cuda error" without "(run with NCCL_DEBUG=INFO for details)"
    ("nccl-error", "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled cuda error, "
                   "NCCL version 2.7.8", NCCL, "`ncclUnhandledCudaError` (1)"),
    ("cuda-visible-devices-invalid", "vllm.third_party.pynvml.NVMLError_InvalidArgument: Invalid Argument", NVML,
     "`NVML_ERROR_INVALID_ARGUMENT` (2)"),
    ("cuda-visible-devices-invalid", "vllm.third_party.pynvml.NVMLError_NotFound: Not Found", NVML,
     "`NVML_ERROR_NOT_FOUND` (6)"),
])
def test_the_rule_names_the_code_its_message_is(rule, message, frames, code):
    text = paste(message, frames)
    d = diagnose(text).best
    assert d.rule_id == rule and code in d.cause
    assert code in diagnose(text, lang="zh").best.cause


@pytest.mark.parametrize("rule, message, frames", [
    # torch's own sentence, which no table holds (it stands for 35, but the message does not say so)
    ("driver-too-old", "AssertionError: The NVIDIA driver on your system is too old (found version 11040). Please update "
                       "your GPU driver by downloading and installing a new version", CUDA),
    # Triton's compiler refusing an old GPU: no CUDA call failed
    ("no-kernel-image", "RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU "
                        "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
                        "but your device is of CUDA capability 6.0", CUDA),
])
def test_no_code_where_the_message_prints_none(rule, message, frames):
    d = diagnose(paste(message, frames)).best
    assert d.rule_id == rule and "` (" not in d.cause.replace("`sm_", "")


def test_a_cuda_failure_nccl_quotes_is_no_nccl_result():
    # CUDA's "invalid argument" in NCCL's WARN line is CUDA's code, not ncclInvalidArgument
    text = "misc/strongstream.cc:53 NCCL WARN Cuda failure 'invalid argument'"
    assert advice.code_in(text, ("nccl",), {}) is None
    assert advice.code_in(text, ("cuda",), {}).name == "cudaErrorInvalidValue"


def test_codes_that_disagree_and_cuda_words_on_rocm_name_none():
    two = "RuntimeError: CUDA error: an illegal memory access was encountered (CUDA_ERROR_LAUNCH_FAILED)"
    assert advice.code_in(two, ("cuda",), {}) is None
    one = "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert advice.code_in(one, ("cuda",), {}).number == 700
    # torch for ROCm may print HIP's code in CUDA's words: not CUDA's code
    assert advice.code_in(one, ("cuda", "hip"), {"rocm_shown": True}) is None


def test_nccls_older_texts_are_its_codes_by_the_whole_text_only():
    ix = stack_index.load()
    assert ix.nccl("internal error").name == "ncclInternalError"
    assert ix.nccl("unhandled system error").name == "ncclSystemError"
    assert ix.nccl("invalid usage").name == "ncclInvalidUsage"
    assert not [h for h in ix.codes_in("NCCL WARN Cuda failure 'invalid argument'") if h.kind == "nccl"]
