"""vLLM's own run, from its log lines: how many engines a process started and where each run begins, the phase it had
reached when it ran out of memory, a stop asked for, an offline batch and whether it was done, the engine core's
silence or a native crash report, and its warnings (an unknown VLLM_* variable, a max_model_len past the model's).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.diagnose.reading.proc_tags import PROC_QUALIFIER
from bot.diagnose.reading.tracebacks import TVM_CRASH_BANNER

from .patterns import _P, _per_paste


# The lines vLLM logs as its start-up goes on, each the start of a phase (weights, profiling, capture) or its end (the
# weights loaded: profiling comes next), the server's readiness and the requests served; "processing method" /
# "Error executing method" name the worker method a V0 worker (multiproc, Ray) ran when it failed. Checked in the
# releases' own log calls (0.6.3, 0.8.5, 0.10.2, 0.32): model_runner.py / gpu_model_runner.py, weight_utils.py,
# worker.py, kv_cache_utils.py; uvicorn prints "Application startup complete".
_PHASE_LINES = (
    ("weights", r"Loading (?:safetensors|pt|np_cache) checkpoint shards|Starting to load model "),
    ("loaded", r"Loading (?:model )?weights took|Model loading took"),
    ("mm_profile", r"Encoder cache will be initialized with a budget|Starting profile run for multi-modal models"),
    ("profiled", r"Memory profiling takes|# (?:GPU|cuda) blocks: \d|Available KV cache memory: |GPU KV cache size: "),
    ("graph_capture", r"Capturing (?:cudagraphs|the model for CUDA graphs)|Capturing CUDA graph(?: shapes|s \()"),
    ("captured", r"Graph capturing finished"),
    ("serving", r"Application startup complete|Starting vLLM API server|Avg prompt throughput: |"
                r"Processed prompts: +\d+%\|[^|]*\| *[1-9]"),
)
_PHASE_LINE = LazyRe("|".join(f"(?P<{k}>{rx})" for k, rx in _PHASE_LINES))
_WORKER_METHOD = LazyRe(r"(?:while processing method|Error executing method '?)(\w{1,60})")
_OOM_SHOWN = LazyRe(r"(?:CUDA|HIP) out of memory|OutOfMemoryError|CUDA error: out of memory")
_OOM_WORDS = ("out of memory", "OutOfMemoryError")     # in every form _OOM_SHOWN takes: a paste without them is not read


def phase_marks(text: str) -> dict:
    """Where vLLM's run had got to when it ran out of memory, from its log lines: the last phase line before the
    last out-of-memory message (any, where the message comes first, as a pasted title does), and the worker
    methods the log says failed ("method:<name>", read like a frame by the phase reader)."""
    if not any(w in text for w in _OOM_WORDS):
        return {}
    ooms = [m.start() for m in _OOM_SHOWN.finditer(text)]
    if not ooms:
        return {}
    last = None
    for m in _PHASE_LINE.finditer(text):
        if m.start() > ooms[-1] and last is not None:
            break
        last = m.lastgroup
    methods = list(dict.fromkeys(f"method:{name}" for name in _WORKER_METHOD.findall(text)))
    return {"phase_line": last, "phase_methods": methods[:8]}


_PROC_TAG = LazyRe(r"\((?:[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")?) pid=(\d+)")


# A server prints one of these when its process starts: what follows is another process, even
# when the paste carries no pid tags (several `vllm serve` attempts pasted one after another).
# Newer servers tag every line with their pid, which tells processes apart by itself.
_SERVER_START = ("vLLM API server version", "vLLM server version", "args: Namespace(")


def _positions(text: str, markers) -> list[int]:
    """Where each of the markers occurs in the text, in order."""
    found = []
    for marker in markers:
        pos = text.find(marker)
        while pos >= 0:
            found.append(pos)
            pos = text.find(marker, pos + len(marker))
    return sorted(found)


def _server_starts(text: str) -> list[int]:
    return _starts_of(text)[0]


# What an engine prints when it starts. vLLM's V1 engine prints the same "with config: model=" again
# when a request crashes it ("Dumping input data for V1 LLM engine (v0.9.1) with config: model=..."):
# that is the running engine reporting its inputs, not a new one.
_ENGINE_START = ("non-default args:", "with config: model=")
_NOT_A_START = "Dumping input data"


def _engine_start_lines(text: str) -> list[tuple[str, int]]:
    """(marker, offset of the line start) of every line that starts an engine, in the order printed."""
    return _starts_of(text)[1]


# Found once per paste: engine_starts, run_starts (twice, for the ranking) and stopped_spans each ask for them, and
# each search is a pass over the whole paste (1-2 ms of a megabyte)
@_per_paste
def _starts_of(text: str) -> tuple[list[int], list[tuple[str, int]]]:
    return _positions(text, _SERVER_START), _find_engine_start_lines(text)


def _find_engine_start_lines(text: str) -> list[tuple[str, int]]:
    found = []
    for marker in _ENGINE_START:
        pos = text.find(marker)
        while pos >= 0:
            line_start = text.rfind("\n", 0, pos) + 1
            if text.find(_NOT_A_START, line_start, pos) < 0:
                found.append((marker, line_start))
            pos = text.find(marker, pos + len(marker))
    return found


def engine_starts(text: str) -> int:
    """How many engines one process started: two in one process explains a 'no memory' error.

    Each process is keyed by its pid tag when the line has one; untagged lines share one key
    (the offline `LLM()` script's own process) until a server's start banner begins a new one.
    """
    cuts = _server_starts(text)
    counts: Counter = Counter()
    per_marker: dict[str, Counter] = {m: Counter() for m in _ENGINE_START}
    for marker, line_start in _engine_start_lines(text):
        tag = _PROC_TAG.search(text, line_start, text.find(marker, line_start))
        run = bisect.bisect_left(cuts, line_start)          # which server start this line follows
        per_marker[marker][tag.group(1) if tag else f"run{run}"] += 1
    for per_proc in per_marker.values():
        for proc, n in per_proc.items():
            counts[proc] = max(counts[proc], n)
    return max(counts.values(), default=0)


def run_starts(text: str) -> list[int]:
    """Line numbers (1-based) where a run begins: a server's start banner or an engine start. An
    error and a wrapper with one of these between them belong to different attempts."""
    offsets = sorted({*_server_starts(text), *(start for _, start in _engine_start_lines(text))})
    lines, counted, at = [], 1, 0
    for off in offsets:
        counted += text.count("\n", at, off)
        at = off
        lines.append(counted)
    return lines


# The file a failed write was for, where the writer names it (vLLM's atomic writer; Python's OSError
# names only the files it opens): a full disk's answer says which cache it was.
_FAILED_WRITE = [_P(r"Error during atomic write\. Original file '([^'\n]+)' not modified")]

# max_model_len forced past the model's own length with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: vLLM then only warns (0.10.2+:
# "... must be used with extreme caution"; earlier a WARNING record ending "Make sure the value is correct and within
# the model context size", which before 0.5.4 was the refusal's own text, hence the record's level).
_LONG_LEN = _P(r"(WARNING\b[^\n]{0,200})?User-specified max_model_len \((\d+)\) is greater than the derived max_model_len "
               r"\((?:None=|(\w[\w.]*)=)(\d+)(?:\.\d+)?[^)\n]{0,80}\)[^\n]{0,80}?(VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used)?",
               literals=("User-specified max_model_len (",))


def unknown_vllm_env(text: str) -> list[str]:
    """The `VLLM_*` names vLLM warned it does not know ("Unknown vLLM environment variable detected: X"), as set."""
    if "Unknown vLLM environment variable" not in text:
        return []
    return list(dict.fromkeys(re.findall(r"Unknown vLLM environment variable detected: (VLLM_\w+)", text)))[:20]


def long_max_model_len(text: str) -> dict | None:
    """The length asked for and the model's own, where vLLM let the first exceed the second."""
    m = _LONG_LEN.search(text)
    if not m or not (m.group(1) or m.group(5)):
        return None
    return {"requested": m.group(2), "key": m.group(3) or "max_position_embeddings", "derived": m.group(4)}


# An offline batch: LLM.generate's progress bars (it renders every prompt, images included, before the engine runs
# them), or LLaMA-Factory's batch script around it
_OFFLINE_BATCH = _P(r"(?:Processed|Rendering) prompts:|Adding requests:", literals=(" prompts:", "Adding requests:"))


def offline_batch(text: str, low: str) -> str | None:
    """"vllm_infer" where the paste runs LLaMA-Factory's scripts/vllm_infer.py, "yes" where it shows LLM.generate's
    progress over a batch of prompts: the host RAM the batch's prepared inputs hold is then the run's own."""
    if "vllm_infer" in low:
        return "vllm_infer"
    return "yes" if _OFFLINE_BATCH.search(text) else None


_SHUTDOWN_ASKED = ("[shutdown] EngineCore: trigger received signal", "[shutdown] EngineCore: start mode=",
                   "[shutdown] API server: shutdown triggered")
# a stop the user asked for by a signal (Ctrl-C, docker stop, kill): the API server's handler of SIGINT and SIGTERM
# (vllm/entrypoints/launchers/launcher.py, 0.32), the engine core's of SIGINT, which only a terminal or a person sends
# (its SIGTERM is also its parent's at an exit of any kind, a crash's included); and Docker Compose's word on the Ctrl-C
# its `up` was given (it then stops the containers: SIGTERM, and SIGKILL past its timeout, "exited with code 137")
_STOP_ASKED = ("[shutdown] API server: shutdown triggered", "[shutdown] EngineCore: trigger received signal=SIGINT",
               "Gracefully stopping... (press Ctrl+C again to force)")


def stopped_spans(text: str) -> list[tuple[int, int]]:
    """The 1-based lines [from, to) where the log shows a run after someone stopped it with a signal, up to the next
    run's start: what it printed there is the teardown's (a worker or engine core that the same Ctrl-C ended, a front-end
    that reports its engine dead, a handler's SystemExit), not the run's error."""
    # every stop and every start found once: a restart loop pasted whole (a stop and a start per run) would otherwise
    # search the rest of the paste again for each run
    stops = _positions(text, _STOP_ASKED)
    if not stops:
        return []
    starts = sorted([*_server_starts(text), *(at for _, at in _engine_start_lines(text))])
    spans, counted, line, end = [], 0, 1, 0       # (lines counted once, from where the last span ended)
    for at in stops:
        if at < end:
            continue                # a second stop of the same run (the API server's, then its engine core's)
        after = bisect.bisect_right(starts, at)
        end = starts[after] if after < len(starts) else len(text)
        start = line + text.count("\n", counted, at)
        line, counted = start + text.count("\n", at, end), end
        spans.append((start, line if end < len(text) else 1 << 30))
    return spans


# the client's watch on its engine core saw it go (vllm/v1/engine/core_client.py: an ERROR in 0.10.1 - 0.19, a WARNING
# from 0.23 on, which a log at VLLM_LOGGING_LEVEL=WARNING keeps)
_CLIENT_SAW_EXIT = ("[shutdown] MPClient: engine core exited unexpectedly", "died unexpectedly, shutting down client")
_BATCH_DONE = regex_cache.compile(r"Processed prompts: +100%\|[^|\n]*\| *(\d+)/(\d+)\b")


def batch_done_at_exit(text: str) -> bool:
    """LLM.generate's batch had finished (its last progress bar at n/n) when the client saw its engine core go, and
    nothing ran after (no other batch, no traceback): the script's own exit. A log at VLLM_LOGGING_LEVEL=WARNING
    lacks the engine core's INFO records of the shutdown it was asked for (_SHUTDOWN_ASKED), and the client's watch
    may see the exit first."""
    at = max(text.rfind(s) for s in _CLIENT_SAW_EXIT)
    if at < 0:
        return False
    after = text[at:]
    return batch_done_before(text, at) and "Traceback (most recent call last)" not in after \
        and " prompts:" not in after and "Adding requests:" not in after


def batch_done_before(text: str, at: int) -> bool:
    """Whether the last LLM.generate progress bar before offset `at` reached n/n."""
    bar = text.rfind("Processed prompts:", 0, at)
    done = _BATCH_DONE.match(text, bar) if bar >= 0 else None
    return done is not None and done.group(1) == done.group(2)


# a line of vLLM's engine core process or of one of its workers, as vLLM tags their output: "(EngineCore pid=1752) ",
# "(EngineCore_DP0 pid=87) ", "(Worker_TP1 pid=90) ", "(VllmWorker TP0 pid=88) "
_ENGINE_PROC_TAG = r"^\(((?:EngineCore|Worker|VllmWorker)\w*(?: " + PROC_QUALIFIER + r")?) pid=(\d+)\) ?"
# the engine core's start (its "... with config: model=" record), and such a line that reports an error of its process's
# own: a record at ERROR or CRITICAL, a traceback, an exception's last line, a failed start, a native crash's words
# (each one search of the whole paste: a Python step per tagged line cost 40 ms on a 1 MB log of restarts)
_ENGINE_PROC_LINE = LazyRe(_ENGINE_PROC_TAG + r"(.*)", re.M)
_ENGINE_PROC_ERROR = LazyRe(r"(?:ERROR|CRITICAL)\b|Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)\b"
                            r"|Fatal Python error|.*(?:[Ss]egmentation fault|core dumped|terminate called|failed to start)")
# the words such an error's line holds somewhere, found first with str.find (a tagged line is read only there: a Python
# step per tagged line, or one regex of all the words, cost 15-40 ms on a 1 MB log of restarts)
_ERROR_WORDS = ("ERROR", "CRITICAL", "Traceback (most", "Error", "Exception", "Fatal Python", "egmentation fault",
                "core dumped", "terminate called", "failed to start")


# A crash report of a fatal signal, printed by the process that died as it died (to its stderr, so without vLLM's process
# tag): tvm_ffi's SIGSEGV handler (apache-tvm-ffi, which FlashInfer and xgrammar load, installs it over faulthandler's:
# src/ffi/backtrace.cc, TVMFFISegFaultHandler), CPython's faulthandler, abseil's or glog's banner, UCX's "Caught signal"
NATIVE_CRASH_REPORT = LazyRe(r"^[^\n]{0,200}?(?:(?P<tvm>" + re.escape(TVM_CRASH_BANNER) + ")"
                              r"|Fatal Python error: (?P<fault>Segmentation fault|Bus error|Aborted|Illegal instruction"
                              r"|Floating point exception)\s*$|\*\*\* (?P<absl>SIG[A-Z]{2,6}) (?:received at time=|\(@)"
                              r"|Caught signal \d{1,2} \((?P<ucx>Segmentation fault|Bus error|Aborted|Illegal instruction)[:)])", re.M)
_FAULT_SIGNALS = {"Segmentation fault": "SIGSEGV", "Bus error": "SIGBUS", "Aborted": "SIGABRT",
                  "Illegal instruction": "SIGILL", "Floating point exception": "SIGFPE"}


def native_crash_report(text: str) -> str | None:
    """The signal ("SIGSEGV") of the first crash report of a fatal signal the paste shows: the process that printed it
    died in native code, whatever vLLM's own lines say of its death afterwards."""
    if not any(s in text for s in ("Segfault encountered", "Fatal Python error: ", "*** SIG", "Caught signal ")):
        return None
    m = NATIVE_CRASH_REPORT.search(text)
    if m is None:
        return None
    if m.group("tvm"):
        return "SIGSEGV"
    return m.group("absl") or _FAULT_SIGNALS[m.group("fault") or m.group("ucx")]


def engine_core_silent(text: str, crash=...) -> str | None:
    """The engine core's tag ("EngineCore pid=1752") where the paste shows that process from its start (its
    "... with config: model=" record) and neither it nor a worker printed an error: an engine core that died so had no
    word to say (SIGKILL, the kernel's OOM killer's signal, or a native crash whose message went elsewhere). `crash`,
    native_crash_report's answer where the caller has it."""
    if "EngineCore" not in text or "with config: model=" not in text:
        return None
    if native_crash_report(text) if crash is ... else crash:
        return None                     # (a crash report is a word: printed untagged, to the dying process's stderr)
    at = text.find("with config: model=")
    while at >= 0:
        m = _ENGINE_PROC_LINE.match(text, text.rfind("\n", 0, at) + 1)
        if m and m.group(1).startswith("EngineCore"):
            break
        at = text.find("with config: model=", at + 1)
    if at < 0:
        return None
    if any(_tagged_error(text, word) for word in _ERROR_WORDS):
        return None
    return f"{m.group(1)} pid={m.group(2)}"


def _tagged_error(text: str, word: str) -> bool:
    """Whether a line holding `word` is the engine core's or a worker's, reporting an error of its own."""
    at = text.find(word)
    while at >= 0:
        line = _ENGINE_PROC_LINE.match(text, text.rfind("\n", 0, at) + 1)
        if line and _ENGINE_PROC_ERROR.match(line.group(3)):
            return True
        end = text.find("\n", at)
        at = text.find(word, end) if end >= 0 else -1
    return False
