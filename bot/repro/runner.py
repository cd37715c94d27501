"""Start one probe process, keep its output, and make sure nothing it started outlives it.

The probe runs in a session of its own, so its process group holds vLLM's engine processes too:
a time limit, a cancellation or a probe that exits while its engine lingers all end with the
whole group killed. No shell is involved anywhere: the command is an argument list.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .probe import MARKER, QUIET_ENV

PROBE_PATH = Path(__file__).with_name("probe.py")
# The probe is started through this bootstrap, not as `python probe.py`: a script's own folder
# goes first on sys.path, and this folder's queue.py would then shadow the standard library's
# `queue` inside vLLM and torch. (`-P` does the same, but only from Python 3.11 on.)
BOOTSTRAP = ("import runpy, sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
             "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
HEAD_BYTES = 64 * 1024           # the start: versions and the engine arguments vLLM logs
TAIL_BYTES = 2 * 1024 * 1024     # the end: where the errors are
LINE_BYTES = 1024 * 1024
POLL_S = 0.25
# Once a run has reported its result, the probe only has vLLM's shutdown left to do; a shutdown
# that hangs does not change the answer, so it gets this long before the group is killed.
EXIT_GRACE_S = 30.0


class ProbeUnavailable(RuntimeError):
    """The vLLM interpreter cannot run the probe at all (missing, or vllm does not import)."""


class CappedText:
    """The first `head` and the last `tail` bytes of a stream, with a note of what was cut."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES):
        self.head_cap, self.tail_cap = head, tail
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail.append(data)
        self.tail_size += len(data)
        while self.tail_size > self.tail_cap and len(self.tail) > 1:
            gone = self.tail.popleft()
            self.tail_size -= len(gone)
            self.dropped += len(gone)

    def text(self) -> str:
        cut = f"\n[... {self.dropped} bytes of output left out ...]\n" if self.dropped else ""
        return (bytes(self.head).decode("utf-8", "replace") + cut
                + b"".join(self.tail).decode("utf-8", "replace"))


@dataclass
class ProbeRun:
    mode: str
    argv: list[str]
    returncode: int | None
    seconds: float
    records: list[dict]                   # result records, in order (no begin events)
    sections: list[str]                   # output per attempt (preflight), or one (run)
    timed_out: bool = False
    cancelled: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def output(self) -> str:
        return "".join(self.sections)

    def section(self, index: int) -> str:
        """The output that belongs to attempt `index`; the import noise before attempt 0 is
        kept with it, since an import-time error belongs to the first attempt."""
        if index < len(self.sections):
            return self.sections[index]
        return self.sections[-1] if self.sections else ""


