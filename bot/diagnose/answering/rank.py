"""Rank the candidates of every source, and see past a wrapper.

Ranking follows the seed's method: the FIRST real error wins, root causes outrank hints and hints
outrank wrappers, and `supersedes` breaks ties when two rules explain the same line. A wrapper
("Engine core initialization failed. See root cause above") is no answer when the paste shows the
error it wraps: that error is answered, or quoted.
"""

from __future__ import annotations

import bisect

from bot.base.record import Record
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.facts.vllm_run import NATIVE_CRASH_REPORT as NATIVE_CRASH, run_starts
from bot.diagnose.reading.tracebacks import RELAY, Message, an_exit

LEVEL_RANK = {"root": 0, "hint": 1, "wrapper": 2}


def rank(cands: list[Candidate]) -> list[Candidate]:
    """Best first: roots before hints before wrappers, then the FIRST error of the log, then the
    surer; a rule that `supersedes` another explaining the same log goes before it."""
    # A warning (a WARNING record, or a line of Python's warnings module: joblib's "UserWarning: [Errno 28]
    # ... will operate in serial mode") is never the root while an error explains the same log; a
    # rule that explains a consequence by the warning above it (torch's failed CUDA start) `supersedes` it.
    cands.sort(key=lambda c: (LEVEL_RANK[c.rule.level], c.message.level == "WARNING" or c.message.py_warning,
                              c.position, -c.confidence))
    by_id = {c.rule.id: c for c in cands}
    # (passes until nothing moves: a rule moved up before the one it supersedes may pass one that supersedes it, whose
    # turn came earlier: ray-worker-died > worker-died > shm-broadcast-stall; bounded, should two rules supersede each other)
    for _ in range(len(cands)):
        moved = False
        for winner in list(cands):
            for loser_id in winner.rule.supersedes:
                loser = by_id.get(loser_id)
                if loser is None or loser is winner:
                    continue
                if cands.index(loser) < cands.index(winner):
                    cands.remove(winner)
                    cands.insert(cands.index(loser), winner)
                    moved = True
        if not moved:
            break
    return cands


class Matched(Record):
    candidates: list[Candidate]          # best first; one per rule (its first hit)
    cause: Message | None = None         # the real error above a wrapper, when no rule knows it



def _real_errors(errors: list[Message], wrapped: set[int]) -> list[Message]:
    """Exceptions that are causes, and the lines native code printed as it died (libzmq's check,
    "Killed"): not a wrapper's own message, not a warning, not a bare SystemExit (vLLM's workers raise it as their
    signal handler stops them, above the shell's "Killed" of the process whose death stopped them; Ctrl-C's
    KeyboardInterrupt stays: a person stopped that run)."""
    return [m for m in errors if (m.exc_type or m.inner or m.native) and id(m) not in wrapped
            and m.level != "WARNING" and not (m.exc_type or "").endswith("Warning")
            and not (an_exit(m) and (m.exc_type or "").endswith("SystemExit"))]


def _visible_cause(wrapper: Candidate, errors: list[Message], wrapped: dict[int, set[str]],
                   text: str) -> Message | None:
    """The first real exception of the wrapper's run that the paste shows: above the wrapper's last
    line, inside the very log record that printed the wrapper (`logger.exception` prints its
    message first and the traceback that caused it after), or the worker's own exception that a wrapper
    relays below it (vLLM's "Worker failed with error '...'", printed after the executor reported the
    death): that quoted text is what the worker raised, not a consequence of the death."""
    real = _real_errors(errors, set(wrapped))
    if not real:
        return None
    starts = run_starts(text)
    run = bisect.bisect_right(starts, wrapper.message.line_no)
    hits = [wrapper.message] + [m for m in errors if wrapper.rule.id in wrapped.get(id(m), ())
                                and bisect.bisect_right(starts, m.line_no) == run]
    last = max(m.line_no for m in hits)
    records = {(m.proc, m.header) for m in hits if m.level and m.header}
    relays = {m.line_no for m in errors if not m.inner and RELAY.search(m.text)}
    for m in real:
        if bisect.bisect_right(starts, m.line_no) == run and \
                (m.line_no < last or (m.proc, m.header) in records or (m.inner and m.line_no in relays)):
            return m
    return None


def cover_wrappers(cands: list[Candidate], wrappers: list, errors: list[Message], holds, text: str) -> Matched:
    """A wrapper ("the real error is above") is no answer when the paste shows that error: answer
    it with a rule, or quote it. So is a hint that points above (a worker's death, `points_above`):
    the exception or the native line above it is what it reports. Only such pointers are left
    here, or nothing at all."""
    first = next((c for c in cands if c.points_above), None)
    if first is None:
        return Matched(cands)
    if any(not c.points_above and c.rule.status == "active" for c in cands):
        return Matched(_answered_above(cands, text))
    wrapped: dict[int, set[str]] = {}
    for m in errors:
        ids = {r.id for r in wrappers if r.search(m.text, holds) is not None}
        if ids:
            wrapped[id(m)] = ids
    cause = _visible_cause(first, errors, wrapped, text)
    if cause is None or _native_death(first, cause):
        return Matched(cands)
    return Matched([c for c in cands if not c.points_above], cause)


def _native_death(pointer: Candidate, cause: Message) -> bool:
    """Whether the error above a process's death that no rule answers is that process's crash report of a fatal signal
    (tvm_ffi's "Segfault encountered", faulthandler's "Fatal Python error: Segmentation fault"): the death's own rule,
    a hint that reports it (`points_above`: the engine core's, a worker's), is then the answer: the report names no
    cause a rule could give, only that the process died of a signal in native code."""
    return (pointer.rule.level == "hint" and pointer.rule.points_above and bool(cause.native) and not cause.exc_type
            and NATIVE_CRASH.search(cause.text) is not None)


def _answered_above(cands: list[Candidate], text: str) -> list[Candidate]:
    """A pointer printed after an error a rule answers as a root cause, in the same run, reports that
    error (vLLM kills its own processes after a fatal exception, and the shell prints "Killed"): it is
    no second answer."""
    starts = run_starts(text)
    answered = [(bisect.bisect_right(starts, c.message.line_no), c.message.line_no) for c in cands
                if not c.points_above and c.rule.status == "active" and c.rule.level == "root"]
    return [c for c in cands if not c.points_above or not any(
        run == bisect.bisect_right(starts, c.message.line_no) and line < c.message.line_no for run, line in answered)]
