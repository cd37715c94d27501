"""Cut a clean log into error *messages*, in the order they were printed.

A message is one log record, or one exception line with the lines that continue it (text wrapped
by a terminal, pydantic's field lines). Wrappers that quote the real error are unwrapped, so the
inner text is matched on its own: vLLM's "Worker failed with error '...'", pydantic's
"Value error, ...", and the tuple-shaped RuntimeError some quantization code raises.

Only lines that hold an error keyword are looked at closely: in a long paste one Aho-Corasick pass
over the lower-cased text (its UTF-8 bytes when it is not ASCII) finds them, and only those
lines and their neighbours are ever cut out of the text; their headers are peeled, their Markdown
and colour codes dropped, there. So a 10 MB paste of INFO lines costs less than a grep.
"""

from __future__ import annotations

import functools
import re

from bot.base import regex_cache
from bot.base.lazyre import LazyRe

from bot.base.record import Record

from .jsonlog import REQUEST_LOG
from .logtext import ANSI as _COLOUR
from .logtext import WRAP_WIDTHS
from . import process_end
from .process_end import OOM_END, PROCESS_END, TERMINATED_STATE, UNIT_EXIT, unit_exit
from .proc_tags import PROC_QUALIFIER

# journalctl's short formats ("Aug 15 18:15:59 host vllm[8707]: ", short-precise, short-iso): time, host and the unit's
# identifier with its pid (always there for a service; without it "2025-05-16T04:56:18Z ERROR x.y: " would read as a
# host and a name). The time to the second and the source are kept apart (_JOURNAL_STAMP): the lines a program wrote
# at once share them, so a line stamped at another second or by another source is a record of its own.
JOURNALD = r"""(?:(?P<jtime>[A-Z][a-z]{2}[ ]{1,2}\d{1,2}[ ]\d\d:\d\d:\d\d)(?:\.\d{1,6})?
          | (?P<jiso>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d{1,6})?(?:Z|[+-]\d\d:?\d\d))
        [ ](?P<jsource>[\w.-]{1,64}[ ][^\s\[\]:]{1,64}\[\d{1,10}\]):[ ]?"""
# What a log collector or a copy puts before each line it relays (docker compose, journald, kubectl, Ray's tags, a
# Markdown quote): part of _PREFIX, and what facts.collected_bare takes off a paste whose lines all carry one. Verbose.
COLLECTORS = r"""
        [ \t]*[\w.-]{1,40}[ \t]+\|[ \t]?                                   # docker compose "svc-1  | "
      # journalctl's (before the bare ISO time, which would leave "host vllm[8707]: " behind)
      | """ + JOURNALD + r"""
      | \[(?:pod/[\w.-]{1,253}/[\w.-]{0,63}|node/[\w.-]{1,253})\][ ]            # kubectl logs --prefix "[pod/NAME/CONTAINER] "
      | [ \t]*\((?P<proc>[A-Za-z_][\w-]*(?:[ ]""" + PROC_QUALIFIER + r""")?[ ]pid=\d+)(?:,[ ]ip=[\d.:a-f]+)?\)[ \t]*  # vLLM/Ray tag
      # Ray's tag of a task with no actor's name ("(pid=45601) ", "(pid=45601, ip=10.0.0.12) ") and of its own
      # daemons' output relayed to the driver ("(raylet) ", "(raylet, ip=10.0.0.12) ", "(autoscaler +2m3s) ")
      # (the autoscaler is a process of its own: its line is never the tail of the record above it; the raylet also
      # relays other processes' output, whose lines go on under its tag)
      # (and a line under such a tag that the record above lacks is never its tail: _untold_tag)
      | [ \t]*\((?:pid=\d+|raylet|gcs_server|(?P<daemon>autoscaler)(?:[ ]\+[\w.]{1,20})?)(?:,[ ]ip=[\d.:a-f]+)?\)[ \t]*
      | [ \t]*>[ ](?=\S)                                                      # a markdown quote
"""

# Prefixes that wrap a log line; peeled off in a loop because they stack
# ("vllm-1  | (EngineCore_DP0 pid=12) ERROR 11-09 12:00:00 [core.py:12] ...").
_PREFIX = LazyRe(
    r"^(?:" + COLLECTORS + r"""
      | [ \t]*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]*  # ISO time
      | [ \t]*\[rank\d+\]:[ \t]?                                          # torch elastic
      | [ \t]*[│|┃][ \t]?                                                   # kubectl / Lens box
      | (?:\[?(?P<glevel>[IWEF])\d{3,4}[ ]\d\d:\d\d:\d\d\.\d+[ ]+(?:\d+[ ])?|\[(?P<g2level>[IWEF])[ ])[\w.-]+:\d+\][ ]*  # glog (torch c10d, NCCL; gRPC's bare; torch 2.3's undated)
      | [ \t]*[\w.-]{1,80}:\d+:\d+[ ]\[\d+\][ ]NCCL[ ](?P<nlevel>INFO|TRACE)[ ]   # NCCL_DEBUG output: debugging, its failures are WARN
      # after a date: Ray's C++ log ("[%Y-%m-%d %H:%M:%S,%e %L %P %t] %v", ray/src/ray/util/logging.cc) and its source,
      # "E 812 812] logging.cc:447: " (its level not read: it relays what native code printed, a crash report's lines)
      | [TDIWEC][ ]\d+[ ]\d+\][ ](?:[\w.-]+:\d+:[ ])?
      | [\w.]+[ ]\d+[ ]+(?P<xlevel>DEBUG|INFO|WARNING|ERROR|CRITICAL)[ ]+       # after a date: "xinference.core.model 822191 ERROR"
      | -[ ][\w.]+[ ]-[ ](?P<llevel>DEBUG|INFO|WARNING|ERROR|CRITICAL)[ ]-[ ]  # after a date: logging "- name - LEVEL - "
      | (?P<dlevel>DEBUG|INFO|WARNING|ERROR|CRITICAL)[ ]+\d+[ ]+\[[^\]\s]+:\d+\][ \t]?   # after a date: "LEVEL pid [file:line]"
      | [ \t]*(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)[ \t]+\d\d-\d\d[ ]\d\d:\d\d:\d\d(?:\.\d+)?[ \t]+\[?[^\]\s]+:\d+\][ \t]?
      | [ \t]*(?P<ulevel>INFO|ERROR|WARNING|CRITICAL):[ \t]+                 # uvicorn "ERROR:    ..."
      | [ \t]*(?P<plevel>ERROR|WARNING|CRITICAL):[\w.]+:                      # logging default "ERROR:root:"
    )""",
    re.X,
)

# An exception's name and message. A bare `Exception: msg` (vLLM raises `Exception(...)` at a few
# dozen sites) needs its colon: "Exception in thread ..." and "Exception ignored in ..." are not one.
EXCEPTION_LINE = LazyRe(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Fault|Failure)"
    r"|Exception(?=:)))"
    r"(?::[ \t]*(?P<msg>.*)|[ \t]*$)"
)
_FRAME = LazyRe(r"^\s*(?:File \"|\^+\s*$|~+\^*~*\s*$)")
_CHAIN = LazyRe(r"^(?:Traceback \(most recent call last\)|During handling of the above exception|"
                r"The above exception was the direct cause|\s*\+-)")

# Words that mark a line worth a closer look, searched in the lower-cased text with str.find, which
# is several times faster than one regex alternation over a large paste. Rules with `scope: any`
# match WARNING records; their messages must hold one of these words (the fixtures check it).
# Phrases that are both: an error line with no other keyword (pip's and uv's resolvers, the loader's
# "x.so: undefined symbol: ...", argparse's "not recognized").
_BOTH = ("conflict is caused by", "not recognize", "undefined symbol", "no solution found when resolving",
         # failures that are said without an error word: the NVIDIA CUDA image's banner for a container that got no
         # driver ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available."),
         # and nvidia-smi's "No devices were found" (the driver loaded and sees no GPU)
         "driver was not detected", "no devices were found",
         # NCCL's InfiniBand transport reporting a work request the adapter completed with an error status ("NET/IB : Got
         # completion from peer 10.0.0.2<44206> with status=12 opcode=0 len=0 vendor err 129 (Recv)"): it prints it only then
         "got completion from peer")
KEYWORDS = ("error", "exception", "traceback", "fail", "critical", "fatal", "killed", "abort",
            "segmentation fault", "timed out", "no available", "exceed", "too old", "died", "is restricted",
            "unauthorized", "permission denied", "(src/",
            # the ways out of a program that EXCEPTION_LINE reads and no other keyword holds: a short paste is read
            # line by line and has them; a long one must too (Ctrl-C's traceback under a stalled request is its cause)
            "keyboardinterrupt", "systemexit",
            # the kernel's OOM report ("python invoked oom-killer", "oom-kill:constraint=...") and docker
            # compose's last word on a container ("vllm-1 exited with code 137")
            "oom-kill", "exited with code", "oom_reaper:",
            # what runs the process says of its end (process_end.py): an IDE's "... (interrupted by signal 11:SIGSEGV)",
            # systemd's "code=dumped, status=11/SEGV", docker's "Exited (139) 2 minutes ago" and "ExitCode": 139,
            # kubectl describe's "Last State:     Terminated"
            *process_end.KEYWORDS,
            # the kubelet evicting a pod for the node's memory or disk ("The node was low on resource: memory.")
            "low on resource",
            # Triton's OutOfResources (its class name ends in no Error; "triton.runtime.autotuner." has no keyword)
            "out of resource",
            # the GPU's own reports (gpu_report): the NVIDIA driver's Xid line, nvidia-smi's failures
            "xid (", "no devices were found", "device handle for gpu", "err!",
            # the shell's "Killed" in the locale's words (_NATIVE), as the lower-cased UTF-8 bytes hold them
            "已杀死", "強制結束", "強制終了", "죽었음", "getötet", "Убито", *_BOTH)


@functools.cache
def _keyword_scan():
    """One pass of an Aho-Corasick automaton over the lower-cased bytes finds every keyword: the
    Rust aho-corasick crate behind ahocorasick_rs scans a megabyte in about 0.1 ms with its SIMD
    prefilter, where one str.find per keyword took 7 ms. Leftmost-first matching is what the
    prefilter needs; one match per line is all that is asked. Built (and imported) on the first
    long paste: a short one is read line by line and never needs it."""
    import ahocorasick_rs
    return ahocorasick_rs.BytesAhoCorasick([k.encode() for k in KEYWORDS],
                                           matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST)

# Words that make a line read like an error; substring tests on the lower-cased line are much
# faster than a regex alternation (and re.I would make that ten times slower again).
ERROR_WORDS = ("error", "exception", "failed", "failure", "fatal", "cannot", "can't", "unable",
               "not supported", "unsupported", "out of memory", "killed", "segmentation fault",
               "aborted", "timed out", "exceed", "invalid", "does not exist", "no such file",
               "no module", "not found", "is not valid", "insufficient", "too old", "must be",
               "at most ", "no available", "died", "not allowed", "larger than", "greater than",
               "longer than", "smaller than", "is restricted", "unauthorized", "permission denied",
               "too many open files", "no space left", "cannot allocate memory", "bad file descriptor",
               "out of resource", "oom-kill", "exited with code", "low on resource", "oom_reaper:",
               # pip's resolver on a line of its own ("vllm 0.8.5 requires torch==2.6.0, but you have torch
               # 2.7.0 which is incompatible."), pasted without its "ERROR: pip's dependency resolver" header
               "which is incompatible",
               # pip's and a person's words for the same refusal ("pip install vllm fails with No matching distribution
               # found for torch==2.5.1"): no other error word in the line
               "no matching distribution", "fails with",
               # the text of an uncaught C++ exception, on the line under "terminate called after throwing":
               # std::system_error says only strerror ("what():  Resource temporarily unavailable")
               "what():", *_BOTH)