def strip_markers(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(MARKER))


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class ProbeRunner:
    python: str
    timeout_s: float = 1200.0
    preflight_timeout_s: float = 300.0
    env: dict = field(default_factory=dict)        # extra environment, e.g. CUDA_VISIBLE_DEVICES
    should_stop: Callable[[], bool] = lambda: False
    max_tokens: int = 5

    # -u: unbuffered, so stdout and stderr lines reach the pipe in the order they were printed.
    def command(self, mode: str, model: str, settings_list: list[dict], search: bool = False) -> list[str]:
        argv = [self.python, "-u", "-c", BOOTSTRAP, str(PROBE_PATH), mode, model]
        argv += [json.dumps(s, sort_keys=False) for s in settings_list]
        if search:
            argv.append("--search")
        if mode == "run":
            argv += ["--max-tokens", str(self.max_tokens)]
        return argv

    def child_env(self) -> dict:
        env = dict(os.environ)
        env.update(QUIET_ENV)
        env.update({k: str(v) for k, v in self.env.items()})
        return env

    def preflight(self, model: str, settings_list: list[dict], search: bool = False) -> ProbeRun:
        """Check configurations without an engine; with `search`, the rest only if the first fails."""
        argv = self.command("preflight", model, settings_list, search)
        return self._launch("preflight", argv, min(self.timeout_s, self.preflight_timeout_s))

    def run(self, model: str, settings: dict) -> ProbeRun:
        return self._launch("run", self.command("run", model, [settings]), self.timeout_s)

    def session(self, model: str) -> PreflightSession:
        """One probe process that imports vLLM once and answers configuration checks until closed."""
        return PreflightSession(self, [self.python, "-u", "-c", BOOTSTRAP, str(PROBE_PATH), "session", model])

    def _launch(self, mode: str, argv: list[str], limit: float) -> ProbeRun:
        started = time.monotonic()
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, env=self.child_env(),
                                    start_new_session=True, close_fds=True)
        except OSError as e:
            raise ProbeUnavailable(f"cannot start the vLLM interpreter {self.python!r}: {e.strerror or e}") from None
        reader = _Reader(proc.stdout)
        reader.start()
        timed_out = cancelled = False
        try:
            while True:
                try:
                    proc.wait(timeout=POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                answered = reader.answered_at
                if mode == "run" and answered is not None and time.monotonic() - answered > EXIT_GRACE_S:
                    break
                if time.monotonic() - started > limit:
                    timed_out = mode != "run" or answered is None
                    break
                if self.should_stop():
                    cancelled = True
                    break
        finally:
            # Always: the probe may be done while its engine processes are still around.
            kill_group(proc.pid)
            proc.wait()
            reader.join(timeout=10)
        seconds = time.monotonic() - started
        sections = [s.text() for s in reader.sections]
        if timed_out:
            sections[-1] += f"\n[vllm-doctor: the probe ran past its time limit of {limit:.0f} s and was killed]\n"
        return ProbeRun(mode, argv, proc.returncode, round(seconds, 3), reader.records, sections,
                        timed_out=timed_out, cancelled=cancelled)


class PreflightSession:
    """Configuration checks sent one command at a time to one probe process (`probe.py session`).

    A plan's preflight, culprit search and fix confirmation start no engine and hold no
    accelerator, so they share one process and one vLLM import; engine starts keep their own
    process each. The process starts with the first check and is killed by `close()`: it holds
    nothing worth a graceful exit."""

    def __init__(self, runner: ProbeRunner, argv: list[str]):
        self.runner, self.argv = runner, argv
        self.proc: subprocess.Popen | None = None
        self.reader: _SessionReader | None = None

    def __enter__(self) -> PreflightSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def check(self, settings_list: list[dict], search: bool = False) -> ProbeRun:
        """Like `ProbeRunner.preflight`, in the session's process."""
        started = time.monotonic()
        proc, reader = self._process()
        if proc.poll() is None:
            try:
                proc.stdin.write((json.dumps({"settings": settings_list, "search": search}) + "\n").encode())
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass                       # it died: the reader sees the end of its output
        limit = min(self.runner.timeout_s, self.runner.preflight_timeout_s)
        timed_out = cancelled = False
        while True:
            try:
                answer = reader.answers.get(timeout=POLL_S)
                break
            except queue.Empty:
                pass
            if time.monotonic() - started > limit:
                timed_out = True
            elif self.runner.should_stop():
                cancelled = True
            else:
                continue
            self.close()
            answer = reader.answers.get()
            break
        if timed_out:
            answer.sections[-1].add(f"\n[vllm-doctor: the probe ran past its time limit of {limit:.0f} s "
                                    "and was killed]\n".encode())
        if answer.rc is None:              # no answer: the process ended (or was ended) first
            self.close()
            answer.rc = proc.returncode
        return ProbeRun("preflight", self.argv, answer.rc, round(time.monotonic() - started, 3), answer.records,
                        [t.text() for t in answer.sections], timed_out=timed_out, cancelled=cancelled)

    def close(self) -> None:
        """Kill the process group; a later check starts a new process."""
        proc, reader, self.proc, self.reader = self.proc, self.reader, None, None
        if proc is None:
            return
        kill_group(proc.pid)
        proc.wait()
        try:
            proc.stdin.close()
        except OSError:
            pass
        reader.join(timeout=10)

    def _process(self) -> tuple[subprocess.Popen, _SessionReader]:
        if self.proc is None:
            try:
                self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, env=self.runner.child_env(),
                                             start_new_session=True, close_fds=True)
            except OSError as e:
                raise ProbeUnavailable(f"cannot start the vLLM interpreter {self.runner.python!r}: "
                                       f"{e.strerror or e}") from None
            self.reader = _SessionReader(self.proc.stdout)
            self.reader.start()
        return self.proc, self.reader


@dataclass
class _Answer:
    sections: list[CappedText] = field(default_factory=lambda: [CappedText()])
    records: list[dict] = field(default_factory=list)
    began: bool = False
    rc: int | None = None          # from the probe's done event; None when it never came


class _SessionReader(threading.Thread):
    """Reads a session's output, cut into one answer per command at the probe's done events."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.answers: queue.Queue[_Answer] = queue.Queue()
        self.current = _Answer()

    def run(self) -> None:
        marker = MARKER.encode()
        for line in iter(lambda: self.stream.readline(LINE_BYTES), b""):
            record = _marker_record(line[len(marker):]) if line.startswith(marker) else None
            if record is not None and record.get("event") == "done":
                self.current.sections[-1].add(line)
                self.current.rc = record.get("rc")
                self.answers.put(self.current)
                self.current = _Answer()
                continue
            if record is not None and record.get("event") == "begin":
                if self.current.began:
                    self.current.sections.append(CappedText())
                self.current.began = True
            elif record is not None:
                self.current.records.append(record)
            self.current.sections[-1].add(line)
        self.stream.close()
        self.answers.put(self.current)    # what came before the end, answered or not


def _marker_record(payload: bytes) -> dict | None:
    try:
        record = json.loads(payload.decode("utf-8", "replace"))
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class _Reader(threading.Thread):
    """Reads the probe's output as it comes, splitting it at the probe's begin markers."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.sections = [CappedText()]
        self.records: list[dict] = []
        self.began = False
        self.answered_at: float | None = None

    def run(self) -> None:
        marker = MARKER.encode()
        for line in iter(lambda: self.stream.readline(LINE_BYTES), b""):
            if line.startswith(marker):
                self._marker(line[len(marker):])
            self.sections[-1].add(line)
        self.stream.close()

    def _marker(self, payload: bytes) -> None:
        record = _marker_record(payload)
        if record is None:
            return
        if record.get("event") == "begin":
            # The output before the first attempt (imports) stays in attempt 0's section.
            if self.began:
                self.sections.append(CappedText())
            self.began = True
            return
        self.records.append(record)
        self.answered_at = time.monotonic()
