"""Where a native crash struck, for a first error no rule answers: faulthandler's fatal signal with the Python frame
it stood in, abseil's or glog's crash report with the native function. Named, never explained: the site is a fact of
the paste, its cause is not."""

from __future__ import annotations

from bot.base.lazyre import LazyRe
from bot.diagnose.answering.report import RootError, text
from bot.diagnose.reading import tracebacks
from bot.diagnose.reading.facts.traceback_frames import site_package

# torch's own Python layers that call into compiled code on another package's behalf (an op's dispatch, a module's
# call): the package whose code called them is the one that crashed
_DISPATCH = ("torch", "functorch")


# The library a native function is of, by the prefix its name carries (a C++ namespace, a C API's own prefix): only
# those whose names say it; a plain C name ("addProxyOpIfNeeded") is named alone.
_NATIVE_OWNERS = LazyRe(r"(?P<torch>(?:c10|at|torch|caffe2|c10d)::)|(?P<nccl>p?nccl[A-Z]\w*\b)|(?P<mscclpp>mscclpp::)"
                        r"|(?P<cuda_driver>cu[A-Z][a-z]\w*\b)|(?P<cuda_runtime>cuda[A-Z]\w*\b)|(?P<ray>ray::)"
                        r"|(?P<vllm>vllm::)|(?P<flashinfer>flashinfer::)|(?P<ucx>uc[pts]_\w+\b)")
_OWNER_NAMES = {"torch": "PyTorch", "nccl": "NCCL", "mscclpp": "MSCCL++", "cuda_driver": "the CUDA driver",
                "cuda_runtime": "the CUDA runtime", "ray": "Ray", "vllm": "vLLM", "flashinfer": "FlashInfer",
                "ucx": "UCX"}
_OWNER_NAMES_ZH = {**_OWNER_NAMES, "cuda_driver": "CUDA 驱动", "cuda_runtime": "CUDA 运行时"}


def _owner(func: str, lang: str = "en") -> tuple[str | None, str | None]:
    """(the owner's key, the library's name in `lang`) a native function's name says it is of; (None, None) for a plain
    name."""
    owner = _NATIVE_OWNERS.match(func)
    names = _OWNER_NAMES_ZH if lang == "zh" else _OWNER_NAMES
    return (owner.lastgroup, names[owner.lastgroup]) if owner else (None, None)


def _native_site(paste: str, root: RootError, lang: str, facts: dict) -> str:
    """The function abseil's or glog's crash report names, for a first error that is its banner ("*** SIGSEGV received
    at time=..."), in a log that shows vLLM (another program's crash report stays unanswered): named without a cause."""
    if not root.text.startswith("*** ") or not facts.get("vllm_context"):
        return ""
    report = tracebacks.crash_report(paste, root.line_no)
    if report is None:
        return ""
    signal, func, struck = report
    func = func.split("(", 1)[0] or func      # the name, without a demangled signature's arguments
    _, library = _owner(func, lang)
    key = ("native_crash_pc" if struck else "native_crash_frame") + ("_lib" if library else "")
    return text(key, lang, signal=signal, func=func, library=library)


# abseil's report that names no function (every frame "(unknown)") is followed, in the same process, by faulthandler's
# (Ray's workers and vLLM's processes enable both): the Python frame that one shows is where the crash struck. Only
# a faulthandler report this close below the banner is the same crash's (Ray prints the banner and its frames twice).
_SAME_CRASH_LINES = 60


def _report_after(paste: str, line_no: int) -> str:
    """The lines from the crash banner on line `line_no` to where faulthandler's report of the same crash may begin."""
    starts = tracebacks.line_starts(paste)
    if not 0 < line_no <= len(starts):
        return ""
    end = starts[line_no - 1 + _SAME_CRASH_LINES] if line_no - 1 + _SAME_CRASH_LINES < len(starts) else len(paste)
    head = paste.find("Fatal Python error: ", starts[line_no - 1], end)
    return paste[head:] if head >= 0 else ""


# The libraries whose function is rarely the fault itself where it crashes on the host: CUDA's own calls (a copy, a
# launch) are handed their pointers and sizes by their caller, which the answer names beside them
_CALLED_INTO = ("cuda_driver", "cuda_runtime")


def _tvm_site(paste: str, root: RootError, lang: str, facts: dict) -> str:
    """The function tvm_ffi's crash report names first ("!!!!!!! Segfault encountered !!!!!!!", FlashInfer's library
    installs its handler), and for a CUDA call the function that called it: named without a cause. A bare paste
    counts (the report is the process's own), another program's log does not."""
    if not root.text.startswith(tracebacks.TVM_CRASH_BANNER) or not facts.get("stack_context"):
        return ""
    names = tracebacks.tvm_crash_report(paste, root.line_no)
    if not names:
        return ""
    func = names[0]
    owner, library = _owner(func, lang)
    if owner in _CALLED_INTO and len(names) > 1:
        return text("native_crash_top_called", lang, signal="SIGSEGV", func=func, library=library, caller=names[1])
    return text("native_crash_top_lib" if library else "native_crash_top", lang, signal="SIGSEGV", func=func,
                library=library)


def _ucx_site(paste: str, root: RootError, lang: str, facts: dict) -> str:
    """The first function UCX's crash report names below its own handler ("Caught signal 11 (Segmentation fault: ...)",
    then "==== backtrace (tid: N) ===="), in a log that shows vLLM (NIXL's transfers load UCX; MPI and other programs'
    reports stay unanswered): named without a cause."""
    if "Caught signal" not in root.text or not facts.get("vllm_context"):
        return ""
    report = tracebacks.ucx_crash_report(paste, root.line_no)
    if report is None or not report[1]:
        return ""
    signal, names = report
    func = names[0]
    _, library = _owner(func, lang)
    return text("native_crash_frame_lib" if library else "native_crash_frame", lang, signal=signal, func=func,
                library=library)


def crash_site(paste: str, root: RootError, lang: str, facts: dict) -> str:
    """Where Python stood when native code crashed, for a first error that is faulthandler's fatal signal: the innermost
    frame of an installed package other than torch's dispatch (else the innermost frame), named without a cause; for
    abseil's or glog's crash report, the native function it names (_native_site)."""
    native = _native_site(paste, root, lang, facts) or _tvm_site(paste, root, lang, facts) \
        or _ucx_site(paste, root, lang, facts)
    if native:
        return native
    if root.text.startswith("Fatal Python error: "):
        fault = tracebacks.fault_frames(paste)
    elif root.text.startswith("*** ") and facts.get("vllm_context"):
        fault = tracebacks.fault_frames(_report_after(paste, root.line_no))
    else:
        fault = None
    if not fault or not fault[1]:
        return ""
    signal, frames = fault
    owned = [(f, site_package(f[0])) for f in frames]
    (path, line, func), package = next(((f, p) for f, p in owned if p and p not in _DISPATCH), (frames[0], None))
    short = path.split("-packages/", 1)[-1]
    if package:
        return text("native_crash_pkg", lang, signal=signal, path=short, line=line, func=func, package=package)
    return text("native_crash", lang, signal=signal, path=short, line=line, func=func)