# The shell's "Killed" in the locale's words (glibc's strsignal(SIGKILL): zh_CN, zh_TW, ja, ko, de, ru, es)
KILLED_IN_LOCALES = r"已杀死|強制結束|強制終了|죽었음|Getötet|Убито|Terminado \(killed\)"
# What runs the process says of its end, where a signal or a limit ended it (PROCESS_END), or where the OOM killer did
# (OOM_END), and kubectl describe's block for a container that ended (TERMINATED_STATE): process_end.py writes each
# reporter's wording, with its source, once for the reader and the stack's signal family
# What native code prints to stderr as it dies, with no Python exception: libzmq's check
# ("Too many open files (src/epoll.cpp:38)", "Assertion failed: ok (src/mailbox.cpp:99)"), the
# shell's report of a signal ("Killed", "Segmentation fault (core dumped)"), a C++ abort, CPython's
# fatal error. Above a process death (exit code -6, -9) such a line is what the death is answered from.
_NATIVE = LazyRe(
    r"^(?:(?:Assertion failed: .{1,200}|[A-Z][a-z][\w ,']{2,60}) \(src/[\w/.-]{1,80}\.(?:cpp|hpp|cc|c|h):\d+\)"
    r"|(?:[\w/.-]+: line \d+: +\d+ |\[\d+\][+-]? +)?(?:Killed|Segmentation fault|Bus error|Aborted|Illegal instruction|"
    r"Floating point exception)(?: ?\(core dumped\))?(?: {2,}\S.{0,200})?"
    # (bash pads the words to a column the longest fills: "Floating point exceptionpython x.py")
    r"|(?:[\w/.-]+: line \d+: +\d+ |\[\d+\][+-]? +)Floating point exception(?: ?\(core dumped\))?\S.{0,200}"
    # zsh's words for the same: "zsh: killed     python x.py", a job's "[1]    123 killed     vllm serve"
    r"|(?:zsh: |\[\d+\] +\d+ )(?:killed|segmentation fault|bus error|abort|illegal hardware instruction)"
    r"(?: \(core dumped\))? +\S.{0,200}"
    # the shell's "Killed" in the locale's words (glibc's strsignal(SIGKILL): zh_CN, zh_TW, ja, ko, de, ru, es), bash's
    # "line N:" too in zh_CN ("bash: 第 3 行：1234 已杀死   python x.py")
    r"|(?:[\w/.-]+: line \d+: +\d+ |[\w/.-]+: 第 \d+ 行：\d+ |\[\d+\][+-]? +)?"
    r"(?:" + KILLED_IN_LOCALES + r")(?: {2,}\S.{0,200})?"
    # the same words where the shell wrote them at the end of a progress bar the kill cut short (tqdm ends no line):
    # "...25.85 toks/s]Killed", "...2.83s/it]./run.sh: line 3:  7026 Killed   python x.py"
    r"|.{1,600}?(?:/s|s/it)\](?:[\w/.-]+: line \d+: +\d+ |[\w/.-]+: 第 \d+ 行：\d+ )?"
    r"(?:Killed|" + KILLED_IN_LOCALES + r")(?: {2,}\S.{0,200})?"
    r"|Fatal Python error: .{1,200}"
    # ROCm's HIP runtime, finding no code object for the GPU as the library loads, before it aborts
    r"|\"?hipErrorNoBinaryForGpu: .{1,200}"
    # ROCm's HSA runtime, catching a GPU kernel's page fault before it aborts the process ("Memory access fault by GPU
    # node-2 (Agent handle: 0x..) on address 0x... Reason: Page not present or supervisor privilege.")
    r"|Memory access fault by GPU node-\d+ .{1,300}"
    # the HIP runtime's own log line ":0:rocdevice.cpp   :2984: 3178446713 us: [pid:2189 tid:0x..] Callback: Queue
    # 0x.. aborting with error : HSA_STATUS_ERROR_...": written straight to stderr, so it follows a vLLM record;
    # levels 0 and 1 only (AMD_LOG_LEVEL's errors; 3 and 4 are its info and debug lines)
    r"|:[01]:\w+\.(?:cpp|hpp|h) *:\d+ *: \d+d? us: .{1,400}"
    r"|terminate called after throwing an instance of .{1,200}"
    # abseil's failure handler (Ray's workers): "*** SIGSEGV received at time=1712345678 on cpu 3 ***"; glog's:
    # "*** SIGSEGV (@0x0) received by PID 17711 (TID 0x7f89...) from PID 0; stack trace: ***" (crash_report)
    r"|\*\*\* (?:SIG[A-Z]{2,6}|Signal \d{1,2}) (?:received at time=|\(@(?:0x)?[0-9a-f]{1,16}\) received by PID ).{0,200}"
    # tvm_ffi's SIGSEGV handler (apache-tvm-ffi, which FlashInfer loads: src/ffi/traceback.cc, TVMFFISegFaultHandler),
    # above its native frames (tvm_crash_report)
    r"|!!!!!!! Segfault encountered !!!!!!!"
    # UCX's error handler (ucs/debug/debug.c, ucs_debug_handle_error_signal: "Caught signal %d (%s: %s%s)", strsignal,
    # the cause, " at address %p"; its fatal-log head "[host:pid:thread:tid] " before it), above its backtrace
    r"|(?:\[[^\]\n]{1,100}\] +)?Caught signal \d{1,2} \([A-Z][\w ]{2,40}: [^\n]{1,200}\))$"
    # what runs the process reports of its end, below its output (PROCESS_END): a line of its own, never the tail of the
    # record above it
    r"|(?:" + PROCESS_END + r")$")
# Words every such line has: a line without any is not matched at all (most lines of every paste).
_NATIVE_WORDS = ("(src/", "Killed", "Segmentation fault", "Bus error", "Aborted", "Illegal instruction",
                 "已杀死", "強制結束", "強制終了", "죽었음", "Getötet", "Убито", "Terminado (killed)",
                 "killed", "segmentation fault", "bus error", "abort", "illegal hardware",
                 "Floating point exception", "Fatal Python error", "terminate called", "*** SIG", "*** Signal ",
                 "hipErrorNoBinaryForGpu", "Memory access fault by GPU",
                 " us: ", "Segfault encountered", "Caught signal",
                 *process_end.NATIVE_WORDS)


# The GPU's own reports beside a program's log: the NVIDIA kernel driver's Xid line from dmesg or the journal ("[ 812.3]
# NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.": an Xid number after the GPU's PCI address,
# read from where "NVRM:" or "Xid" starts, whatever dmesg or journalctl put before it), and nvidia-smi's failures: no
# GPU at all ("No devices were found"), a GPU it cannot open ("Unable to determine the device handle for GPU
# 0000:3B:00.0: Unknown Error", "...: GPU is lost.  Reboot the system to recover this GPU"), a table row whose readings
# are "ERR!". Each is a line of its own: never a continuation of the message above it, nor continued by the next.
XID_REPORT = r"Xid \((?:PCI:)?[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?\): (?P<code>\d{1,3})\b"
_GPU_REPORT = LazyRe(r"(?:NVRM: )?" + XID_REPORT + r".{0,400}$"
                     r"|^No devices were found\.?$"
                     r"|^Unable to determine the device handle for GPU ?[0-9A-Fa-f:.]{7,16}: .{1,200}$"
                     r"|^\|.{0,120}\bERR!.{0,200}$")
_GPU_REPORT_WORDS = ("Xid (", "No devices were found", "device handle for GPU", "ERR!")


def gpu_report(line: str) -> str | None:
    """The GPU's own report a line holds (_GPU_REPORT), from where it starts; None for any other line."""
    if not any(w in line for w in _GPU_REPORT_WORDS):
        return None
    m = _GPU_REPORT.search(line)
    return m.group().strip() if m else None


def is_native(line: str) -> bool:
    """Whether a line is one native code printed as it died (_NATIVE)."""
    return any(w in line for w in _NATIVE_WORDS) and _NATIVE.match(line) is not None


# vLLM's report of the inputs of the step that failed (vllm/logging_utils/dump_input.py, 0.9+, logged at ERROR
# before the step's traceback: "Dumping input data for V1 LLM engine (v0.10.1) with config: ...", "Dumping
# scheduler output for model execution: SchedulerOutput(...)", "Dumping scheduler stats: ..."; 0.9.0 printed the
# SchedulerOutput(...) bare): a dump of the batch, not an error of its own. The error is the traceback after it.
_INPUT_DUMP = LazyRe(r"(?:Dumping (?:input data for V1 LLM engine|scheduler output for model execution|scheduler stats)"
                     r"|Scheduler(?:Output|Stats)\()")
_REQUEST_LINE = LazyRe(REQUEST_LOG)


def is_input_dump(m: "Message") -> bool:
    """Whether a message is vLLM's dump of a failed step's inputs (_INPUT_DUMP): never the error itself."""
    return _is_dump(m.exc_type, m.text)


def _is_dump(exc_type: str | None, text: str) -> bool:
    return exc_type is None and _INPUT_DUMP.match(text) is not None


# The loader's word that it skipped a library LD_PRELOAD names ("ERROR: ld.so: object '/x.so' from LD_PRELOAD cannot be
# preloaded (cannot open shared object file): ignored."): printed by every process of a run that then goes on, so it
# is no error (tcmalloc or libiomp5 preloads that vLLM's CPU guide suggests, copied to a host that lacks them).
_PRELOAD_IGNORED = LazyRe(r"ld\.so: object .{1,400}? from LD_PRELOAD cannot be preloaded \([^)]*\): ignored")


def reads_like_error(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in ERROR_WORDS)

# pydantic's errors as Python reprs ("[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error,
# ...', 'input': {...}}]"): what vLLM's API server (and FastAPI's 422) answered for a request it
# refused, relayed by the client. The message ends where its 'msg' string does.
_ERROR_DICT_MSG_END = r"""['"],[ ]['"]input['"]:"""
# vLLM's executor relays a worker's exception as its own RuntimeError; the inner text is the error.
RELAY = LazyRe(r"Worker failed with error (?P<q>['\"])(?P<inner>.+?)(?P=q),? please check the stack trace")
# The error body vLLM's OpenAI-compatible server answers with, as a client prints it: JSON
# (`{"error":{"message":"top_p must be in (0, 1], got 1.5. ...","code":400}}`, curl) or a Python
# repr (`Error code: 400 - {'object': 'error', 'message': '...'}`, the openai SDK). The message is
# vLLM's own text.
_ERROR_BODY = LazyRe(r"""['"]message['"]\s*:\s*(?P<q>["'])(?P<inner>(?:\\.|(?!(?P=q))[^\\]){8,4000}?)(?P=q)"""
                     r"""(?=\s*[,}])""")
# Only vLLM's own bodies: it names the exception class (`"type":"BadRequestError"`) or, before
# 0.10, says `'object': 'error'`; OpenAI's hosted API words some messages the same way but types
# them in snake case (`"invalid_request_error"`), and its errors are not vLLM's.
_VLLM_BODY = LazyRe(r"""['"]object['"]\s*:\s*['"]error['"]|['"]type['"]\s*:\s*['"][A-Z]\w*(?:Error|Exception)['"]""")
_UNWRAP = [
    RELAY,
    _ERROR_BODY,
    regex_cache.compile(r"Value error, (?P<inner>.+?)(?: \[type=value_error|%s|$)" % _ERROR_DICT_MSG_END),
    regex_cache.compile(r"Assertion failed, (?P<inner>.+?)(?: \[type=assertion_error|%s|$)" % _ERROR_DICT_MSG_END),
]
_TUPLE_ARGS = LazyRe(r"^\((?:'[^']*',?\s*)+\)$")
# An exception raised with a logger's arguments, `ValueError("The quantization method %s is deprecated
# ...", self.quantization)` (vLLM 0.14+ config/model.py), prints as the tuple of its arguments:
# `('The quantization method %s is deprecated ...', 'fbgemm_fp8')`. The message is the first string
# with the others put in, as the logger would have.
_PRINTF_TUPLE = LazyRe(r"^\((?P<q>['\"])[^\n]*?%[sdrif][^\n]*(?P=q),\s*.+\)$")
_PRINTF_FIELD = LazyRe(r"%[-+ 0#]*\d*(?:\.\d+)?[sdrifgx]")


def printf_tuple(body: str) -> str | None:
    """`('text with %s', 'x')` → `text with x`; None for anything else."""
    if len(body) > MAX_MESSAGE_CHARS or _PRINTF_TUPLE.match(body) is None:
        return None
    try:
        import ast          # here, not at import: rare, and `ast` costs a cold start 2-3 ms
        args = ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    if not (isinstance(args, tuple) and len(args) >= 2 and isinstance(args[0], str)):
        return None
    if len(_PRINTF_FIELD.findall(args[0].replace("%%", ""))) != len(args) - 1:
        return None
    try:
        return args[0] % args[1:]
    except (TypeError, ValueError):
        return None

