"""The values a stack family rule's text is filled with: what failed (the code, errno, library or
symbol, the package's own raise site), why in this environment (the log's versions, paths and
limits against the index's tables), and what to change, with the value.

Each filler returns {placeholder: text}; a value it cannot give is left out, so the paragraph that
needs it is dropped (report.fill). A `{?flag}` paragraph of the rule holds the hand-written advice for
one code or errno: the filler sets the flag (True) when the advice applies.
"""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.diagnose.reading.facts.machine import set_limit
from bot.diagnose.reading.facts.traceback_frames import site_package
from bot.diagnose.reading import process_end
from bot.diagnose.reading.gpus import cc_label

from . import INDUCTOR_HEADERS
from .stack_families import (ADVISED, AMDSMI_START, LIBRARIES, ZE_INVALID_ARGUMENT, Hit, _runtime_number, advice_number,
                              cuda_starting, load_index, ze_ipc)

_L = {
    "en": {"runtime": "CUDA runtime", "driver": "CUDA driver API", "nccl": "NCCL", "nvml": "NVML",
           "hip": "HIP (ROCm)", "hsa": "HSA runtime (ROCm)", "level_zero": "Level Zero (Intel GPU)",
           "unified_runtime": "SYCL Unified Runtime (Intel GPU)", "amdsmi": "AMD SMI (ROCm)",
           "acl": "Ascend ACL runtime (CANN)", "hccl": "HCCL (Ascend)", "torch_npu": "torch_npu",
           "aclnn": "Ascend operator API (aclnn, CANN)",
           "xid": "NVIDIA driver (Xid)",
           "pins": "vLLM {vllm} pins torch {torch} (CUDA {cuda}), which needs an NVIDIA driver ≥ {min_driver}",
           "shows_driver": "; the log shows driver {driver}", "supports": " (it runs CUDA up to {driver_cuda})",
           "torch_built": "torch {torch} was built for CUDA {cuda}",
           "unknown": "unknown", "and": " and "},
    "zh": {"runtime": "CUDA 运行时", "driver": "CUDA 驱动 API", "nccl": "NCCL", "nvml": "NVML",
           "hip": "HIP（ROCm）", "hsa": "HSA 运行时（ROCm）", "level_zero": "Level Zero（Intel GPU）",
           "unified_runtime": "SYCL Unified Runtime（Intel GPU）", "amdsmi": "AMD SMI（ROCm）",
           "acl": "昇腾 ACL 运行时（CANN）", "hccl": "HCCL（昇腾）", "torch_npu": "torch_npu",
           "aclnn": "昇腾算子接口（aclnn，CANN）",
           "xid": "NVIDIA 驱动（Xid）",
           "pins": "vLLM {vllm} 锁定 torch {torch}（CUDA {cuda}），需要 NVIDIA 驱动 ≥ {min_driver}",
           "shows_driver": "；日志显示驱动为 {driver}", "supports": "（它最高支持 CUDA {driver_cuda}）",
           "torch_built": "torch {torch} 是为 CUDA {cuda} 构建的",
           "unknown": "未知", "and": "、"},
}


def values(c, facts: dict, lang: str) -> dict:
    hit: Hit = c.source
    ix = load_index()
    if ix is None or hit is None:
        return {}
    lang = lang if lang in _L else "en"
    filler = _FILLERS.get(hit.family)
    out = filler(ix, hit, c, facts, lang) if filler else {}
    return {k: v for k, v in out.items() if v is not None}


# --- shared: the environment a CUDA failure runs in -------------------------------------------------------

def stack_line(ix, facts: dict, lang: str) -> str | None:
    """"vLLM 0.10.2 pins torch 2.8.0 (CUDA 12.8), which needs an NVIDIA driver ≥ 525; the log shows
    driver 470": the log's vLLM release joined with the index's pins, CUDA and driver tables."""
    t = _L[lang]
    version = facts.get("vllm_version")
    m = ix.manifest(str(version)) if version else {}
    driver = facts.get("driver_version")
    if m.get("torch") and m.get("cuda") and m.get("min_driver"):
        line = t["pins"].format(vllm=m["vllm"], torch=m["torch"], cuda=m["cuda"], min_driver=m["min_driver"])
    else:
        torch = facts.get("torch_version")
        cuda = facts.get("torch_cuda") or (ix.torch_cuda(torch) if torch else None)
        if not (torch and cuda):
            return None
        line = t["torch_built"].format(torch=torch, cuda=cuda)
        need = ix.min_driver(cuda)
        if need:
            line += ("，需要 NVIDIA 驱动 ≥ " if lang == "zh" else ", which needs an NVIDIA driver ≥ ") + need
    if driver:
        line += t["shows_driver"].format(driver=driver)
        supported = facts.get("driver_cuda") or ix.cuda_for_driver(driver)
        if supported:
            line += t["supports"].format(driver_cuda=supported)
    elif facts.get("driver_cuda"):
        line += t["supports"].format(driver_cuda=facts["driver_cuda"]).replace(" (", "; the driver ", 1).rstrip(")") \
            if lang == "en" else f"；驱动最高支持 CUDA {facts['driver_cuda']}"
    return line


KERNEL_FAULTS = (714, 715, 716, 717, 718, 719)


# --- error-code ---------------------------------------------------------------------------------------------

_NVML_LIBRARY_VERSION = LazyRe(r"NVML library version: (\d+\.\d+(?:\.\d+)?)")     # nvidia-smi's line under it