MAX_MESSAGES = 2000
MAX_CONTINUATION = 12
MAX_MESSAGE_CHARS = 4000
# A short paste is often just the message, without "ValueError:" or a log header: every line of it
# is worth matching. Long logs are cut down to their error lines first.
SHORT_PASTE_CHARS = 64 * 1024


class Message(Record):
    line_no: int            # 1-based line of the cleaned text
    text: str               # headers removed, continuation lines joined with single spaces
    level: str | None = None
    proc: str | None = None
    exc_type: str | None = None
    is_error: bool = False
    inner: bool = False     # unwrapped from a wrapper's text
    plain: bool = False     # a bare line of a short paste: no header, no error word, still worth matching
    header: str = ""        # the raw line's prefixes (tag, level, time, source): one log record repeats them
    native: bool = False    # a line native code printed as it died (_NATIVE): no exception, still a cause
    cut: bool = False       # the last frame of a traceback the paste ends in, cut before its exception
    py_warning: bool = False  # Python's warnings module printed it ("x.py:46: UserWarning: ..."): the run went on
    handled: bool = False   # an exception an `except` caught: "During handling of the above exception" follows it


# The way out of a program, not an error: a bare SystemExit (a signal handler's, sys.exit()) and Ctrl-C's KeyboardInterrupt
_EXITS = ("SystemExit", "KeyboardInterrupt")


def an_exit(m: Message) -> bool:
    name = (m.exc_type or "").rsplit(".", 1)[-1]
    return name in _EXITS and m.text.split(":", 1)[-1].strip() in ("", "0", name)


# The usual vLLM line in one match: "(EngineCore_DP0 pid=12) ERROR 11-09 12:00:00 [core.py:12] msg".
_VLLM_LINE = LazyRe(
    r"(?:\((?P<proc>[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")? pid=\d+)(?:, ip=[\d.:a-f]+)?\) ?)?"
    r"(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[^\]\s]+:\d+\] ?"
)


# A vLLM record header inside a line: a paste that lost its line breaks runs its records together
# ("ERROR ... [core.py:515]   ^^^^^ ERROR ... [core.py:515] OSError: ..."); the last record is the message.
_INNER_RECORD = LazyRe(r"(?<=\s)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]\s]+:\d+\] ")

MAX_LINE_CHARS = 8192
# the opening line of a traceback logger.exception prints after its message ("EngineCore failed to start.
# Traceback (most recent call last):"): the record's exception comes in the lines below it
_OPENS_TRACEBACK = LazyRe(r"Traceback \(most recent call last\):?\s*$")
# the process tag of the next record, left at the end of a record that ran into it
_TRAILING_TAG = LazyRe(r"\s*\((?:[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")? pid=\d+)(?:, ip=[\d.:a-f]+)?\)\s*$")


def _record_in_line(rest: str, level: str | None = None) -> tuple[int, int] | None:
    """Where the message begins in a line whose records ran together (a paste that lost its line breaks): at the
    last record; but where that record only opens a traceback whose lines are not on this line, the record before it
    that raised an exception is the error ("torch.OutOfMemoryError: ... ERROR ... [core.py:1100] EngineCore failed to
    start. Traceback (most recent call last):"). Its (start, end) in the line; start 0 is the line's own first record."""
    starts = [m.start() for m in _INNER_RECORD.finditer(rest)]
    if not starts:
        return None
    last = _peel_headers(rest[starts[-1]:])[2].strip()
    # the last record opens a traceback, or is one of its frames ('File "...", line 446,'), cut off by the line's end
    if _OPENS_TRACEBACK.search(last) or _FRAME.match(last):
        spans = list(zip([0, *starts], starts))
        bodies = [_TRAILING_TAG.sub("", _peel_headers(rest[a:b])[2].strip()) for a, b in spans]
        for (a, b), body in reversed(list(zip(spans, bodies))):
            if EXCEPTION_LINE.match(body):
                return a, b
        # the line's own first record, no header of its own: torch's message printed bare before the records the
        # paste ran into it ("HIP out of memory. Tried to allocate 64.00 MiB. ...      ERROR 07-04 14:53:23
        # [engine.py:458] Traceback (most recent call last): ...", nlzy/vllm-gfx906#14)
        if (level not in ("DEBUG", "INFO", "WARNING") and bodies[0] and not _FRAME.match(bodies[0])
                and reads_like_error(bodies[0])):
            return spans[0]
    return starts[-1], len(rest)


def strip_prefixes(line: str) -> tuple[str | None, str | None, str]:
    """Return (process tag, level, message) of one raw line."""
    proc, level, rest = _peel(line)
    return proc, level, rest.strip()


# What a person adds around a line they paste into Markdown or chat: quote markers, list bullets and
# numbers, and emphasis or inline code around the rest of the line (GitHub `**...**`, `__...__`,
# `*...*`, Slack `*bold*`, `` `code` ``). A cheap test of the line's first characters comes first:
# almost no log line starts that way, and a frame's code is indented deeper than three spaces.
_FORMAT_LEAD = LazyRe(r"[ \t]{0,3}(?:>|[-+*\u2022][ \t]|\d{1,3}[.)][ \t]|\*|__|`|~~)")
# (Python's REPL prompt, ">>> ", is kept: the command typed at it is a line of its own, see _command; an exception
# line under three quote marks is no command)
_QUOTE_OR_LIST = LazyRe(r"[ \t]{0,3}(?:(?!>>> (?![A-Za-z_][\w.]*(?:Error|Exception|Warning):))>(?:[ \t]|(?=\S))"
                        r"|[-+*\u2022][ \t]+|\d{1,3}[.)][ \t]+)+")
_WRAPPED = LazyRe(r"(\*\*|\*|__|`+|~~)(?=\S)(?P<inner>.+?)(?<=\S)\1[.:;,!?\u3002\uff1a\uff0c]?[ \t]*")
# A short emphasized label before the line: "**Error:** ValueError: ...", "*Log*: ...".
_LABEL = LazyRe(r"(\*\*|\*|__)[^*_:\n]{1,30}(?::\1|\1:)[ \t]+(?=\S)")
# An exception quoted inside a sentence: "I get `ValueError: ...` when loading".
_SPAN_EXCEPTION = LazyRe(r"(`+|\*\*)(?P<inner>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*"
                         r"(?:Error|Exception|Exit|Interrupt|Fault|Failure)(?::[^`*]*)?)\1")


def _unformat(line: str) -> str:
    """The line without the Markdown or chat formatting around it, nor the carriage return a
    terminal printed as "^M" at its end."""
    if line.endswith("^M"):
        line = line[:-2]
    if "m" in line and "[" in line:
        line = _COLOUR.sub("", line)
    # (abseil's failure handler frames its signal in stars, "*** SIGBUS received at time=... ***": no emphasis)
    if not _FORMAT_LEAD.match(line) or line.startswith("*** "):
        return line
    m = _QUOTE_OR_LIST.match(line)
    if m:
        line = line[m.end():]
        if line.startswith("*** "):     # a crash banner quoted ("> *** SIGSEGV received at time=... ***")
            return line
    m = _LABEL.match(line)
    if m:
        line = line[m.end():]
    for _ in range(3):                  # "**`ValueError: ...`**"
        w = _WRAPPED.fullmatch(line)
        if not w or (w.group(1) == "__" and " " not in w.group("inner")):   # __init__ is a name
            break
        line = w.group("inner")
    if line[:1] == "`":                 # a code span opened here and closed lines below: "`[rank0]: ..."
        rest = line.lstrip("`")
        if "`" not in rest:
            line = rest
    return line


def exception_in_span(body: str) -> str | None:
    """The exception line a sentence quotes in inline code or bold, if any."""
    m = _SPAN_EXCEPTION.search(body) if ("`" in body or "**" in body) else None
    return m.group("inner").strip() if m else None


def _peel(line: str) -> tuple[str | None, str | None, str]:
    """(process tag, level, the rest with its indentation): a traceback's source lines are indented."""
    return _peel_headers(_unformat(line[:MAX_LINE_CHARS]))


def _peel_headers(line: str) -> tuple[str | None, str | None, str]:
    m = _VLLM_LINE.match(line)
    if m:
        rest = line[m.end():]
        if not rest.startswith(("(", "[", "|", "│")):
            return m.group("proc"), m.group("level"), rest
    proc = level = None
    for _ in range(6):
        m = _PREFIX.match(line)
        if not m or m.end() == 0:
            break
        proc = m.group("proc") or m.group("daemon") or proc
        level = (m.group("level") or m.group("ulevel") or m.group("plevel") or m.group("llevel")
                 or m.group("dlevel") or m.group("xlevel") or _GLOG.get(m.group("glevel") or m.group("g2level"))
                 or ("DEBUG" if m.group("nlevel") else None) or level)
        line = line[m.end():]
    return proc, level, line


_GLOG = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "CRITICAL"}
def _header(line: str) -> str:
    """The prefixes of a raw line (tags, level, time, source), without the message."""
    line = _unformat(line[:MAX_LINE_CHARS])
    return line[: len(line) - len(_peel_headers(line)[2].lstrip())]


# An exception named after other words on its line: "7b-model: torch.cuda.OutOfMemoryError: ...",
# "in _swap_out raise RuntimeError( RuntimeError: ...", "发送图片预估报错ValueError: ...". Not after a
# letter, digit or dot (a CJK sentence runs straight into the name, so no \b).
_LATER_EXCEPTION = LazyRe(r"(?<![A-Za-z0-9_.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): (?=\S)")
# A traceback pasted with its line breaks lost: a frame, its code and the exception on one line
# ('File "x/adapters.py", line 519, in send raise ConnectionError(e) requests.exceptions.ConnectionError: ...').
# Only a module-qualified exception name counts: a frame's code may hold "Error: " in a string.
_FRAME_THEN_EXCEPTION = LazyRe(r'^\s*File "[^"\n]{1,400}", line \d+, in [\w<>.]+ .{0,400}?(?<![A-Za-z0-9_.])'
                               r"(?P<exc>(?:[A-Za-z_]\w*\.)+[A-Z]\w*(?:Error|Exception): (?=\S))")


# Chinese (and Japanese) blog and forum prose around a pasted error: CSDN, Zhihu, Juejin and the
# like quote the message inside a sentence ('系统报错"Bfloat16 is only supported on GPUs ..."'), or let
# the sentence run on after it ("抛出 RuntimeError: No CUDA GPUs are available 错误。"), one paragraph a
# line. The ideographs, kana, CJK and full-width punctuation, and the check marks such posts put before a
# paste ("❌ 典型报错:") are prose; box drawing (rich's tracebacks) and the "…" of a cut line are not.
_PROSE_CHARS = "\u2705\u274c\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff60"
# compiled on first use: a class this wide takes milliseconds to compile, and an ASCII log never needs it
_PROSE_LEAD = LazyRe(f"[{_PROSE_CHARS}]")
# Where the prose may take over again after an English message: the first CJK character of a run.
# _before_prose cuts there only after a complete English word or sentence ("available 错误。"), at a
# check mark ("GiB.✅解决方案") or after the ellipsis of a cut message ("GiB...即使"), never inside a name,
# path or quote ("for '千问/Qwen-7B'", "/models/v2模型/").
_PROSE_RUN = LazyRe(f"(?<![{_PROSE_CHARS}])[{_PROSE_CHARS}]")
_PROSE_MARKS = "\u2705\u274c"
# What may stand just before resumed prose: a space, or punctuation that ends a clause. Not a letter,
# digit, ".", "-", "_", "/" or "\\" (a name or path runs on: "qwen-中文", "v2模型", "model.模型"), nor
# ":" (the message itself follows it: "ValueError:模型路径不存在").
_ENDS_CLAUSE = frozenset(" \t,;!?)]}\"'")
_OPENS, _CLOSES = "([{", ")]}"
# An English message quoted in such a sentence, in ASCII or CJK quotes; the sentence calls it an error
# (报错, 错误, 异常, 失败, 抛出, 提示) or the message reads like one itself.
_PROSE_QUOTE = LazyRe(r'["\u201c\u300c\u300e](?P<inner>[\x20-\x7e]{6,600}?)["\u201d\u300d\u300f]')
_PROSE_SAYS_ERROR = LazyRe("报错|错误|異常|异常|失败|失敗|抛出|拋出|提示|崩溃|エラー")
# An English message a sentence introduces with a colon and runs to the end of its line, unquoted
# ("使用 vLLM 启动 glm4-chat 报错：The model's max seq len (131072) is larger than ..."), or with a word
# in the colon's place ("出现一系列错误类似size_k must divisible by BLOCK_SIZE_K": 类似 "like", 如下 "as
# follows", 为/是 "is"): no exception name leads it, so only the words before it say it is the error.
_PROSE_COLON_MESSAGE = LazyRe("(?:报错|错误|異常|异常|エラー)(?:\\s*[:\uff1a]|类似|如下|为|是)\\s*"
                              "(?P<inner>[A-Za-z][\\x20-\\x7e]{11,600})$")
# A full-width colon after an exception's name, as a Chinese input method types it ("ValueError：...").
# Looked behind from the colon, not matched from the name's start: a long run of word characters would
# make that backtrack quadratically.
_FULLWIDTH_COLON = LazyRe(r"(?<=[Ee]rror)\uff1a\s*|(?<=Exception)\uff1a\s*")


def _is_prose(body: str) -> bool:
    """A line of the person's prose: it starts with a CJK character (a log line never does)."""
    return bool(body) and body[0] > "\u2700" and _PROSE_LEAD.match(body) is not None


def _before_prose(text: str) -> str:
    """An English message without the prose that resumes after it on its line. A line that merely
    opens with a name ("vllm部署后,发送图片报错ValueError: ...") is a sentence, not a message: kept."""
    if text.isascii():
        return text
    cut = _prose_resumes_at(text)
    return text[:cut].rstrip(" \t,;") if cut is not None and cut >= _MESSAGE_BEFORE_PROSE else text


def _prose_resumes_at(text: str) -> int | None:
    """Where the first CJK run that resumes the prose starts, outside quotes and brackets; None if none."""
    quote, depth, k = "", 0, 0
    for m in _PROSE_RUN.finditer(text, 1):
        for i in range(k, m.start()):       # the quotes and brackets open before this run
            c = text[i]
            if c in "'\"" and not _apostrophe(text, i):
                quote = "" if quote == c else (quote or c)
            elif not quote and c in _OPENS:
                depth += 1
            elif not quote and c in _CLOSES:
                depth = max(depth - 1, 0)
        k = m.start()
        if quote or depth:
            continue
        if text[k] in _PROSE_MARKS or _after_ellipsis(text, k) \
                or (text[k - 1] in _ENDS_CLAUSE and not _opening_quote(text, k - 1)):
            return k
    return None


def _after_ellipsis(text: str, k: int) -> bool:
    """The message was cut with an ellipsis and the prose runs on after it ("allocate 2.3 GiB...即使设备有"):
    no name or path ends in "..." or "…"."""
    return text[k - 1] == "\u2026" or text.endswith("...", 0, k)


def _apostrophe(text: str, i: int) -> bool:
    """A ' between two letters is an apostrophe ("Can't"), not a quote."""
    return text[i] == "'" and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()


def _opening_quote(text: str, i: int) -> bool:
    """A quote mark that opens (after a space or at the start), not one that closes a quoted word."""
    return text[i] in "'\"" and (i == 0 or text[i - 1] in " \t([{=:,")


_MESSAGE_BEFORE_PROSE = 12      # characters of English before the prose: shorter is a name, not a message


def _quoted_in_prose(body: str) -> list[str]:
    """The English messages a prose line quotes as errors (the caller passes only lines that are not ASCII)."""
    if not _is_prose(body) and not _PROSE_LEAD.search(body):
        return []
    says_error = _PROSE_SAYS_ERROR.search(body) is not None
    quoted = [q for q in (m.group("inner").strip() for m in _PROSE_QUOTE.finditer(body))
              if (says_error or reads_like_error(q)) and any(c.isalpha() for c in q) and " " in q]
    colon = _PROSE_COLON_MESSAGE.search(body.rstrip()) if not quoted else None
    return quoted + ([colon.group("inner").strip()] if colon and " " in colon.group("inner") else [])


def _source_line(lines: list[str], i: int, rest: str, body: str) -> bool:
    """The code a traceback frame quotes ("    raise ValueError(msg)"): indented, after a frame."""
    indented = rest[:2] in ("  ", "\t") or rest[:1] == "\t"
    after_frame = i > 0 and strip_prefixes(lines[i - 1])[2].startswith('File "')
    deep = rest[:4] == "    " or rest[:1] == "\t"       # 4 spaces: a frame's code, not a message
    if deep and (_py_warning(body) or (not after_frame and is_native(body))):
        deep = False            # a warning a build printed under pip's indented "[N lines of output]", or the shell's
        #                         "Killed" there (ninja's step ended by SIGKILL): no frame quotes code like that
    if deep and not after_frame and (TERMINATED_STATE.match(body) or OOM_END.match(body) or unit_exit(body)):
        deep = False            # kubectl describe's container state, which it indents under the pod's "Containers:",
        #                         docker inspect's "OOMKilled": true in its indented State, systemctl status's "Process:"
    if deep and not after_frame and _ERROR_SENTENCE.match(body) and not _CALL.search(body):
        deep = False            # a native library's message a log record indents under its exception (CANN's
                                # "        Transport init error. Reason: ..." under torch_npu's RuntimeError), pasted without it
    return (after_frame and (indented or not rest.strip() or _flush_code(lines, i, body))) \
        or (body.startswith("raise ") and indented) or deep or _RAISE_STATEMENT.match(body) is not None


def _flush_code(lines: list[str], i: int, body: str) -> bool:
    """A frame's code that lost its indentation: a viewer that collapses spaces (a web console, kubectl in
    some terminals) prints "ERROR ... [core.py:936] File "x.py", line 9, in f" and then
    "ERROR ... [core.py:936] f(y)" in the same record. Python prints a frame's code on the very next
    line, so the line after a frame, under the same headers, that reads as code (a call, an assignment, a
    statement) is its code. An exception whose name EXCEPTION_LINE does not know ("triton.runtime.errors.
    OutOfResources: out of resource: ...") and native code's dying words are not."""
    return _header(lines[i]).rstrip() == _header(lines[i - 1]).rstrip() and _CODE_LIKE.search(body) is not None \
        and _NAMED_LINE.match(body) is None and not is_native(body)


# what a frame's code reads like, flush or not: a call or an assignment, or a statement's keyword
_CODE_LIKE = LazyRe(r"[(=]|^(?:return|raise|await|yield|assert|del|import|from|with|for|if|elif|async|self\.)\b")
# "Name: message" or a bare name: an exception's line, whatever the name ends with
_NAMED_LINE = LazyRe(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?::\s|\s*$)")


# a sentence that names a failure ("Transport init error. Reason: ...", "Connect failed: ..."): prose, never Python code
_ERROR_SENTENCE = LazyRe(r"[A-Z][a-z]+(?: [a-z]+){0,6} (?:error|failed|failure|timed out|times out)[.!:] ")
_CALL = LazyRe(r"\w\(|\s=\s")


# a raise statement alone on its line is a frame's code even where a web page dropped its indentation
# ("ERROR ... engine.py:366] raise ValueError(f\"No supported config format found in {model}\")")
_RAISE_STATEMENT = LazyRe(r"raise [A-Za-z_][\w.]*(?:\(.*)?$")


# What opens a traceback or a frame, run into the end of a message on its line (a paste whose line breaks were lost)
_RUN_ON = LazyRe(r'\s(?:Traceback \(most recent call last\):|During handling of the above exception'
                 r'|The above exception was the direct cause|\s*File "[^"\n]{1,400}", line \d+, in )')


def _in_quote(text: str) -> bool:
    """Whether a quote the text opens is still open at its end (an odd count of either quote character)."""
    return text.count("'") % 2 == 1 or text.count('"') % 2 == 1


def _mask(text: str) -> str:
    return re.sub(r"\d+", "0", text)


def _proc_kind(proc: str | None) -> str:
    """"Worker_TP1 pid=12" → "Worker_TP", "(EngineCore_DP0 pid=3)" → "EngineCore_DP": the process, not its rank."""
    return re.sub(r"\d+|\s.*", "", proc) if proc else ""


def _stops(body: str) -> bool:
    return not body or bool(_CHAIN.match(body) or _FRAME.match(body) or EXCEPTION_LINE.match(body))


# A line as long as a terminal's width (WRAP_WIDTHS; or one shorter: the last column is often lost) that ends inside
# a word continues it on the next line ("KV cach" + "e is"); a paste cut so throughout is rejoined as it is cleaned.


# a timestamped line is a new record: a dated one, or the kernel's (dmesg's seconds since boot "[  124.465643] ", dmesg -T's
# "[Mon Dec  7 09:12:13 2026] ") pasted after a program's output
_DATED = LazyRe(r"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|^\[(?: *\d+\.\d{6}|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")
_PROGRESS = LazyRe(r"\d{1,3}%(?: ?\||\s+Completed)|it/s\]|s/it\]")      # a tqdm bar is never part of a message
_MP_PROCESS = LazyRe(r"^Process [\w-]+:$")     # multiprocessing's header before a child's traceback
_RUST_PANIC = LazyRe(r"^thread '[^'\n]{0,80}' panicked at ")    # a Rust library's (tokenizers, hf_xet) own report
_EXITED = LazyRe(r"^[\w.-]{1,60} exited with code -?\d+$")  # docker compose on a container that ended
# argparse's refusal ("vllm: error: unrecognized arguments: ...", "api_server.py: error: argument ..."): its own
# record, even under a command line as long as a terminal width, which would otherwise read as hard-wrapped into it
_ARGPARSE_ERROR = LazyRe(r"^[\w.-]{1,40}(?: [\w-]{1,30}){0,2}: error: ")
# Python's warnings module ("/x/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: ..."), printed
# to stderr between another program's records: its own message, never the tail of the INFO line above it.
_PY_WARNING = LazyRe(r"^\S[^\n]{0,400}?\.py:\d+: (?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*Warning: ")


def _unit_failed(text: str) -> bool:
    """systemd's word that a unit's process exited with a status other than 0 ("status=203/EXEC", which says no error
    word): an error line, whose status the stack's unit-exit family reads where it is systemd's own."""
    if "code=exited" not in text:
        return False
    m = UNIT_EXIT.match(text)
    return m is not None and m.group("unit_status") not in (None, "0")


def _py_warning(body: str) -> bool:
    return "Warning: " in body and _PY_WARNING.match(body) is not None       # the literal first: most lines lack it


# A library that reports an error it then ignores (huggingface_hub's "Could not cache non-existence of file. Will
# ignore error and continue. Error: [Errno 13] ..." and "Ignored error while writing commit hash to ...: [Errno 13]
# ...", logged as the download goes on): the run went on, so the errno in it is no cause.
_IGNORED = LazyRe(r"\bWill ignore (?:the )?error and continue\b|\bIgnored error while\b")


def _no_error(exc_type: str | None, level: str | None, text: str) -> bool:
    """A message that reads like an error and is none: an exception logged at DEBUG (one the program handled and went
    on from: vLLM's "Failed to load AutoTokenizer chat template" with transformers' traceback at
    VLLM_LOGGING_LEVEL=DEBUG), an error a library says it ignores, nanobind's leak report, vLLM's input dump."""
    return bool(exc_type and level == "DEBUG") or _LEAK_REPORT.match(text) is not None \
        or _IGNORED.search(text) is not None or _is_dump(exc_type, text)


# nanobind's report at interpreter exit of the objects a binding never freed (triton's, in every process that imported
# it: "nanobind: leaked 4 instances!", then " - leaked function "get_cache_invalidating_env_vars"" and the like): a
# note for the binding's authors, after the program ended; the names it lists hold error words ("invalid..."), no error
_LEAK_REPORT = LazyRe(r'^(?:nanobind: (?:leaked \d+ \w+!|this is likely caused by a reference counting issue)'
                      r'|leaked (?:instance|type|function) (?:0x[0-9a-f]+ of type )?")')