def _error_code(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    t = _L[lang]
    kind, rec = hit.info["kind"], hit.info["record"]
    if kind in LIBRARIES:
        return _library_status(ix, kind, rec, c, facts, lang)
    api = getattr(rec, "api", None) if kind == "cuda" else None
    number = rec.number
    if kind == "cuda" and api == "driver" and rec.runtime_name:
        number = _runtime_number(ix, rec) or number
    out = {
        "code_library": t[api] if api else t[kind],
        "code_number": str(rec.number),
        "code_name": rec.name,
        "code_text": rec.text or getattr(rec, "exception", None) or getattr(rec, "doc", None) or rec.name,
        "code_source": rec.source,
        # (torch's line ends in its own full stop; the text after it adds one)
        "torch_detail": (getattr(rec, "torch_detail", None) or "").rstrip(".") or None,
        "stack_line": stack_line(ix, facts, lang) if kind == "cuda" else None,
    }
    if (kind, number) in ADVISED:
        out[f"code_{kind}_{number}"] = True
    # a kernel's own fault (out of its buffers, its assertion): the driver and the install are not in question
    if kind == "cuda" and number in (700, 710) + KERNEL_FAULTS:
        out.update(kernel_fault=True, stack_line=None)
    # the other codes of a kernel that faulted as it ran (CUDA's driver_types.h, 12.9: "This leaves the process in an
    # inconsistent state and any further CUDA work will return the same error"): hardware stack error, illegal
    # instruction, misaligned address, invalid address space, invalid PC, unspecified launch failure
    # the stream-capture codes (CUDA's and HIP's 900-908: driver_types.h, hip_runtime_api.h): a call capture does
    # not allow ran inside a captured region; the code that ran is at fault, not the install or the driver
    if kind in ("cuda", "hip") and 900 <= number <= 908:
        out.update(stream_capture=True, kernel_fault=True, stack_line=None)
    if kind == "cuda" and number in KERNEL_FAULTS:
        out["cuda_kernel_fault"] = True
        out["cuda_launch_failure"] = number == 719 or None
    starting = hit.info.get("starting", cuda_starting(c.message.text))
    if kind == "cuda" and number == 2 and starting:
        out["cuda_2_at_init"] = True
        out["as_limit"] = set_limit(facts, "v")
    # at start-up, 3, 500 and 999 name no kernel and no fork: the driver library or its device files are what failed
    if kind == "cuda" and number in (3, 500, 999) and starting:
        out[f"cuda_{number}_at_init"] = True
        out.pop("code_cuda_999", None)          # "often after an earlier failure": not where nothing ran yet
        out.pop("code_cuda_3", None)            # a forked worker: torch says "Cannot re-initialize CUDA" for that
    if kind == "cuda" and number == 46:
        out["nofile_limit"] = set_limit(facts, "n")
    # Triton's launcher loading a kernel it has just compiled: the image came from the ptxas inside Triton's wheel (a
    # CUDA 12 toolkit's: 12.3 in Triton 2.2), which a driver of the CUDA 11 era cannot load (pytorch/pytorch#119054,
    # reproduced there on driver 470); not where the log shows a driver of CUDA 12 or later
    if kind == "cuda" and number == 200 and "Triton Error [CUDA]" in c.message.text:
        driver_cuda = facts.get("driver_cuda")
        major = re.match(r"(\d+)", str(driver_cuda or ""))
        if not major or int(major.group(1)) < 12:
            out["triton_image_driver"] = True
            if driver_cuda:
                out["triton_driver_cuda"] = driver_cuda
            if str(facts.get("torch_cuda") or "").startswith("11."):
                out["triton_torch_cuda"] = facts["torch_cuda"]
    if kind == "cuda" and number == 999 and facts.get("os_hint") == "wsl" and not out.get("cuda_999_at_init"):
        out["on_wsl"] = True
    # CUDA failing to start under WSL2: no kernel module to reload, no container to give the GPU; the GPU and
    # its libcuda come from the Windows driver (/usr/lib/wsl/lib), which a Linux driver inside WSL shadows
    # (3: cuInit failed, "CUDA driver initialization failed": there is no kernel module to load under WSL either;
    # 304, cudaErrorOperatingSystem: the call into WSL's GPU device, /dev/dxg, that the Windows driver serves, failed)
    if kind == "cuda" and number in (3, 100, 304, 999) and facts.get("os_hint") == "wsl" and starting:
        out["wsl_at_init"] = True
        for key in ("cuda_999_at_init", "cuda_3_at_init", "code_cuda_100"):
            out.pop(key, None)
    # NVML's Not Supported under WSL2: the Windows driver's NVML there answers fewer queries than a Linux one,
    # not an integrated GPU or a vGPU profile
    if kind == "nvml" and rec.number == 3 and facts.get("os_hint") == "wsl":
        out["nvml_3_on_wsl"] = True
        out.pop("code_nvml_3", None)
    # NVML's Invalid Argument where a GPU is looked up by its index: the index is past the GPUs NVML sees here
    if kind == "nvml" and rec.number == 2 and any(f.endswith(":nvmlDeviceGetHandleByIndex")
                                                  for f in facts.get("frames") or ()):
        out["nvml_2_by_index"] = True
    # vLLM's CUDA platform names every GPU of the machine through NVML at start-up (CudaPlatform.log_warnings, to warn
    # when their models differ), those CUDA_VISIBLE_DEVICES hides too: NVML does not read it, so one GPU that NVML
    # cannot reach fails vLLM whichever GPUs it was given (vllm-project/vllm#37210)
    if kind == "nvml" and any(f.startswith("vllm/platforms/cuda.py:") and f.endswith((":_get_physical_device_name",
                                                                                      ":log_warnings"))
                              for f in facts.get("frames") or ()):
        out["nvml_every_gpu"] = True
    if kind == "nvml" and rec.number == 18:
        lib = _NVML_LIBRARY_VERSION.search(c.message.text)
        out["nvml_library_version"] = lib.group(1) if lib else None
    # NVML's unknown error in a container: the known cause is the container's device rules rewritten under
    # it (systemd reloading, the kubelet's CPU manager), which its own advice replaces; nowhere else
    if kind == "nvml" and rec.number == 999 and facts.get("container"):
        out["nvml_999_in_container"] = facts["container"]
        out.pop("code_nvml_999", None)
    if kind in ("hip", "hsa"):
        out["rocm_platform"] = True
        out["hip_rocm"] = rec.rocm
    if kind == "level_zero":
        out.update(_level_zero(rec, c.message.text))
    if kind == "unified_runtime":
        out["xpu_platform"] = True
        flag = _UR_ADVICE.get(rec.number)
        if flag:
            out[flag] = True
    if kind == "amdsmi":
        out["rocm_platform"] = True
        if rec.name in AMDSMI_START:
            out["amdsmi_start"] = True
    if kind in ("acl", "hccl", "torch_npu", "aclnn"):
        out.update(_ascend(kind, rec, c.message.text, lang))
    if kind == "nvml" and getattr(rec, "exception", None):
        out["nvml_exception"] = rec.exception
    if kind == "xid":
        out.update(_xid(rec, c.message.text, facts))
    return out


# the process the driver names on the Xid line ("pid=2342, name=python3"; older drivers: "pid=2342, python3")
_XID_PID = LazyRe(r"\bpid=(\d+)(?:, name=([^,\s]+))?")


def _xid(rec, text: str, facts: dict) -> dict:
    """An Xid's values: its group's paragraph, the catalog's actions, the process and the other Xids shown."""
    out = {f"xid_{rec.group}": True, "kernel_fault": True, "xid_immediate": rec.immediate, "xid_investigatory": rec.investigatory or None,
           "stack_line": None}
    pid = _XID_PID.search(text)
    out["xid_pid"] = pid.group(1) if pid else None
    others = [n for n in facts.get("gpu_xids") or () if n != rec.number]
    out["xid_others"] = ", ".join(map(str, others)) if others else None
    return out


# torch_npu's checks name the call that failed: "NPU function error: aclrtSetDevice(device), error code is 507033",
# "HCCL function error: HcclAllreduce(...), error code is 7"
_NPU_CALL = LazyRe(r"\b(?:NPU|HCCL) function error: (?:call )?([\w:]+)(?:\(|,)|\bcall ((?:aclnn|Atb)\w+) failed, error code is ")
# its own code: "ERR00100 PTA call acl api failed" (sub-module 00, code 100)
_TORCH_NPU_CODE = LazyRe(r"\bERR(\d{2})(\d{3}) ([A-Z]+)\b")
# the text torch_npu takes from ACL's recent error ("[Error]: Failed to start the device."), and CANN's own
# message under it: a code of a letter E, a letter or digit for the component and four digits ("EL0003: [PID: 1]
# 2025-07-01-08:38:48.960.716 The argument is invalid."), or after the code's name in newer CANN releases
# ("Unsupported_Operator(EZ3002): Optype [TransData] of Ops kernel [AIcoreEngine] is unsupported.")
_NPU_SAYS = LazyRe(r"\[Error\]: ([^.\n]{4,120}\.)")
_CANN_CODE = LazyRe(r"\b(E[A-Z0-9]\d{4})\)?(?::|(?=\[PID))\s*(?:\[PID: ?\d+\]\s*)?(?:[\d.:-]{10,}\s*)?"
                    r"(?:\(E[A-Z0-9]\d{4}\):\s*)?"
                    r"((?:(?!\s(?:Solution|Possible Cause|TraceBack)\b)[^\n]){4,200}?[.!](?=\s|$|\[FUNC:))?")
# CANN's catch-all codes (EZ9999, E89999, EE9999, ...) print "Inner Error!" first and the operator's own reason on the
# next line under the same code ("E89999[PID: 1] ... (E89999): When layout is TND, queryD(256) ... must be ... 128."):
# that reason is the message worth quoting
_CANN_INNER = LazyRe(r"^Inner Error!?$")
# CANN's runtime code for a failed device allocation ("EL0004: ... Failed to allocate memory. Possible Cause: Available
# memory is insufficient."), or the allocation's own 207001 in CANN's trace under another call's code (aclrtMemcpy's
# 507899 "drv internal error" after "malloc physical memory failed, runtime result = 207001")
_CANN_OOM = LazyRe(r"\bEL0004\b|(?:memory failed|alloc[\w ]{0,20} failed), runtime result = 207001\b")
# the operator torch_npu names when an asynchronous task failed ("... the current working operator name is aclnnRmsNorm.")
_NPU_OPERATOR = LazyRe(r"current working operator name is ([\w.]+?)\.?(?=\s|$)")
# torch_npu's sub-modules (utils/_error_code.py, _SubModuleID): what part of torch_npu reported
_TORCH_NPU_MODULES = {
    "en": {"PTA": "torch_npu's core (devices, memory, streams)", "OPS": "its operators",
           "DIST": "its distributed backend (HCCL)", "GRAPH": "its graph mode", "PROF": "its profiler"},
    "zh": {"PTA": "torch_npu 的核心部分（设备、内存、流）", "OPS": "它的算子", "DIST": "它的分布式后端（HCCL）",
           "GRAPH": "它的图模式", "PROF": "它的性能分析器"}}


def _ascend(kind: str, rec, text: str, lang: str) -> dict:
    """An Ascend code as torch_npu prints it: the call, torch_npu's own code, CANN's message, the advice."""
    out: dict = {"ascend_platform": True}
    if not rec.text:        # acl_base_rt.h's codes have no comment: their name says it ("ACL_ERROR_INVALID_DEVICE")
        out["code_text"] = re.sub(r"^ACL_ERROR_(?:RT_)?", "", rec.name).replace("_", " ").lower()
    call = _NPU_CALL.search(text)
    if call:
        out["npu_call"] = call.group(1) or call.group(2)
    own = _TORCH_NPU_CODE.search(text)
    if own:
        out["torch_npu_code"] = f"ERR{own.group(1)}{own.group(2)} {own.group(3)}"
        out["torch_npu_part"] = _TORCH_NPU_MODULES[lang].get(own.group(3))
    if kind == "aclnn":
        out["aclnn_op"] = True
    if kind == "torch_npu":
        out["code_number"] = out.get("torch_npu_code", f"ERR??{rec.number:03d}").split()[0]
        out["code_name"] = f"ErrCode.{rec.name}"
    says = _NPU_SAYS.search(text)
    if says:
        out["npu_says"] = says.group(1)
    out.update(_cann_message(text))
    op = _NPU_OPERATOR.search(text)
    if op:
        out["npu_operator"] = op.group(1)
    # codes that share their advice: TCP's and RoCE's connect; the device's memory full; the device's own faults
    if kind == "hccl" and rec.number in (11, 12):
        out["code_hccl_connect"] = True
    if (kind == "acl" and rec.number in (207001, 207018)) or _CANN_OOM.search(text):
        out["acl_device_oom"] = True
    if kind == "acl" and rec.number in (507053, 507054):
        out["acl_device_fault"] = True
    return out


def _cann_message(text: str) -> dict:
    """CANN's first message code and its words; for a catch-all "Inner Error!", the reason printed under the same code."""
    found = list(_CANN_CODE.finditer(text))
    if not found:
        return {}
    code, words = found[0].group(1), found[0].group(2)
    if words is None or _CANN_INNER.match(words):
        reason = next((m.group(2) for m in found[1:] if m.group(1) == code and m.group(2)
                       and not _CANN_INNER.match(m.group(2))), None)
        words = reason or words
    return {"cann_code": code, "cann_text": words}


# oneCCL's "ze error at zeMemOpenIpcHandle, code: ..." and the runtimes' "zeInit failed": the call that failed
_ZE_CALL = LazyRe(r"\b(ze[A-Z]\w+)\b")
# advice paragraphs by code: {?code_ze_<words>}
_ZE_ADVICE = {0x70000001: "code_ze_device_lost", 0x70000003: "code_ze_out_of_device_memory",
              0x78000001: "code_ze_uninitialized"}
# the Unified Runtime's codes for the same failures share their advice
_UR_ADVICE = {20: "code_ze_device_lost", 39: "code_ze_out_of_device_memory"}


def _level_zero(rec, text: str) -> dict:
    """Level Zero's code as Intel's stack prints it: the number as the header writes it (hex), the call, the advice."""
    out = {"code_number": f"0x{rec.number:08x}", "xpu_platform": True,
           "code_text": rec.text or re.sub(r"^ZE_RESULT_(?:ERROR_)?", "", rec.name).replace("_", " ").lower()}
    call = _ZE_CALL.search(text)
    if call:
        out["ze_call"] = call.group(1)
    if "oneccl" in text.lower():
        out["ze_oneccl"] = True
    flag = _ZE_ADVICE.get(rec.number)
    if flag:
        out[flag] = True
    if rec.number == ZE_INVALID_ARGUMENT and ze_ipc(text):
        out["ze_ipc_invalid_argument"] = True
    return out


# The data type of a cuBLAS call torch prints whole ("cublasGemmEx( handle, ..., CUDA_R_16BF, lda, ...)",
# cuBLASLt's "... with transpose_mat1 1 ... Atype 14 ..."): the types that need a newer GPU than some have.
_CALL_TYPES = ((regex_cache.compile(r"\bCUDA_R_8F_E[45]M[23]\b|Float8_e4m3|Float8_e5m2|\bfp8\b", re.I), "fp8", (8, 9)),
               (regex_cache.compile(r"\bCUDA_R_16BF\b|\bbfloat16\b|\bBFloat16\b"), "bf16", (8, 0)))
_LT_CALL = LazyRe(r"\bcublasLt\w*")
_MISMATCH_SAYS = {("cublas", 1), ("cublas", 7), ("cublas", 13), ("cudnn", 1001), ("cudnn", 1002), ("cudnn", 4006),
                  ("cudnn", 5000)}
# A handle or its workspace that could not be made, which takes GPU memory (the answer then says how much the run
# left for it): the statuses only that gives (cuBLAS's not initialized and alloc failed, cuDNN's not initialized), or
# any status of the calls that make one, as torch names them (cublasCreate / cublasLtCreate at a device's and thread's
# first matrix multiply, cublasSetWorkspace just after it, cudnnCreate at its first convolution). An internal error of
# a matrix multiply (cublasGemmEx) creates nothing.
_HANDLE_STATUSES = {("cublas", 1), ("cublas", 3), ("cudnn", 1001)}
_HANDLE_CALL = LazyRe(r"\b(?:cublas(?:Lt)?Create|cublas(?:Lt)?SetWorkspace\w*|cudnnCreate)\b")


def _library_status(ix, kind: str, rec, c, facts: dict, lang: str) -> dict:
    """A status of cuBLAS, cuDNN, cuSOLVER, cuSPARSE, cuRAND or cuFFT, named as torch prints it."""
    text = c.message.text
    label = "cuBLASLt" if kind == "cublas" and _LT_CALL.search(text) else rec.label
    numbers = {n for _, n in rec.numbers}
    number = str(rec.number)
    if len(numbers) > 1:            # cuDNN 9 renumbered cuDNN 8's statuses
        older = ", ".join(str(n) for n in sorted(numbers - {rec.number}))
        number += f"（cuDNN 9 之前为 {older}）" if lang == "zh" else f" ({older} before cuDNN 9)"
    out = {"code_library": label, "code_number": number, "code_name": rec.name,
           # a status no header or library words: its name's words ("CUFFT_INTERNAL_ERROR": internal error)
           "code_text": rec.text or re.sub(r"^[A-Z]+_(?:STATUS_)?", "", rec.name).replace("_", " ").lower(),
           "code_source": rec.source, "stack_line": stack_line(ix, facts, lang)}
    advice = advice_number(kind, rec.number)
    if advice is not None:
        out[f"code_{kind}_{advice}"] = True
    if (kind, advice) in _HANDLE_STATUSES or _HANDLE_CALL.search(text):
        out["lib_handle"] = True
    if kind == "cublas" and advice in (15, 7, 13):
        out.update(_gemm_type(text, facts, lang))
    if kind == "cublas" and advice == 7:
        out.update(_gemm_regression(ix, facts))
    # a status a mismatched library gives: the CUDA major its wheels must be of
    if (kind, advice) in _MISMATCH_SAYS and facts.get("torch_cuda"):
        out["lib_torch_cuda"] = facts["torch_cuda"]
        out["lib_cuda_major"] = facts["torch_cuda"].split(".")[0]
    return out


# torch 2.10's CUDA 12.8 build with the cuBLAS it pins (nvidia-cublas-cu12 12.8.4.1, by the stack index's torch
# table): cublasGemmEx refuses ordinary half-precision multiplies with CUBLAS_STATUS_INVALID_VALUE on some GPUs
# (pytorch#174949, vLLM 0.16 and later; pytorch#180713 on a GH200), which cuBLAS 12.9 does not.
_GEMM_REGRESSION = {"torch": "2.10", "cuda": "12.8", "wheel": "nvidia-cublas-cu12", "cublas": "12.8.4.1"}


def _gemm_regression(ix, facts: dict) -> dict:
    """That pair, where the paste shows it: `cublas_gemm_regression` where it lists the cuBLAS wheel too, and
    `cublas_gemm_maybe` where only torch shows (its pin is that cuBLAS, but another may be installed)."""
    known = _GEMM_REGRESSION
    torch = str(facts.get("torch_version") or "")
    if not torch.startswith(known["torch"] + ".") or facts.get("torch_cuda") != known["cuda"]:
        return {}
    wheel = (facts.get("packages") or {}).get(known["wheel"])
    if wheel:
        return {"cublas_gemm_regression": True} if wheel == known["cublas"] else {}
    rec = ix.torch_release(torch) if ix is not None else None
    pin = (rec.pins.get(known["wheel"]) or "").lstrip("=") if rec else None
    return {"cublas_gemm_maybe": True} if pin == known["cublas"] else {}


def _gemm_type(text: str, facts: dict, lang: str) -> dict:
    """The call's data type and, where the log shows the GPU's compute capability, whether the GPU has it."""
    for rx, dtype, needs in _CALL_TYPES:
        if rx.search(text):
            out = {f"gemm_{dtype}": True}
            cap = facts.get("compute_capability")
            have = tuple(int(x) for x in re.findall(r"\d+", str(cap or "")))[:2]
            if len(have) == 2 and have < needs:
                out[f"gemm_{dtype}_unsupported"] = True
                out["gpu_capability"] = cc_label(have)
                out["gpu_name"] = facts.get("gpu_name") or ("这块 GPU" if lang == "zh" else "this GPU")
            return out
    return {}


# --- loader ---------------------------------------------------------------------------------------------------

_CONDA = LazyRe(r"(?:conda|miniconda\d?|anaconda\d?|mamba|miniforge\d?)[/\\]", re.I)
# The operating system's library folders (Debian's multiarch, RHEL's lib64, the merged /usr).
_SYSTEM_LIB = LazyRe(r"/(?:usr/)?lib(?:64|32)?/(?:[\w-]+-linux-gnu/)?libstdc\+\+\.so")


# The loader's shapes in Chinese (the index words their meaning in English).
_SHAPE_ZH = {
    "cannot_open": "链接器在搜索路径上找不到这个库，或无法读取它",
    "version_not_found": "加载到的库缺少所需的符号版本（它比需要它的程序构建时所用的版本旧）",
    "undefined_symbol": "库里缺少所需的符号（它是针对另一个版本的依赖构建的）",
    "symbol_lookup_error": "运行时查找符号失败（加载到的依赖库版本不对）",
    "wrong_elf_class": "库的位数不对（32 位与 64 位混用）",
    "invalid_elf_header": "文件不是有效的共享库（损坏、被截断，或是别的文件）",
    "file_too_short": "库文件被截断了（下载或复制不完整）",
    "cannot_read": "链接器无法读取这个文件：路径是一个目录，或文件无法读取",
    "static_tls": "库需要的静态 TLS 空间不足（常见于 aarch64 上的 libgomp，需要预加载）",
    "failed_to_map": "链接器无法把库映射进地址空间（地址空间上限 `ulimit -v`、内存耗尽，或文件系统以 noexec 挂载）",
    "executable_stack": "库要求可执行栈，而系统不允许",
    "error_while_loading": "程序启动时无法加载它需要的共享库",
    "no_version_information": "库没有符号版本信息（通常只是警告）",
    "pynccl_load_failed": "vLLM 的 NCCL 封装无法加载它（不在加载器的路径上、无法读取，或不适用于这个平台）",
}


def _loader(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    m = hit.info["match"]
    g = m.groups
    meaning = _SHAPE_ZH.get(m.shape, m.meaning) if lang == "zh" else m.meaning
    out = {"loader_shape": m.shape, "loader_meaning": meaning,
           "library": g.get("library"), "required_by": g.get("required_by"),
           "symbol": g.get("symbol"), "symbol_version": g.get("version")}
    out[f"shape_{m.shape}"] = True
    lib = g.get("library") or ""
    version = g.get("version") or ""
    if m.shape == "version_not_found" and version.startswith(("GLIBCXX_", "CXXABI_")):
        gcc = ix.gcc_for(version)
        out["gcc_release"] = gcc
        out["libstdcxx"] = True
        if _CONDA.search(lib):
            out["conda_lib"] = True
        elif _SYSTEM_LIB.match(lib):
            # the operating system's own copy is the old one: putting the system's folder first (the
            # usual advice against a conda copy) changes nothing; a newer copy has to come first
            out["system_lib"] = True
    elif m.shape == "version_not_found" and version.startswith("GLIBC_"):
        out["glibc"] = True
        out["glibc_needed"] = version.split("_", 1)[1]
        out["glibc_have"] = facts.get("glibc_version")
    if "Permission denied" in (g.get("reason") or "") and m.shape in ("cannot_open", "error_while_loading"):
        # the file is there: no package is missing, the user this process runs as may not read it
        out["loader_eacces"] = True
        if re.match(r"/root/", lib):
            out["loader_root_home"] = True
    elif g.get("deleted"):
        # the file was there when the process loaded it: no package is missing, the environment changed under it
        out["lib_deleted"] = True
    elif "Is a directory" in (g.get("reason") or "") or re.search(r"[/\\]$", lib):
        # a folder given where the library's file belongs (VLLM_NCCL_SO_PATH=/usr/lib/x86_64-linux-gnu/): nothing
        # is missing, the path is one level short
        out["lib_is_dir"] = True
        out["lib_dir"] = lib.rstrip("/\\") or lib
    elif m.shape in ("cannot_open", "pynccl_load_failed") and lib:
        base = re.split(r"[/\\]", lib)[-1]
        if base.startswith("libcuda.so"):
            # under WSL2 the driver's library is the Windows driver's, in /usr/lib/wsl/lib: no GPU to attach
            out["driver_library_wsl" if facts.get("os_hint") == "wsl" else "driver_library"] = True
        else:
            cuda = facts.get("torch_cuda")
            wheels = ix.wheel_for_soname(base, cuda=cuda)
            if wheels and not cuda:             # no CUDA in the log: the newest CUDA's package first
                wheels = sorted(wheels, key=lambda w: _cuda_suffix(w.package), reverse=True)
            majors = {_cuda_suffix(w.package) for w in wheels}
            if wheels and not cuda and len(majors) > 1 and 0 not in majors:
                # one package per CUDA major (libnccl.so.2 is in nvidia-nccl-cu11, -cu12 and -cu13):
                # without torch's CUDA in the log, naming the newest would be a guess
                out["wheel_choice"] = ", ".join(f"`{p}`" for p in sorted({w.package for w in wheels}))
                wheels = []
            if wheels:
                out["wheel"] = wheels[0].package
                out["wheel_version"] = wheels[0].version
                out["wheel_path"] = wheels[0].path
                others = sorted({w.package for w in wheels} - {wheels[0].package})
                if others:
                    out["wheel_others"] = ", ".join(f"`{o}`" for o in others)
            cu = re.search(r"\.so\.(\d+)", base)
            torch_cuda = facts.get("torch_cuda")
            pkg = _frame_package(hit.info.get("raised_in")) if cu and base.startswith(_CUDA_MAJOR_LIBS) else None
            if pkg and not facts.get("rocm_shown"):
                # another package's compiled part (the traceback's last frame is its module) was built for this CUDA
                # major: a wheel made for one CUDA (nixl_ep of nixl-cu13 beside a CUDA 12 torch, kaito-project/kaito#2086)
                out["ext_cuda_pkg"] = pkg
                out["ext_cuda_major"] = cu.group(1)
                if any(f.startswith("vllm/") for f in facts.get("frames") or []):
                    out["ext_cuda_via_vllm"] = True
            if cu and torch_cuda and base.startswith(_CUDA_MAJOR_LIBS):
                if cu.group(1) != torch_cuda.split(".")[0]:
                    out["lib_cuda_major"] = cu.group(1)
                    out["torch_cuda"] = torch_cuda
                    if hit.info.get("vllm_ext") and not facts.get("rocm_shown"):
                        # vLLM's own extension wants another CUDA than torch's: the vLLM build and torch disagree;
                        # a second CUDA runtime beside torch's is no fix (vllm#1738: 0.2.2's CUDA 12 wheel, torch +cu118)
                        out.update(_vllm_cuda_builds(ix, facts, torch_cuda))
                        for key in ("wheel", "wheel_version", "wheel_path", "wheel_others", "wheel_choice"):
                            out.pop(key, None)
                    else:
                        out["cuda_major_mismatch"] = True
    if hit.info.get("pynccl"):
        out["pynccl"] = True
        # the file is the one the user named in VLLM_NCCL_SO_PATH: the variable is the thing to change
        if facts.get("vllm_nccl_so_path"):
            out["nccl_so_path_set"] = facts["vllm_nccl_so_path"]
            out.pop("wheel_choice", None)
    if m.shape == "failed_to_map":
        out["as_limit"] = set_limit(facts, "v")
        if "not permitted" in (g.get("reason") or ""):
            out["loader_noexec"] = True
    if m.shape in ("undefined_symbol", "symbol_lookup_error"):
        sym = g.get("symbol") or ""
        symbol_lib = g.get("symbol_lib") or ""
        if not re.fullmatch(r"lib[\w.+-]*\.so(?:\.\d+)*", symbol_lib):
            symbol_lib = ""         # a version node (GLIBCXX_3.4.29, OPENSSL_3.0.0) names no library
        if symbol_lib:
            out["symbol_lib"] = symbol_lib
        if symbol_lib.startswith(_CUDA_MAJOR_LIBS) and not facts.get("rocm_shown"):
            # the symbol's version tag is a CUDA library's soname (", version libcudart.so.12"): the needing file was
            # built against a newer release of that CUDA library than the copy loaded, within the same CUDA major
            out["cuda_lib_symbol"] = True
            wheels = ix.wheel_for_soname(symbol_lib, cuda=facts.get("torch_cuda"))
            if wheels:
                out["symbol_wheel"] = wheels[0].package
        if re.fullmatch(r"nccl[A-Z]\w{1,60}", sym):
            # NCCL's C API: the libnccl this process loaded is older than the code calling it was built for
            out["nccl_symbol"] = True
        if re.fullmatch(r"cu(?!File)[A-Z]\w{1,60}", sym):
            # the CUDA driver API (cuTensorMapEncodeTiled, cuGetProcAddress): libcuda.so.1, the driver's own library;
            # the CUDA the driver runs says whether it is too old for it. Not cuFile's (cuFileDriverOpen, GPUDirect
            # Storage's libcufile.so, which KvikIO and NIXL load): the CUDA libraries' other APIs are lower case
            # (cublas, cudnn, cufft), cuFile's alone is not
            out["driver_symbol"] = True
            if facts.get("driver_cuda"):
                out["symbol_driver_cuda"] = facts["driver_cuda"]
        if re.match(r"_Z(?:NK?|T[ISV])?St", sym):
            # namespace std (std::__exception_ptr::exception_ptr::_M_release, std::__throw_bad_array_new_length):
            # the C++ standard library's, which the libstdc++.so.6 that was loaded does not define
            out["std_symbol"] = True
        if re.match(r"_ZN(?:K)?(?:\d+c10|2at|5torch|\d+caffe2)", sym) or re.match(r"_ZN3c10|_ZN2at|_ZN5torch", sym):
            out["torch_symbol"] = True
            ext = _extension_module(g.get("library") or "")
            if ext:
                out["ext_module"] = ext
                if ext.startswith("flash_attn"):
                    # a flag, set only when true: `{?name}` keeps a paragraph for any value the log gave, False too
                    out["ext_flash_attn"] = True
            version = facts.get("vllm_version")
            pin = ix.pin(str(version), "torch") if version else None
            if pin:
                out["torch_pin"] = pin
                out["pin_vllm"] = version
    return out


def _vllm_cuda_builds(ix, facts: dict, torch_cuda: str) -> dict:
    """The two ways to make vLLM's build and torch agree on CUDA: the torch this vLLM release pins (and the CUDA of
    its PyPI build, from the index), or a vLLM wheel built for torch's CUDA (a `+cu118`-style local tag)."""
    out = {"vllm_ext_cuda": True, "torch_cuda_tag": "cu" + torch_cuda.replace(".", "")}
    version = facts.get("vllm_version")
    pin = ix.pin(str(version), "torch") if version else None
    if pin:
        out["vllm_torch_pin"] = pin
        out["pin_vllm"] = version
        m = re.match(r"==\s*([\w.]+)$", pin)
        cuda = ix.torch_cuda(m.group(1)) if m else None
        if cuda:
            out["pin_torch_cuda"] = cuda
            out["pin_torch_cuda_tag"] = "cu" + cuda.replace(".", "")
    return out


# the CUDA toolkit's libraries whose soname carries the CUDA major version (libcudart.so.12, libcublas.so.13)
_CUDA_MAJOR_LIBS = ("libcudart", "libcublas", "libnvrtc", "libcusparse", "libcufft", "libcurand", "libcusolver",
                    "libnvJitLink")
# packages whose failing import is not another package's wheel: vLLM's and torch's own (their paragraphs answer them)
_NOT_EXT_PACKAGE = frozenset({"vllm", "torch", "torchvision", "torchaudio"})


def _frame_package(raised_in: str | None) -> str | None:
    """The installed package whose module raised the loader's error (the frame printed right above it,
    `.../site-packages/nixl_ep/__init__.py` → nixl_ep), when that frame is in site-packages and is not vLLM's or
    torch's: the package whose compiled part failed to load. A script's own folder (`python -c` or a notebook
    importing `scripts/x.py`) is no installed package."""
    package = site_package(raised_in or "")
    return None if package in _NOT_EXT_PACKAGE else package


# torch's own libraries and vLLM's own extensions: the torch-symbol advice (reinstall the torch vLLM pins) is theirs
_TORCH_LIB = LazyRe(r"^lib(?:torch|c10|caffe2|shm)\w*\.so")
_VLLM_EXT = LazyRe(r"(?:^|[/\\])vllm[/\\]|^_(?:C|moe_C|rocm_C|vllm_fa\d?_C|flashmla_C)\.")
_SITE = LazyRe(r"[/\\](?:site|dist)-packages[/\\](?P<rel>.+)$")


def _extension_module(library: str) -> str | None:
    """The Python extension module a torch-symbol failure belongs to, when it is another package's
    (flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so → flash_attn_2_cuda, xformers/_C.so → xformers._C):
    an extension built for another torch than the one installed."""
    if _TORCH_LIB.match(re.split(r"[/\\]", library)[-1]) or _VLLM_EXT.search(library):
        return None
    site = _SITE.search(library)
    parts = re.split(r"[/\\]", site.group("rel") if site else library)
    m = re.match(r"([A-Za-z_]\w*)\.(?:cpython-\d+|abi3|so\b)", parts[-1])
    if not m:
        return None
    module = ".".join(parts[:-1] + [m.group(1)]) if site else m.group(1)
    return None if module.split(".")[0] == "torch" else module


def _cuda_suffix(package: str) -> int:
    m = re.search(r"-cu(\d+)$", package)
    return int(m.group(1)) if m else 0


# --- errno ------------------------------------------------------------------------------------------------------

# errno names with hand-written advice in the rule's text (a `{?errno_<name>}` paragraph each, lower case)
ERRNO_ADVISED = {"ENOSPC", "EMFILE", "ENFILE", "EACCES", "EPERM", "EROFS", "ENOENT", "ENOMEM", "ECONNREFUSED",
                 "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EADDRINUSE", "ENOTDIR", "EBUSY",
                 "ENOSYS", "EXDEV", "EDQUOT", "EFBIG"}
_HOME_CACHE = LazyRe(r"^(?P<home>.*?)[/\\](?P<dot>\.cache|\.config|\.triton|\.nv)(?=[/\\]|$)")


# torch/_inductor/runtime/cache_dir_utils.py (cache_dir, default_cache_dir: TORCHINDUCTOR_CACHE_DIR, else
# <tmp>/torchinductor_<user>; read in torch 2.13) makes the folder, torch/_dynamo/package.py reads it at import
_INDUCTOR_CACHE_WRITERS = ("torch/_inductor/runtime/cache_dir_utils.py",)
# vLLM's torch.compile cache, <VLLM_CACHE_ROOT>/torch_compile_cache (compilation/backends.py, decorators.py)
_COMPILE_CACHE = LazyRe(r"[/\\]torch_compile_cache(?:[/\\]|$)")


def _default_dir(ix, variable: str):
    """The cache folder the index knows as `variable`'s default, as cache_of finds a path in it."""
    cache = ix.cache(variable)
    return ix.cache_dir_for(cache.default) if cache else None


def cache_of(ix, path: str):
    """The cache a path is in, and the home folder the path shows (the part before `.cache`), also
    for a home no layout knows ("/nonexistent/.cache/vllm", "/.cache")."""
    found = ix.cache_dir_for(path)
    home = None
    m = _HOME_CACHE.match(path)
    if m:
        home = m.group("home") or "/"
        if found is None or found.cache.variable == "XDG_CACHE_HOME":
            found = ix.cache_dir_for("~/" + path[len(m.group("home")):].lstrip("/\\")) or found
    return found, home


def _errno(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    err = hit.info["errno"]
    path = hit.info.get("path")
    out = {"errno_name": err.name, "errno_number": str(err.number), "strerror": err.strerror,
           "errno_exception": (err.exception or "OSError") if hit.info.get("raised") else None,
           "errno_source": err.source, "path": path}
    if err.name in ERRNO_ADVISED:
        out[f"errno_{err.name.lower()}"] = True
    if err.name in ("EDQUOT",):
        out["errno_enospc"] = True
    program = hit.info.get("program")
    if program and _ran_program(program, facts):
        out["errno_enoent"] = None        # a program to install or put on PATH, not a folder to create
        out["missing_program"] = program
    if hit.info.get("exec_program"):
        out["errno_eacces"] = None        # execute permission on a program, not write permission on a folder
        out["exec_program"] = hit.info["exec_program"]
        out["exec_interpreter"] = hit.info.get("exec_interpreter")
    port = _bind_port(c, facts) if err.name in ("EACCES", "EPERM") else None
    if port is not None:
        out["errno_eacces"] = out["errno_eperm"] = None   # a port to listen on, not a folder to write
        out["bind_refused"] = True
        out["bind_port"] = port or None
        out["bind_low_port"] = True if port and port < 1024 else None
        out["bind_high_port"] = True if port and port >= 1024 else None
    if path:
        found, home = cache_of(ix, path)
        writer = str(hit.info.get("writer") or "")
        if INDUCTOR_HEADERS.search(path) and ix.cache("TMPDIR"):
            # Inductor's precompiled headers: <tmp>/torchinductor_<user>/precompiled_headers whatever
            # TORCHINDUCTOR_CACHE_DIR says, so TMPDIR is what moves them
            tmp, found = ix.cache("TMPDIR"), None
            out.update({"inductor_headers": True, "cache_var": tmp.variable,
                        "cache_default": f"{tmp.default}/torchinductor_<user>/precompiled_headers",
                        "cache_what": "torch.compile's (Inductor's) precompiled C++ headers, in the temporary folder"})
        elif found is None and writer.startswith(_INDUCTOR_CACHE_WRITERS):
            # Inductor's own folder, moved with TORCHINDUCTOR_CACHE_DIR to a path with no layout of its own: the code that
            # made it says whose it is
            found = _default_dir(ix, "TORCHINDUCTOR_CACHE_DIR")
        elif (found is None or found.cache.variable == "XDG_CACHE_HOME") and writer.startswith("vllm/compilation/"):
            # vLLM's compilation makes its folders under VLLM_CACHE_ROOT (decorators.py, backends.py): a parent of
            # torch_compile_cache that could not be made ("<XDG_CACHE_HOME>/vllm", "~/.cache"); VLLM_CACHE_ROOT moves
            # it alone, XDG_CACHE_HOME with the others
            found = _default_dir(ix, "VLLM_CACHE_ROOT")
        if writer.startswith("vllm/compilation/") or _COMPILE_CACHE.search(path):
            out["compile_cache"] = True       # vLLM writing its torch.compile cache: a start without compiling writes none
        if found is not None:
            cache = found.cache
            out["cache_var"] = cache.variable
            out["cache_default"] = cache.default
            out["cache_what"] = cache.what
            movers = [v for v in cache.moved_by if v != cache.variable]
            out["cache_movers"] = ", ".join(f"`{v}`" for v in movers) if movers else None
        home = facts.get("home") or home
        if home:
            out["home"] = home
        if home in ("/", "~") or path.startswith(("~/", "/.cache")):
            out["home_unset"] = True          # HOME unset or "/": the caches resolve to "/.cache" or "./~"
    if hit.info.get("fd_ancdata"):
        out["fd_ancdata"] = True
    if err.name in ("EMFILE", "ENFILE"):
        rl = ix.rlimit("-n")
        out["rlimit_name"] = rl.name if rl else "RLIMIT_NOFILE"
        limit = (facts.get("rlimits") or {}).get("n")
        out["nofile_limit"] = limit
    if err.name == "ENOMEM":
        out["as_limit"] = set_limit(facts, "v")
        out.update(_weights_mapping(c, facts))
        out.update(_host_alloc(c, facts))
    # torch's shared-memory allocator (MapAllocator) names its files "</torch_<pid>_..>": an open that failed
    # for want of descriptors, or a mapping the kernel refused, is the sharing of tensors between processes
    if "</torch_" in c.message.text:
        out["torch_shm_file"] = True
    if facts.get("container"):
        out["container"] = facts["container"]
    return out


# A server socket the kernel would not bind: Python's `sock.bind(addr)` under vLLM's create_server_socket, or
# asyncio's "error while attempting to bind on address ('0.0.0.0', 80): permission denied" that uvicorn logs.
_BIND_FRAMES = (":create_server_socket", ":_create_server_socket", ":create_server", ":bind_socket")
_BIND_ADDRESS = LazyRe(r"error while attempting to bind on address \('[^']*', (?P<port>\d{1,5})\)")


def _bind_port(c, facts: dict) -> int | None:
    """The port a refused bind asked for (0 where the paste shows none), or None where no bind was refused."""
    m = _BIND_ADDRESS.search(c.message.text)
    if m:
        return int(m.group("port"))
    if not any(f.endswith(_BIND_FRAMES) for f in (facts.get("frames") or ())[-2:]):
        return None
    port = (facts.get("user_args") or {}).get("port")
    return int(port) if isinstance(port, int) or str(port).isdigit() else 0


# "[Errno 2] No such file or directory: 'ninja'": a bare name with no folder and no extension, where the traceback
# runs a program or the name is a tool vLLM's stack runs (FlashInfer's JIT runs `ninja`, torch's extension builder
# `ninja` and `nvcc`, vLLM's CPU worker `lscpu`), is what subprocess looked up on PATH. A relative file
# ('config.json') has its extension; a folder its slashes.
_RUNS_PROGRAMS = ("subprocess.py:", ":run_ninja", ":_run_ninja", ":check_output", ":_execute_child")
_TOOLS = frozenset({"ninja", "nvcc", "gcc", "g++", "cc", "c++", "clang", "clang++", "cmake", "make", "git",
                    "nvidia-smi", "lscpu", "numactl", "ldconfig", "hipcc", "rocm-smi", "amd-smi", "ptxas", "ray"})


def _ran_program(name: str, facts: dict) -> bool:
    return name in _TOOLS or any(r in f for f in facts.get("frames") or () for r in _RUNS_PROGRAMS)


# torch's MapAllocator mapping a checkpoint file whole ("unable to mmap 4965799096 bytes from file
# <.../model-00001-of-00002.safetensors>: Cannot allocate memory (12)"), or safetensors' own mapping in newer
# releases, a bare "MemoryError: Cannot allocate memory (os error 12)" under vLLM's weight iterator
_CHECKPOINT_MMAP = LazyRe(r"unable to mmap (\d+) bytes from file <([^<>]{1,400}\.(?:safetensors|bin|pt|pth|ckpt))>")
_WEIGHTS_FRAME = LazyRe(r"model_loader/weight_utils\.py:\w*(?:safetensors|weights_iterator)")


def _weights_mapping(c, facts: dict) -> dict:
    """ENOMEM mapping a checkpoint file while vLLM loads weights: the file and its size in GiB, where torch says."""
    m = _CHECKPOINT_MMAP.search(c.message.text)
    if m:
        return {"weights_mmap": True, "weights_file": m.group(2), "mmap_gib": round(int(m.group(1)) / 2**30, 2)}
    if "os error 12" in c.message.text and any(_WEIGHTS_FRAME.search(f) for f in facts.get("frames") or []):
        return {"weights_mmap": True}
    return {}


# torch's CPU allocator refusing one allocation (c10/core/impl/alloc_cpu.cpp: "DefaultCPUAllocator: can't allocate
# memory: you tried to allocate N bytes. Error code 12 (Cannot allocate memory)"; Windows builds say "not enough
# memory"): host RAM, never GPU memory. On vLLM's CPU backend the largest such allocation is the KV cache itself,
# sized from --gpu-memory-utilization as a fraction of the NUMA node's RAM (vllm/v1/worker/cpu_worker.py
# determine_available_memory, 0.32), which an address-space limit or a container's limit below that RAM refuses.
_CPU_ALLOC = LazyRe(r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (\d+) bytes")
_CPU_WORKER_FRAME = LazyRe(r"^vllm/v1/worker/cpu_(?:model_runner|worker)\.py:")
_KV_ALLOC_FRAME = LazyRe(r":(?:allocate_kv_cache\w*|_allocate_kv_cache\w*|initialize_kv_cache\w*)$")


def _host_alloc(c, facts: dict) -> dict:
    """ENOMEM from torch's CPU allocator: the size asked for in GiB, and whether it was the CPU backend's KV cache."""
    m = _CPU_ALLOC.search(c.message.text)
    if not m:
        return {}
    out = {"host_alloc_gib": round(int(m.group(1)) / 2**30, 2)}
    frames = facts.get("frames") or []
    if any(_CPU_WORKER_FRAME.search(f) for f in frames) and any(_KV_ALLOC_FRAME.search(f) for f in frames):
        out["cpu_kv_alloc"] = True
    elif any(_WEIGHTS_FRAME.search(f) for f in frames):
        out["weights_host_alloc"] = True
    return out


# --- pip-conflict -------------------------------------------------------------------------------------------------

def _pip_conflict(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    conflict = hit.info["conflict"]
    vllm = conflict["by_version"]
    package = conflict["package"]
    out = {"pin_vllm": vllm, "pin_package": package, "pin_required": conflict["required"] or None,
           "pin_have": conflict["have"]}
    markers = list(dict.fromkeys(x["marker"] for x in hit.info.get("conflicts", ()) if x.get("marker")))
    if markers:
        out["pin_marker"] = ", ".join(f"`{m}`" for m in markers[:4])
    # a nightly or local build is not the release of its numbers: main moves its pins (torch above all)
    # before the next release is cut, so the index's pins speak only for releases
    release = not _DEV_BUILD.search(vllm)
    pins = ix.pins(vllm) if release else {}
    if pins.get(package) and not out["pin_required"]:
        out["pin_required"] = pins[package]
    user = hit.info.get("user")
    if user and user["required"]:
        out["pin_wanted"] = user["required"]
    other = hit.info.get("other")
    if other:
        out["pin_other"] = f"{other['by']} {other['by_version']}"
        out["pin_other_required"] = other["required"]
    want = (out.get("pin_have") or (user or {}).get("required", "").lstrip("=")
            or (other or {}).get("required", "").lstrip("=") or "").split("+")[0]
    if package == "torch":
        out["pin_is_torch"] = "yes"
        ngc = next((v for v in (out.get("pin_have"), (user or {}).get("required"), (other or {}).get("required"))
                    if v and _NGC_TORCH.search(v)), None)
        if ngc:
            out["ngc_torch"] = ngc.lstrip("=")
            out["ngc_release"] = _NGC_TORCH.search(ngc).group(1)
    if package == "torch" and want and re.match(r"^\d+\.\d+", want):
        fits = releases_pinning(ix, "torch", want)
        if fits:
            out["fitting_vllm"] = _span(fits)
        cuda = ix.torch_cuda(want)
        if cuda:
            out["wanted_cuda"] = cuda
    # a range (transformers `<5,>=4.56.0`) has releases inside it to go back to; an exact pin is the release
    # itself, which paragraph 1 installs
    required = str(out.get("pin_required") or "")
    if required and not required.startswith(("==", "===")) and re.match(r"^[<>!~]", required):
        out["pin_range_fix"] = required
    m = ix.manifest(vllm) if release else {}
    if m.get("torch") and package != "torch":
        out["pin_torch"] = m["torch"]
    others = [f"`{x['package']}{x['required']}`" for x in hit.info.get("conflicts", ())
              if x["package"] != package and x["required"]][:4]
    if others:
        out["other_pins"] = ", ".join(others)
    return out


_DEV_BUILD = LazyRe(r"\.dev|\+g[0-9a-f]")
# the torch NVIDIA builds into its NGC PyTorch containers: a pre-release of the next torch with the commit and the
# container's release as its local tag ("2.6.0a0+ecf3bae40a.nv25.01"); no `torch==X` pin of vLLM takes it
_NGC_TORCH = LazyRe(r"\d+\.\d+\.\d+a0\+(?:[0-9a-f]{7,}\.)?nv(\d{2}\.\d{1,2})\b")


def releases_pinning(ix, package: str, version: str) -> list[str]:
    """The vLLM releases whose pin of `package` is exactly `version` (its numbers)."""
    want = version.split("+")[0]
    out = []
    for release in ix.vllm_releases():
        spec = ix.pins(release).get(package, "")
        if spec.startswith("==") and spec[2:].split("+")[0] == want:
            out.append(release)
    return out


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]} – {releases[-1]}"


# --- stack-site ---------------------------------------------------------------------------------------------------

def _stack_site(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    m = hit.info["match"]
    site = m.site
    where = site.latest_where()
    rels = site.releases
    out = {"site_package": hit.info["package"], "site_exc": site.exc, "site_file": where["file"],
           "site_function": where["function"], "site_line": str(where["line"]),
           "site_release": where["release"], "site_releases": _span(rels) if rels else None,
           "site_condition": where.get("condition") or None}
    classes = ix.exception_class(site.exc)
    if classes and classes[0].bases:
        out["site_bases"] = ", ".join(f"`{b}`" for b in classes[0].bases)
    if m.captures:
        shown = [f"`{k[:40]}` = `{str(v)[:80]}`" for k, v in list(m.captures.items())[:4] if str(v).strip()]
        out["site_captured"] = ", ".join(shown) if shown else None
    envs = []
    for name in re.findall(r"\b(HF_[A-Z_]+|HUGGINGFACE_[A-Z_]+|TRANSFORMERS_[A-Z_]+)\b", c.message.text):
        if ix.env_var(name) and name not in envs:
            envs.append(name)
    if envs:
        out["site_env"] = ", ".join(f"`{e}`" for e in envs)
    return out


# --- signal ----------------------------------------------------------------------------------------------------------

def _signal(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    sig = hit.info["signal"]
    return {"signal_name": sig.name, "signal_number": sig.number, "signal_description": sig.description,
            "signal_exit_code": sig.exit_code, "signal_returncode": sig.returncode,
            "signal_" + sig.name.lower(): True, "by_" + hit.info["reporter"]: True,
            "signal_after_done": hit.info.get("after_done") or None}


# --- unit-exit -------------------------------------------------------------------------------------------------------

# the man page's pointer to the setting it describes higher up the page ("See WorkingDirectory= above.")
_SEE_ABOVE = LazyRe(r" above\.$")


def _unit_exit(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    rec = hit.info["record"]
    unit = process_end.UNIT_NAME.search(c.message.text)
    command = process_end.UNIT_COMMAND.search(c.message.text)
    return {"unit_status": rec.number, "unit_status_name": rec.name, "unit_status_symbol": rec.symbol,
            "unit_status_text": _SEE_ABOVE.sub(" (`man systemd.exec`).", rec.text),
            "unit_exit_" + rec.name.lower(): True, "unit_name": unit.group("unit") if unit else None,
            "unit_command": command.group("command") if command else None}


# --- import-name, attribute-name -----------------------------------------------------------------------------------

def _found_values(ix, hit: Hit, c, facts: dict, lang: str) -> dict:
    # import_names.history() / attribute_names.history(), computed when the message was found
    return dict(hit.info["values"])


_FILLERS = {"error-code": _error_code, "loader": _loader, "errno": _errno, "pip-conflict": _pip_conflict,
            "stack-site": _stack_site, "hub-http": _found_values, "import-name": _found_values, "attribute-name": _found_values,
            "module-missing": _found_values, "call-signature": _found_values, "signal": _signal,
            "unit-exit": _unit_exit}