# A tool's own error line under a bare line that is no error ("error: ...", "FAILED: x.o", "nvcc fatal   : ...")
_TOOL_ERROR = LazyRe(r"^(?:[\w.+-]{1,40}\s+)?(?:fatal|FAILED|error|Error|ERROR)\s*:\s")
# A compiler's own error in a build's output, or its driver's, or the linker's: gcc's and clang's ("csrc/x.cu:12:10:
# fatal error: cuda_runtime.h: No such file or directory", "g++: fatal error: Killed signal terminated program
# cc1plus", "c++: internal compiler error: Killed (program cc1plus)"), nvcc's front end ("csrc/x.cu(12): error:
# identifier ... is undefined") and driver ("nvcc fatal   : Unsupported gpu architecture 'compute_120'", "nvcc error   :
# 'cicc' died due to signal 9"), ptxas's and the other CUDA tools', MSVC's ("x.cpp(12): fatal error C1083: ..."), the
# linker's ("/usr/bin/ld: cannot find -lcuda", "collect2: error: ld returned 1 exit status"), CMake's ("CMake Error at
# <file>:<line> (message):"). A build log prints them indented under pip's "[N lines of output]": an error, not a
# traceback's code.
_BUILD_DIAGNOSTIC = LazyRe(
    r"^(?:(?:[A-Za-z]:)?[^\s:()]{1,400}(?::\d+(?::\d+)?: |\(\d+\): )"
    r"(?:fatal |catastrophic )?error(?: [A-Z]{1,3}\d{1,5})?: "
    r"|(?:[\w.+-]{1,60}: )?(?:fatal|internal compiler) error(?: [A-Z]{1,3}\d{1,5})?: "
    r"|(?:nvcc|ptxas|fatbinary|nvlink|cicc|cudafe\+\+)(?:\.exe)?\s+(?:fatal|error)\s*: "
    r"|collect2(?:\.exe)?: error: |(?:\S{0,200}/)?ld(?:\.\w+)?: (?:error: |cannot find )"
    r"|CMake Error\b)")
# A build step's failure without the compiler's words: ninja's "FAILED: x.o", a bare "error: ..." (setuptools'
# "error: Microsoft Visual C++ 14.0 or greater is required", rustc's "error: could not compile ..."); not pip's own
# codes ("error: subprocess-exited-with-error"), setuptools' closing "error: command 'gcc' failed ...", uv's closing
_BUILD_STEP_FAILED = LazyRe(r"^(?:FAILED: |error(?:\[E\d+\])?: "
                            r"(?![a-z]+(?:-[a-z]+)+(?:\s|$)|command '|Failed to |No solution found))")
# A package's build failing, as the installer or the build's runner closes it: pip's ("error: subprocess-exited-with-
# error", "ERROR: Failed building wheel for vllm", "ERROR: Could not build wheels for ..."), uv's ("Failed to build
# `flash-attn`", "Call to `setuptools.build_meta.build_wheel` failed"), setuptools' and distutils' ("error: command
# '/usr/bin/gcc' failed with exit code 1", DistutilsExecError, CompileError), torch's cpp_extension ("Error compiling
# objects for extension"), ninja's ("ninja: build stopped: subcommand failed.")
_BUILD_FAILED = LazyRe(r"subprocess-exited-with-error|Failed building wheel for |Failed to build "
                       r"|Could not build wheels for |error: command '[^'\n]{1,400}' failed|DistutilsExecError|CompileError: "
                       r"|Error compiling objects for extension|ninja: build stopped|\.build_wheel` failed")
# What a build's runner raises once the build failed: the exception is the build's closing, not an error of its own
_BUILD_CLOSING = LazyRe(r"CalledProcessError: |Ninja build failed|Error building extension ")


# ninja's own lines: a step's progress ("[12/250] Building CUDA object ...") and its status ("ninja: build stopped: ...")
_NINJA_STATUS = LazyRe(r"\[\d{1,6}/\d{1,6}\] |ninja: ")


_BUILD_FAILED_WORDS = ("build", "subprocess-exited", "command '", "DistutilsExecError", "CompileError", "compiling objects")


def _build_failed(text: str) -> bool:
    return any(w in text for w in _BUILD_FAILED_WORDS) and _BUILD_FAILED.search(text) is not None


def build_diagnostic(text: str) -> bool:
    """Whether a line is a compiler's, its driver's or the linker's own error (_BUILD_DIAGNOSTIC)."""
    return ("rror" in text or "fatal" in text or "ld" in text) and _BUILD_DIAGNOSTIC.match(text) is not None


def build_root(errors: list["Message"]) -> "Message | None":
    """In a paste that shows a package's build failing (_BUILD_FAILED), the compiler's own error (build_diagnostic), else
    a build step's failure (_BUILD_STEP_FAILED): pip's closing "Failed building wheel" and the build runner's exception
    are the consequence of the first one. None where an exception of another kind comes before it (the build never
    reached the compiler: a setup.py's own ImportError), or where no build failed."""
    if not any(m.is_error and _build_failed(m.text) for m in errors):
        return None
    raised = [m.line_no for m in errors if (m.exc_type or m.inner) and not m.py_warning
              and m.level not in ("WARNING", "DEBUG") and not _build_failed(m.text)
              and not _BUILD_CLOSING.search(m.text)]
    before = min(raised, default=None)
    for kind in (build_diagnostic, lambda t: _BUILD_STEP_FAILED.match(t) is not None):
        found = next((m for m in errors if m.is_error and m.level not in ("DEBUG", "INFO", "WARNING")
                      and not m.exc_type and kind(m.text)), None)
        if found is not None and (before is None or found.line_no < before):
            return found
    return None


# The prompt a command is typed at, with the name of the virtualenv or conda env it runs in before it or not ("(venv) ",
# "(base) "): a shell's ("user@host:~/vllm$", "user@Mac ~ %", "root@abc123:/workspace#", RHEL's "[root@node1 ~]#", a
# bare "$", zsh themes' "❯" and "➜"), PowerShell's ("PS C:\\Users\\me>"), Python's REPL (">>>") and IPython's
# ("In [3]:"), each then a space or the line's end; cmd.exe's ("C:\\Users\\me>") runs straight into the command (no
# character Windows forbids in a path before its ">": a path's "C:\\x\\y.py:12: ..." is no prompt).
_SHELL_PROMPT = LazyRe(r"^(?:\([\w./~-]{1,80}\) )?(?:(?:[\w.-]+@[\w.-]+[: ][^\n]{0,80}?[#$%]"
                       r"|\[[\w.-]+@[\w.-]+ [^\]\n]{0,80}\][#$%]|\$|[\u276f\u279c] ?|>>>|In \[\d{1,5}\]:"
                       r"|PS [A-Za-z]:\\[^\n>]{0,200}>)(?: |$)"
                       r"|[A-Za-z]:\\[^\n>:*?\"<|]{0,200}>(?=\S))")
# what may start a prompt: a line that starts otherwise (a space, a quote, a CJK sentence) is not tried
_PROMPT_LEAD = frozenset("([$>\u276f\u279c_.-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _prompt(body: str) -> int | None:
    """Where the command starts on a line that opens with a prompt (_SHELL_PROMPT); None for any other line."""
    if not body or body[0] not in _PROMPT_LEAD:
        return None
    m = _SHELL_PROMPT.match(body)
    return m.end() if m is not None else None


def _command(body: str) -> bool:
    """A command typed at a prompt ("$ pip install -e .", "(venv) user@host:~/vllm$ vllm serve ...", ">>> llm =
    LLM(...)", "In [3]: ...", "(base) PS C:\\> python x.py"): a line of its own, whose next lines are the program's
    output, never the command's tail; and never the tail of the message above it."""
    end = _prompt(body)
    return end is not None and end < len(body) and not body[end].isspace()


# A line that starts a statement of its own, whatever the line above it: a package and its version
# ("torch-2.1.2 huggingface has error: ...", "vllm==0.3.3", pip list's "accelerate    0.28.0", conda list's
# "cuda-cccl    12.1.55    0    nvidia"). A message cut at a terminal width does not go on this way; a paste
# that names the versions under a long error line does (vllm#3528: the loader's line is 250 columns long).
_NEW_STATEMENT = LazyRe(r"^[A-Za-z][\w.-]{0,80}?(?:-|==|\s{2,})v?\d{1,6}(?:\.\d{1,8}){1,4}[\w+.-]{0,40}(?=\s|,|;|$)")
# A mangled C++ name ends the line above ("undefined symbol: _ZN2at4_ops...MemoryFormatEEE"): cut at the terminal
# width, it goes on in name characters up to a space, a quote or the end; a word joined by "-", "/" or "=" (a
# package-version, a path) is something else, which the cut name would swallow.
_MANGLED_TAIL = LazyRe(r"(?:^|[\s:'\"(])_Z\w+$")
_NAME_GOES_ON = LazyRe(r"\w+(?:$|[\s'\"),.:;\]\\])")
# pydantic's header ("ValidationError: 1 validation error for ModelConfig") always ends its line, whatever its width:
# the field's name comes on the next one (that header is 80 columns long for ModelConfig and CacheConfig)
_PYDANTIC_HEADER = LazyRe(r"\d+ validation errors? for [\w.]+$")


def _joiner(prev_raw: str, prev_body: str, body: str) -> str:
    width = len(prev_raw)
    hard_wrapped = (width in WRAP_WIDTHS or width + 1 in WRAP_WIDTHS) and prev_body[-1:].isalnum() and body[:1].isalnum() \
        and not body[:1].isupper() \
        and not (_MANGLED_TAIL.search(prev_body[-400:]) and not _NAME_GOES_ON.match(body)) \
        and not _PYDANTIC_HEADER.search(prev_body[-200:])
    return "" if hard_wrapped else " "


_JOURNAL_STAMP = LazyRe(JOURNALD, re.X)


def _journal_apart(line: str, above: str | None, goes_on: bool = False) -> bool:
    """Whether journald's prefix says `line` starts a record of its own: the journal stamped it at another second, or
    from another source, than the line above (or the line above has no such prefix). What a program printed at once
    (a traceback, a multi-line record, klog's indented value) shares one stamp: its lines go on. But the journal stamps
    each line as it reads it, and a traceback is written a line at a time: where the line above says the text goes on
    (`goes_on`: a frame's code under its `File "..."` line, an exception's message), the source alone tells."""
    if not line[:1].isalnum():
        return False
    m = _JOURNAL_STAMP.match(line)
    if m is None:
        return False
    a = _JOURNAL_STAMP.match(above) if above is not None else None
    return a is None or m.group("jsource") != a.group("jsource") \
        or not goes_on and (m.group("jtime"), m.group("jiso")) != (a.group("jtime"), a.group("jiso"))


# Ray's tag of a process with no actor's name, or of its daemons (COLLECTORS)
_NAMELESS_TAG = LazyRe(r"\((pid=\d+|raylet|gcs_server)[,)]")


def _untold_tag(head: str, header: str) -> bool:
    """Whether a line's prefixes (`head`) hold a Ray tag of a nameless process or daemon that the record's own header
    lacks: another process speaking ("(raylet) A worker died ..." under a vLLM INFO record), never that record's tail.
    The raylet's own lines, and a record it relays, go on under its tag."""
    if "(" not in head:
        return False
    m = _NAMELESS_TAG.search(head)
    return m is not None and f"({m.group(1)})" not in header and f"({m.group(1)}," not in header


def _continuation(lines: list[str], i: int, proc: str | None, level: str | None, exc: bool,
                  prev_body: str, header: str) -> tuple[list[str], int]:
    """Lines after lines[i] (whose message is prev_body, under `header`) that belong to the same
    message, each with the text that joins it."""
    parts: list[str] = []
    j = i + 1
    # a bare line that is no error itself (pip's "Building wheels for collected packages: vllm") explains nothing
    # below it: a tool's own error line there starts a message of its own
    quiet = not exc and level is None and not reads_like_error(prev_body)
    # a message that names no exception (one that does quotes a build's output, "RuntimeError: Error building
    # extension 'x': [1/4] ... FAILED: ..."), and one that is a build step's or the compiler's own error
    plain = not exc and not (("Error: " in prev_body or "Exception: " in prev_body)
                             and _LATER_EXCEPTION.search(prev_body) is not None)
    compiled = plain and (build_diagnostic(prev_body) or _BUILD_STEP_FAILED.match(prev_body) is not None)
    above = _unformat(lines[i][:MAX_LINE_CHARS])
    while j < len(lines) and len(parts) < MAX_CONTINUATION:
        line = _unformat(lines[j][:MAX_LINE_CHARS])
        p, lv, rest = _peel_headers(line)
        body = rest.strip()
        apart = _journal_apart(line, above, exc) or (p is None and _untold_tag(line[:len(line) - len(rest)], header))
        above = line
        headed = lv is not None
        # (CMake's diagnostics and its "-- " status lines, indented under pip's output, are records of their own; pip's
        # "[end of output]" closes the subprocess's output the message stood in)
        if _stops(body) or _is_prose(body) or body.startswith(("![", "# ", "## ", "raise ", "Exception in ", "Error in ",
                                            "Exception ignored ", "CMake Error", "CMake Warning", "-- ", "[end of output]")) \
                or _prompt(body) is not None or _DATED.match(lines[j]) \
                or _MP_PROCESS.match(body) or _PROGRESS.search(body) or is_native(body) or gpu_report(body) \
                or _py_warning(body) or _EXITED.match(body) or TERMINATED_STATE.match(body) or OOM_END.match(body) \
                or unit_exit(body) or _RUST_PANIC.match(body) or _ARGPARSE_ERROR.match(body) \
                or _NEW_STATEMENT.match(body) or (p is not None and p != proc) or apart:
            break               # a new exception, a markdown image or heading, another process or journal record
        # A record with its own header is a new message, unless vLLM's NewLineFormatter repeated
        # the header of an exception's continuation: then the header is the very same text
        # (process, level, time and source line), not merely the same process and level.
        if headed and not (exc and lv == level and p == proc and _header(lines[j]) == header):
            break
        if quiet and not headed and _TOOL_ERROR.match(body):
            break       # pip's "error: subprocess-exited-with-error", ninja's "FAILED: x.o", "nvcc fatal   : ..."
        if plain and not headed and (build_diagnostic(body) or (compiled and _NINJA_STATUS.match(body))):
            break       # the compiler's own error under ninja's "FAILED: x.o" and its command: a message of its own, and
            #             ninja's next step or last word ("ninja: build stopped: ...") no part of the compiler's (an
            #             exception's message keeps them: torch's "Error building extension" quotes ninja's output)
        if body.startswith("For further information visit"):
            j += 1
            continue
        cut = _before_prose(body)
        parts.append(_joiner(lines[j - 1], prev_body, cut) + cut)
        prev_body = body
        j += 1
        if cut != body:
            break               # the prose resumed on this line: the message ends here
    return parts, j


def _unwrapped(msg: Message) -> list[Message]:
    out = []
    later = _later_exception(msg.text) if msg.exc_type is None else None
    if later is not None:
        exc_type, text = later
        out.append(Message(msg.line_no, text, msg.level, msg.proc, exc_type, True, True, header=msg.header))
    for rx in _UNWRAP:
        if rx is _ERROR_BODY and not _VLLM_BODY.search(msg.text):
            continue
        m = rx.search(msg.text)
        if m and not (rx is _ERROR_BODY and m.group("inner").lstrip().startswith(("[", "{"))):
            # (a body whose message is pydantic's error list is unwrapped by the list's own 'msg')
            inner = m.group("inner").strip()
            out.append(Message(msg.line_no, printf_tuple(inner) or inner, msg.level, msg.proc, None, True, True,
                               header=msg.header))
    body = msg.text.split(": ", 1)[-1]
    text = printf_tuple(body) if msg.exc_type else None
    if text is not None:
        out.append(Message(msg.line_no, text, msg.level, msg.proc, msg.exc_type, True, True, header=msg.header))
    elif msg.exc_type and _TUPLE_ARGS.match(body):
        joined = "".join(re.findall(r"'([^']*)'", body))
        out.append(Message(msg.line_no, joined.strip(), msg.level, msg.proc, msg.exc_type, True, True,
                           header=msg.header))
    return out


def _later_exception(text: str) -> tuple[str, str] | None:
    """(type, text) of the first exception a line names after other words, if any."""
    if "Error: " not in text and "Exception: " not in text:
        return None
    found = _LATER_EXCEPTION.search(text)
    if found is None:
        return None
    text = text[found.start():]
    m = EXCEPTION_LINE.match(text)
    text = _before_prose(text)
    return (m.group("type"), _end_of_quoted(text) if "`" in text else text) if m else None


# A code span that closes: a backtick after a word and before a space or the end ("quantizer.`").
_CLOSING_TICK = LazyRe(r"(?<=\S)`+(?=\s|$)")


def _end_of_quoted(text: str) -> str:
    """An exception message quoted in inline code that opened before it ends where the code span
    closes: what follows is the person's prose ("...quantizer.`  Where do you suggest ...").
    A span the message opens itself ("via `pip install x` to use") is part of it."""
    first = text.find("`")
    found = _CLOSING_TICK.match(text, first) if first >= 0 else None
    return text[:first].rstrip() if found else text


class _Lines:
    """The lines of a long text, cut out where they are read: listing every line of a 10 MB paste
    costs more than the few hundred lines a diagnosis reads around its hits."""

    def __init__(self, text: str, known: dict[int, int], count: int):
        self.text, self.starts, self.count = text, known, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> str:
        start = self._start(i)
        end = self.text.find(self.nl, start)
        line = self.text[start:] if end < 0 else self.text[start:end]
        return line if isinstance(line, str) else line.decode("utf-8", "surrogatepass")

    @property
    def nl(self):
        return "\n" if isinstance(self.text, str) else b"\n"

    def _start(self, i: int) -> int:
        start = self.starts.get(i)
        if start is None:
            nl = self.nl
            if i - 1 in self.starts:                  # the line after a known one (continuations)
                start = self.text.find(nl, self.starts[i - 1]) + 1
            elif i + 1 in self.starts:                # the line before one (a frame above a message)
                start = self.text.rfind(nl, 0, self.starts[i + 1] - 1) + 1
            else:
                below = max((k for k in self.starts if k < i), default=None)
                start = 0 if below is None else self.starts[below]
                for _ in range(i - (below or 0)):
                    start = self.text.find(nl, start) + 1
            self.starts[i] = start
        return start


def messages(text: str) -> list[Message]:
    """Error-like messages of the log, first printed first, identical repeats (per rank) dropped."""
    short = len(text) <= SHORT_PASTE_CHARS
    if short:
        lines = text.split("\n")
        starts = range(len(lines))
    else:
        # Text with a character beyond ASCII (vLLM's banner, "…") is stored two or four bytes a
        # character, and lowering and searching it is several times slower: its UTF-8 bytes have
        # the same lines, and their ASCII keywords are found as fast as in an ASCII text.
        scan = text if text.isascii() else text.encode("utf-8", "surrogatepass")
        hits, count = _line_starts_of_hits(scan)
        lines = _Lines(scan, dict(hits), count)
        starts = [line for line, _ in hits]
    out: list[Message] = []
    seen: set[str] = set()
    consumed = -1
    for i in starts:
        if i <= consumed:
            continue
        raw = _unformat(lines[i][:MAX_LINE_CHARS])
        proc, level, rest = _peel_headers(raw)
        if " [" in rest and "] " in rest:
            span = _record_in_line(rest, level)
            if span is not None:
                start, end = span
                at = len(raw) - len(rest)
                cut = end < len(rest)
                raw = raw[at + start if start else 0: at + end]
                if cut:     # (the next record's process tag, left at this one's end)
                    raw = _TRAILING_TAG.sub("", raw)
                if start:
                    proc2, level, rest = _peel_headers(raw)
                    proc = proc2 or proc
                else:
                    rest = raw[at:]
        if rest[:1] in (" ", "\t") and len(rest) < len(raw):
            above = _unformat(lines[i - 1][:MAX_LINE_CHARS]) if i else None
            if _journal_apart(raw, above, above is not None and strip_prefixes(above)[2].startswith('File "')):
                rest = rest.lstrip()    # journald relayed it indented, in a record of its own: no traceback's code
        body = rest.strip()
        if not body or body.startswith("Traceback (most recent call last)"):
            continue
        if "LD_PRELOAD" in body and _PRELOAD_IGNORED.search(body):
            continue
        if " prompt: " in body or " output: " in body:
            if _REQUEST_LINE.match(body):
                continue        # a prompt or an answer the request logger printed: the users' words, not this run's
        if _FRAME.match(body):
            collapsed = _FRAME_THEN_EXCEPTION.match(body)
            if collapsed is None:
                continue
            body = body[collapsed.start("exc"):]
        if "\uff1a" in body:
            body = _FULLWIDTH_COLON.sub(": ", body)
        report = gpu_report(body)
        if report:
            body = report
        m = None if report else EXCEPTION_LINE.match(body)
        quoted = None if m or report else exception_in_span(body)
        if quoted:
            body, m = quoted, EXCEPTION_LINE.match(quoted)
        if not m and not report:
            later = _LATER_EXCEPTION.search(body)
            if later and body.startswith("raise "):      # "raise ValueError(...) ValueError: ..." in one line
                body = body[later.start():]
                m = EXCEPTION_LINE.match(body)
            elif _source_line(lines, i, rest, body) and not build_diagnostic(body):
                continue
        exc_type = m.group("type") if m else None
        header = raw[: len(raw) - len(rest.lstrip())]
        # a paste that lost its line breaks runs the next traceback (or a frame) into the message: it ends there
        run_on = _RUN_ON.search(body, 1) if exc_type and ("Traceback (" in body or 'File "' in body
                                                            or "above exception" in body) else None
        if run_on is not None and _in_quote(body[:run_on.start()]):
            run_on = None       # a message that quotes its cause's traceback ("Worker failed with error 'Traceback ...'")
        if run_on is not None:
            body = body[:run_on.start()].rstrip()
        # a line native code or the shell printed as the process died ("Killed") is whole: what follows
        # it is the next program's output (docker compose's "vllm-1 exited with code 137"), not its tail
        # (the shell's "Killed" in the locale's words, "已杀死", is no prose a person wrote)
        shell_said = exc_type is None and not body.isascii() and is_native(body)
        prose = not shell_said and _is_prose(body)
        resumed, line_body = False, body
        if not prose and not shell_said:
            cut = _before_prose(body)
            resumed, body = cut != body, cut    # the prose resumed on this line: the message ends here
        # (an exception a sentence quotes in inline code or bold ends where the span closes: the
        # sentence's next line, a link to the source say, is not its tail)
        if (exc_type is None and (is_native(body) or _command(body))) or prose or resumed or quoted or report \
                or run_on is not None:
            parts, consumed_to = [], i + 1     # (a paragraph of prose is one line: the next is the paste)
        else:
            parts, consumed_to = _continuation(lines, i, proc, level, exc_type is not None, body, header)
        consumed = consumed_to - 1
        full = "".join([body, *parts])[:MAX_MESSAGE_CHARS]
        if exc_type and "`" in full:
            full = _end_of_quoted(full)
        # (a sentence that opened with a name and resumed: what it quotes lies in the whole line)
        quotes = (_quoted_in_prose(line_body if resumed else full)
                  if exc_type is None and not (line_body if resumed else full).isascii() else [])
        native = exc_type is None and is_native(full)
        # a prose line that quotes the error is not the error: the quote is (read on its own below)
        is_error = not quotes and not _no_error(exc_type, level, full) \
            and (bool(exc_type) or native or bool(report) or level in ("ERROR", "CRITICAL") or reads_like_error(full)
                 or _unit_failed(full))
        msg = Message(i + 1, full, level, proc, exc_type, is_error,
                      plain=short and not is_error and level is None, header=header.strip(), native=native,
                      py_warning=level is None and _py_warning(body))
        # a repeat is dropped within one kind of process (the ranks of a tensor-parallel group print
        # the same error); the engine's or a worker's copy of an error the front end also logged is
        # kept: it may belong to a later attempt, which a wrapper there points to
        key = f"{_proc_kind(proc)}|{exc_type}|{_mask(full)}"
        if key in seen:
            continue
        seen.add(key)
        out.append(msg)
        out.extend(_unwrapped(msg))
        for q in quotes:
            qm = EXCEPTION_LINE.match(q)
            # (like a wrapper's inner text: the sentence around it only says that it is the error)
            out.append(Message(i + 1, q, level, proc, qm.group("type") if qm else None, True, True, header=msg.header))
    if len(out) > MAX_MESSAGES:
        out = out[: MAX_MESSAGES * 3 // 4] + out[-MAX_MESSAGES // 4:]
    # a paste whose only traceback was cut before its exception: its last frame is all there is
    last = _cut_traceback(text) if not any(m.exc_type or m.native for m in out) else None
    if last is not None and not any(m.line_no > last.line_no for m in out):
        out.append(last)
    return out


_ELIDED = LazyRe(r"^(?:\.\.\.<\d+ lines?>\.\.\.|\.\.\.|[)\]}],?|\^+|~+\^*~*)$")


def _cut_traceback(text: str, most: int = 40) -> Message | None:
    """The last frame of a traceback the paste ends in without its exception line (pastes are often
    cut there): which files were running says something (a vLLM under a Windows drive) where no
    message does. A traceback whose "Traceback (most recent call last):" is cut off too (the paste
    starts and ends inside it: frames in vLLM's ERROR records) counts with two frames or more."""
    tail_text = text[-16384:]
    lines = tail_text.split("\n")
    offset = text.count("\n", 0, len(text) - len(tail_text))
    seen = 0
    for i in range(len(lines) - 1, -1, -1):
        rest = _peel(lines[i])[2]
        body = rest.strip()
        if not body:
            continue
        seen += 1
        if seen > most or EXCEPTION_LINE.match(body):
            return None
        if body.startswith('File "'):
            above = lines[:i]
            headed = "Traceback (most recent call last)" in "\n".join(above)
            if not headed and sum(strip_prefixes(x)[2].startswith('File "') for x in above[-most:]) < 1:
                return None
            return Message(offset + i + 1, body[:MAX_MESSAGE_CHARS], None, None, None, True, cut=True)
        # a frame's code (indented, or flush under the frame's own headers), a caret line, an elision
        code = rest[:1] in (" ", "\t") or (i > 0 and strip_prefixes(lines[i - 1])[2].startswith('File "')
                                            and _flush_code(lines, i, body))
        if not (code or _ELIDED.match(body)):
            return None             # prose or a prompt after the frames: not a cut traceback
    return None


def _line_starts_of_hits(text: str | bytes, first: int = MAX_MESSAGES * 3 // 4,
                         last: int = MAX_MESSAGES // 4) -> tuple[list[tuple[int, int]], int]:
    """(index, offset) of the lines holding a keyword, the first `first` and the last `last` of
    them (a hostile paste made of nothing but error lines costs no more than a normal one), and the
    number of lines. `text` is an ASCII str or UTF-8 bytes: offsets are the same in its bytes."""
    low = (text.encode("ascii") if isinstance(text, str) else text).lower()
    head = _hit_lines(low, first, forward=True)
    # the forward scan stops early only when it has its `first` lines; otherwise it saw every one
    tail = _hit_lines(low, last, forward=False, stop=head[-1]) if len(head) == first else []
    ordered = sorted(set(head) | set(tail))
    lines, counted, at = [], 0, 0
    for off in ordered:
        counted += low.count(b"\n", at, off)
        at = off
        lines.append((counted, off))
    return lines, counted + low.count(b"\n", at) + 1


# The automaton scans a chunk at a time, from the start or from the end, and skips the rest of a
# line once it holds a keyword: a paste of nothing but error lines (or one 10 MB line of them) stops
# after a chunk instead of listing a million matches. Chunks overlap by a keyword's length less one.
_SCAN_CHUNK = 1 << 16
_OVERLAP = max(len(k.encode()) for k in KEYWORDS) - 1


def _hit_lines(low: bytes, most: int, forward: bool, stop: int = -1) -> list[int]:
    """Start offsets of the first (or, backwards, the last) `most` lines holding a keyword, in the
    order of the text; backwards, no line at or before `stop` (the forward scan has them)."""
    found: list[int] = []
    view, size, scan = memoryview(low), len(low), _keyword_scan()
    lo, hi = (0, min(size, _SCAN_CHUNK)) if forward else (max(0, size - _SCAN_CHUNK), size)
    while len(found) < most and lo < hi:
        chunk, line_end = [], -1
        for _, start, _end in scan.find_matches_as_indexes(view[lo:hi + _OVERLAP]):
            pos = lo + start
            if pos >= hi:
                break                       # the next chunk's
            if pos < line_end:
                continue                    # another keyword on a line already taken
            line_start = low.rfind(b"\n", 0, pos) + 1
            line_end = low.find(b"\n", pos)
            line_end = size if line_end < 0 else line_end
            if line_start > stop:
                chunk.append(line_start)
        if forward:
            found.extend(chunk)
            lo = max(hi, line_end + 1)
            hi = min(size, lo + _SCAN_CHUNK)
        else:
            found.extend(reversed(chunk))
            hi = min(lo, chunk[0]) if chunk else lo
            lo = max(0, hi - _SCAN_CHUNK)
            if hi <= stop:
                break
    found = found[:most]
    return found if forward else found[::-1]


def parse_line(text: str, line_no: int) -> Message:
    """One line as a message (used for tail and whole-text scopes)."""
    proc, level, body = strip_prefixes(text)
    m = EXCEPTION_LINE.match(body)
    exc_type = m.group("type") if m else None
    is_error = bool(exc_type) or level in ("ERROR", "CRITICAL") or reads_like_error(body)
    return Message(line_no, body[:MAX_MESSAGE_CHARS], level, proc, exc_type, is_error)


def tail(text: str, n: int = 8) -> list[Message]:
    """The last n non-empty lines: what a hung or killed process printed last (before the user's own
    Ctrl-C, whose traceback ends many pastes of a run that hung)."""
    out: list[Message] = []
    end = _before_interrupt(text)
    line_no = text.count("\n", 0, end) + 1
    while len(out) < n:
        # blank lines are skipped a run at a time: one at a time, 10 MB of them took seconds
        kept = _last_non_blank(text, end)
        line_no -= text.count("\n", kept, end)
        end = kept
        if end == 0:
            break
        start = text.rfind("\n", 0, end) + 1
        out.append(parse_line(text[max(start, end - MAX_LINE_CHARS):end], line_no))
        end = start - 1
        line_no -= 1
    return list(reversed(out))


# What CPython prints when an exception escapes where it cannot be raised (PyErr_WriteUnraisable: a destructor's
# "Exception ignored in: <function Pool.__del__ at 0x7f...>", a callback's "Exception ignored on calling ctypes callback
# function", 3.13's "Exception ignored while ..."), then that exception's traceback. The program goes on, or was already
# ending: most are a half torn-down object at shutdown (an AttributeError on a module global already set to None).
_IGNORED_HEAD = LazyRe(r"^Exception ignored\b")
_CHAINED = LazyRe(r"^(?:During handling of the above exception|The above exception was the direct cause)")


_HANDLING = LazyRe(r"^During handling of the above exception")


def mark_handled(text: str, errors: list[Message]) -> None:
    """Flag each exception that an `except` caught: Python printed "During handling of the above exception, another
    exception occurred" below it (a blank line between), then the traceback of what the handler raised. A fallback
    import (`try: from x import New` / `except ImportError: from x import Old`) fails twice that way, and only the
    second failure is the one that stopped the program."""
    if "During handling of the above exception" not in text:
        return
    lines = text.split("\n")
    for m in errors:
        if not m.exc_type:
            continue
        j = m.line_no          # the line below the exception (line_no is 1-based)
        while j < len(lines) and j - m.line_no < 3 and not _peel_headers(_unformat(lines[j][:MAX_LINE_CHARS]))[2].strip():
            j += 1
        if j < len(lines) and _HANDLING.match(_peel_headers(_unformat(lines[j][:MAX_LINE_CHARS]))[2].strip()):
            m.handled = True


# vLLM's own logger.exception() calls after which the start goes on: the exception under the heading is no cause
# (vllm/model_executor/models/registry.py _save_modelinfo_to_cache, 0.32: "Error saving model info cache.", the
# model-info cache under VLLM_CACHE_ROOT could not be written; vLLM inspects the model again on the next start)
_HANDLED_HEADING = "Error saving model info cache."
_HANDLED_HEADINGS = LazyRe(r"\b" + re.escape(_HANDLED_HEADING) + r"\s*$")
HANDLED_REACH = 120             # lines searched above the exception for its traceback's heading


def past_went_on(text: str, errors: list[Message]) -> list[Message]:
    """The messages, less each exception that closes a traceback vLLM logged under a heading after which it went on."""
    if _HANDLED_HEADING not in text:
        return errors           # (most pastes: the text is not split at all)
    lines = text.split("\n")
    return [m for m in errors if not (m.exc_type and vllm_went_on(lines, m.line_no))]


def vllm_went_on(lines: list[str], line_no: int) -> bool:
    """Whether the exception on line `line_no` (1-based, of the text's `lines`) closes a traceback that vLLM logged
    under a heading after which it went on (the heading is the line above "Traceback (most recent call last):")."""
    chained = False
    for i in range(min(line_no - 2, len(lines) - 1), max(0, line_no - HANDLED_REACH) - 1, -1):
        body = strip_prefixes(lines[i])[2].strip()
        if not body:
            continue
        if body.startswith("Traceback (most recent call last)"):
            above = next((b for b in (strip_prefixes(lines[j])[2].strip() for j in range(i - 1, -1, -1)) if b), "")
            if _CHAINED.match(above):
                chained = True      # an exception raised while handling another: the heading is above the first
                continue
            return _HANDLED_HEADINGS.search(above) is not None
        if _CHAINED.match(body):
            continue
        if EXCEPTION_LINE.match(body):
            if not chained:
                return False        # another exception's line: this one's traceback began below it
            chained = False
    return False


def ignored_spans(text: str) -> list[tuple[int, int]]:
    """The 1-based lines [from, to] of each block CPython printed for an exception it ignored ("Exception ignored in:
    <function X.__del__ ...>", the traceback, the exception and any exception chained to it): noise of a shutdown, not
    the run's error."""
    if "Exception ignored" not in text:
        return []
    lines = text.split("\n")
    spans = []
    for i, line in enumerate(lines):
        if "Exception ignored" not in line:
            continue
        head = _peel_headers(_unformat(line[:MAX_LINE_CHARS]))
        if not _IGNORED_HEAD.match(head[2].strip()):
            continue
        last, j, raised, chained, frame = i, i + 1, False, False, False
        while j < len(lines) and j - i < 400:
            *own, rest = _peel_headers(_unformat(lines[j][:MAX_LINE_CHARS]))
            if own != list(head[:2]):
                break               # another process's line, or a log record: the block ended
            body = rest.strip()
            if not body:
                # a blank line is inside the block only around Python's sentence that chains the next traceback
                k = j + 1
                while k < len(lines) and not _peel_headers(_unformat(lines[k][:MAX_LINE_CHARS]))[2].strip():
                    k += 1
                after = _peel_headers(_unformat(lines[k][:MAX_LINE_CHARS]))[2].strip() if k < len(lines) else ""
                if _CHAINED.match(after) or (chained and after.startswith("Traceback (most recent call last)")):
                    j = k
                    continue
                break
            if _CHAINED.match(body):
                raised, chained = False, True
            elif body.startswith("Traceback (most recent call last)"):
                if raised:
                    break           # a traceback of its own, chained to nothing: another error
                chained = False
            elif EXCEPTION_LINE.match(body):
                if raised:
                    break           # a second exception, chained to nothing: another error
                raised = True
            # (a frame, its source line under it, its carets; a process tag's prefix takes the indentation off)
            elif not (rest[:1] in (" ", "\t") or _FRAME.match(body) or frame):
                break
            frame = body.startswith('File "')
            last, j = j, j + 1
        spans.append((i + 1, last + 1))
    return spans


# the last line of an interrupt's traceback: Python's bare "KeyboardInterrupt", or with the words a handler raised it
# with (vLLM's server turns the SIGTERM of `timeout` or of a process manager into "KeyboardInterrupt: terminated"), under
# a collector's prefix too ("vllm-1  | KeyboardInterrupt"), not a frame's `raise KeyboardInterrupt`
_INTERRUPT_END = LazyRe(r"(?:^|\n)(?![^\n]*\braise\b)[^\n]{0,80}?\bKeyboardInterrupt(?::[^\n]{0,60})?$")


def _before_interrupt(text: str) -> int:
    """Where the text ends once the closing KeyboardInterrupt tracebacks are left out (its whole length when
    there is none): the user stopped a process that was waiting, and the wait is what it printed last. A
    server of several processes prints one such traceback per process, one after another."""
    cut = len(text)
    for _ in range(4):
        end = _last_non_blank(text, cut)
        if not _INTERRUPT_END.search(text, max(0, end - 160), end):
            break
        start = text.rfind("Traceback (most recent call last):", max(0, end - 65536), end)
        if start <= 0:
            break
        line_start = text.rfind("\n", 0, start) + 1
        if not _last_non_blank(text, line_start):
            break
        cut = line_start
    return cut


def _last_non_blank(text: str, end: int, chunk: int = 65536) -> int:
    """The end of the text before `end` without its trailing whitespace (0 when it is all blank)."""
    while end > 0:
        base = max(0, end - chunk)
        kept = len(text[base:end].rstrip())
        if kept:
            return base + kept
        end = base
    return 0


# The frame a traceback prints last above its exception is the code that raised it: the stack families read
# whose site it is, the derivers whose import failed (a package beside vLLM, or vLLM itself).
_FRAME_LINE = LazyRe(r'File "([^"\n]{1,400})", line \d+, in ([\w<>.]*)')
FRAME_REACH = 8         # lines between a frame and its exception: the source line, carets, a chained note


def raising_frame(text: str, line_no: int) -> str | None:
    """The path (with "/") of the innermost frame printed right above the message at `line_no`."""
    call = raising_call(text, line_no)
    return call[0] if call else None


def raising_call(text: str, line_no: int) -> tuple[str, str] | None:
    """(path with "/", function) of the innermost frame printed right above the message at `line_no`."""
    starts = line_starts(text)
    end = starts[min(line_no, len(starts)) - 1]
    above = text[starts[max(0, line_no - 1 - FRAME_REACH)]:end].split("\n")
    for line in reversed(above):
        found = _FRAME_LINE.search(line)
        if found:
            return found.group(1).replace("\\", "/"), found.group(2)
    return None


MAX_TRACEBACK_LINES = 200


def frame_sources(text: str, line_no: int) -> list[str]:
    """The source lines Python printed under the frames of the traceback right above the message at `line_no`,
    outermost first (`self.tokenizer = get_model_path(self.tokenizer, self.tokenizer_revision)`): what a frame
    passed on tells which of the user's settings the failing call was given. Stops at the traceback's start."""
    starts = line_starts(text)
    end = starts[min(line_no, len(starts)) - 1]
    lines = text[starts[max(0, line_no - 1 - MAX_TRACEBACK_LINES)]:end].split("\n")
    out: list[str] = []
    for i in range(len(lines) - 1, -1, -1):
        body = strip_prefixes(lines[i])[2]
        if body.startswith(("Traceback (most recent call last)", "During handling", "The above exception")):
            break
        if _FRAME_LINE.search(body) and i + 1 < len(lines):
            source = strip_prefixes(lines[i + 1])[2].strip()
            if source and not source.startswith('File "') and not _CARETS_ONLY.fullmatch(source):
                out.append(source)
    return out[::-1]


_CARETS_ONLY = LazyRe(r"[\^~\s]+")


@functools.lru_cache(maxsize=1)
def line_starts(text: str) -> list[int]:
    """Where each line of the paste starts: one pass, shared by every message tried (splitting a long
    paste up to each message's line cost a pass per message)."""
    return [0, *(m.end() for m in re.finditer("\n", text))]


# faulthandler's report of a fatal signal (Python 3.3+: "Fatal Python error: Segmentation fault", then each thread's
# stack, innermost frame first; the thread that crashed is "Current thread 0x...", wherever it comes among the others)
_FAULT_HEADER = LazyRe(r"^Fatal Python error: (Segmentation fault|Aborted|Bus error|Floating point exception|"
                       r"Illegal instruction)\s*$", re.M)
_FAULT_THREAD = LazyRe(r"^(Current thread|Thread) 0x[0-9a-f]+ (?:\[[^\]\n]{0,80}\] )?\(most recent call first\):\n"
                       r"((?:[ \t]*File \"[^\"\n]{1,400}\", line \d+ in [\w<>.]+\n?){1,40})", re.M)
_FAULT_FRAME = LazyRe(r"File \"([^\"\n]{1,400})\", line (\d+) in ([\w<>.]+)")


def fault_frames(text: str) -> tuple[str, list[tuple[str, str, str]]] | None:
    """(signal, the crashed thread's frames innermost first as (path with "/", line, function)) of faulthandler's
    report: the thread it marks "Current thread", or the only thread it dumped."""
    head = _FAULT_HEADER.search(text) if "Fatal Python error: " in text else None
    if head is None:
        return None
    threads = list(_FAULT_THREAD.finditer(text, head.end(), head.end() + 40000))
    current = next((t for t in threads if t.group(1) == "Current thread"), threads[0] if len(threads) == 1 else None)
    if current is None:
        return None
    return head.group(1), [(p.replace("\\", "/"), n, f) for p, n, f in _FAULT_FRAME.findall(current.group(2))]


# The crash report of abseil's failure signal handler (Ray's workers install it) and of glog's, which it grew from.
# abseil (absl/debugging/failure_signal_handler.cc, WriteSignalMessage: "*** %s received at time=%ld%s ***", " on cpu
# %d"; then internal/examine_stack.cc, DumpPCAndFrameSizeAndSymbol: "%s@ %*p  (unknown)  %s" or "%s@ %*p  %9d  %s",
# the prefix "PC: " for the signal's program counter, then "    " for each frame; "    @ ... and at least %d more
# frames"):
#   *** SIGSEGV received at time=1712345678 on cpu 3 ***
#   PC: @     0x7f0c73d2944a  (unknown)  addProxyOpIfNeeded()
#       @     0x7f3c7fab6090  1954032864  (unknown)
# glog (src/signalhandler.cc, DumpTimeInfo, DumpSignalInfo, DumpStackFrameInfo: "PC: " or "    ", "@ ", the address
# padded, " ", the symbol), the PC line above the signal's:
#   *** Aborted at 1225095260 (unix time) try "date -d @1225095260" if you are using GNU date ***
#   PC: @           0x412eb1 TestWaitingLogSink::send()
#   *** SIGSEGV (@0x0) received by PID 17711 (TID 0x7f893090a6f0) from PID 0; stack trace: ***
#       @     0x7f892fb417d0 (unknown)
# Ray logs the report a second time behind its own prefix ("[2024-07-25 10:46:00,050 E 24036 24036] logging.cc:440: "):
# each line is searched, not matched from its start.
_CRASH_BANNER = LazyRe(r"\*\*\* (SIG[A-Z]{2,6}|Signal \d{1,2}) (?:received at time=|\(@(?:0x)?[0-9a-f]{1,16}\) received by PID )")
_CRASH_FRAME = LazyRe(r"(?:^|[\s:])(PC: )?@ +(?:0x[0-9a-f]{1,16}|\(nil\)) +(?:(?:\(unknown\)|\d{1,12}) {2,})?(\S.{0,400}?)\s*$")
# The way down of every abort, not the code that asked for it: libc's raise and abort, its checks of the heap and of
# assertions (which abort for a caller), C++'s terminate.
_ABORT_PATH = LazyRe(r"(?:__GI_)?(?:raise|gsignal|abort|__pthread_kill\w*|pthread_kill|__restore_rt|killpg?)"
                     r"|(?:__libc_)?(?:c?free|malloc\w*|_int_free\w*|__libc_message\w*|__fortify_fail\w*|__assert_fail\w*)"
                     r"|(?:__cxxabiv1::|__gnu_cxx::|std::)?__?\w*terminate\w*(?:\(\))?|__cxa_\w+(?:\(\))?"
                     r"|\(unknown\)")
CRASH_FRAMES = 8        # frames read below the banner


# tvm_ffi's report (src/ffi/traceback.cc: "!!!!!!! Segfault encountered !!!!!!!", then libbacktrace's frames innermost
# first, each written Python's way, `  File "<unknown>", line 0, in cudaMemcpyAsync`, the function demangled or its
# address in hex where no symbol is known)
TVM_CRASH_BANNER = "!!!!!!! Segfault encountered !!!!!!!"
_TVM_FRAME = LazyRe(r"^\s*File \"[^\"\n]{0,400}\", line \d+, in (\S.{0,600}?)\s*$")


def tvm_crash_report(text: str, line_no: int) -> list[str]:
    """The functions tvm_ffi's crash report under the banner on line `line_no` names, innermost first, without the
    way down of an abort or a bare address; their demangled arguments left out."""
    starts = line_starts(text)
    if not 0 < line_no <= len(starts) or TVM_CRASH_BANNER not in text[starts[line_no - 1]:starts[line_no - 1] + 200]:
        return []
    names = []
    for line in text[starts[line_no - 1]:].split("\n", CRASH_FRAMES + 2)[1:CRASH_FRAMES + 1]:
        m = _TVM_FRAME.match(line)
        if m is None:
            break
        name = m.group(1)
        if "(" in name and not name.startswith("("):
            name = name[:name.index("(")]       # "swap_blocks(at::Tensor&, ...)": the name
        if name and not re.fullmatch(r"0x[0-9a-f]+|<unknown>", name) and not _ABORT_PATH.fullmatch(name):
            names.append(name)
    return names


# UCX's backtrace under its "Caught signal" line (ucs_debug_print_backtrace): "==== backtrace (tid:%7d) ====", then a frame
# a line, "%2d 0x%016lx %s()  %s:%u" where it reads debug info, else backtrace_symbols' "%2d  /lib/x.so(sym+0x8a) [0x..]",
# then a rule of "=" signs. Its own handler's frames lead it (ucs_handle_error and its unnamed callers, the signal's way
# in through libc), above the code that crashed.
UCX_CRASH_BANNER = LazyRe(r"Caught signal \d{1,2} \((?P<signal>[A-Z][\w ]{2,40}): ")
_UCX_BACKTRACE = LazyRe(r"^\s*==== backtrace \(tid: *\d+\) ====\s*$")
_UCX_FRAME = LazyRe(r"^\s*\d{1,2} +(?:0x[0-9a-f]+ (?P<detailed>\S[^\n]{0,400}?)\(\) +\S+:\d+"
                    r"|(?P<lib>[^\s(]{1,400})\((?P<sym>[^()+\s]{0,400})(?:\+0x[0-9a-f]+)?\) \[0x[0-9a-f]+\])\s*$")
_UCX_HANDLER = LazyRe(r"ucs_\w+|__sigaction|\?\?\??")


def ucx_crash_report(text: str, line_no: int) -> tuple[str, list[str]] | None:
    """(signal, the functions named below its handler's frames, innermost first) of UCX's crash report whose "Caught
    signal" line is on line `line_no`; None where no backtrace follows it."""
    starts = line_starts(text)
    if not 0 < line_no <= len(starts):
        return None
    lines = text[starts[line_no - 1]:].split("\n", 40)[:40]
    banner = UCX_CRASH_BANNER.search(lines[0])
    head = next((i for i, line in enumerate(lines[1:4], 1) if _UCX_BACKTRACE.match(line)), None)
    if banner is None or head is None:
        return None
    names = []
    for line in lines[head + 1:]:
        m = _UCX_FRAME.match(line)
        if m is None:
            break                       # its closing rule of "=" signs, or the next program's line
        name = (m.group("detailed") or m.group("sym") or "").strip()
        if name and not _UCX_HANDLER.fullmatch(name) and not _ABORT_PATH.fullmatch(name):
            names.append(name)
    return banner.group("signal"), names


def crash_report(text: str, line_no: int) -> tuple[str, str, bool] | None:
    """(signal, function, whether it is the one the signal struck) of the abseil or glog crash report whose banner is
    on line `line_no`: the function its "PC:" line names, else the first frame named that is not the way down of an
    abort (libc's raise, C++'s terminate), which the crashed code called from; None when no function is named."""
    starts = line_starts(text)
    if not 1 < line_no + 1 <= len(starts):
        return None
    lines = text[starts[max(0, line_no - 2)]:].split("\n", CRASH_FRAMES + 4)[:CRASH_FRAMES + 3]
    at = min(line_no - 1, 1)
    banner = _CRASH_BANNER.search(lines[at])
    if banner is None:
        return None
    pc, frames = None, []
    if at and "received by PID" in lines[at]:       # glog's PC line is right above its signal's
        m = _CRASH_FRAME.search(lines[0]) if "PC: @" in lines[0] else None
        pc = m.group(2).strip() if m else None
    for line in lines[at + 1:]:
        m = _CRASH_FRAME.search(line) if "@ " in line and not _CRASH_BANNER.search(line) else None
        if m is None or m.group(2).startswith("... and at least"):
            break                       # the report's end (Ray prints each twice: the next one's banner)
        if m.group(1):
            pc = m.group(2).strip()
        else:
            frames.append(m.group(2).strip())
    named = [s for s in ([pc] if pc else []) + frames if not _ABORT_PATH.fullmatch(s)]
    if not named:
        return None
    return banner.group(1), named[0], named[0] == pc
