"""Speed figures for the diagnosis engine (a benchmark that prints, not a timed test).

    python tests/bench_diagnose.py

1. A 1 MB log against the whole rule book vs one compiled-regex pass over the same text (the
   seed's `grep "ERROR\\|Error\\|error"` as a Python regex), side by side in this process.
2. 10 MB adversarial pastes: each must answer in under a second.
3. Cold start of `vllm-doctor diagnose` on a small log vs `python -c "import yaml, rapidfuzz"`.
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


def best_of(fn, n=7) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
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


def adversarial() -> dict[str, str]:
    ten = 10 * 1024 * 1024
    return {
        "one 10 MB line of 'Error: '": "Error: " * (ten // 7),
        "10 MB of distinct exception lines": "".join(f"ValueError: bad value {i} in layer {i % 97}\n"
                                                     for i in range(ten // 38)),
        "10 MB of open brackets and quotes": ("([{'\"" * 40 + "\n") * (ten // 201),
        "10 MB of 'a' then '!'": "a" * ten + "!",
        "10 MB binary": os.urandom(ten),
        "10 MB tracebacks repeated per rank": ("(VllmWorker rank=3 pid=99) ERROR 01-01 00:00:00 [w.py:1] Traceback (most recent call last):\n"
                                               '  File "/x.py", line 1, in f\n'
                                               "RuntimeError: NCCL error: unhandled system error\n") * (ten // 170),
    }


def bench_adversarial(book) -> None:
    for name, data in adversarial().items():
        t = best_of(lambda: diagnose(data, book=book), n=1)
        r = diagnose(data, book=book)
        print(f"{name}: {t * 1000:.0f} ms (target < 1000 ms), verdict {r.verdict}")


def bench_cold_start() -> None:
    small = HERE / "fixtures" / "bench" / "failure.log"
    exe = [sys.executable, "-m", "bot.cli", "diagnose", str(small)]
    subprocess.run(exe, capture_output=True, check=True)            # warm the rule-book cache
    def run(cmd):
        return best_of(lambda: subprocess.run(cmd, capture_output=True, check=True), n=9)
    base = run([sys.executable, "-c", "import yaml, rapidfuzz"])
    ours = run(exe)
    print(f"cold start: vllm-doctor diagnose {ours * 1000:.0f} ms, python -c 'import yaml, rapidfuzz' "
          f"{base * 1000:.0f} ms, ratio {ours / base:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    book = load_rulebook()
    bench_1mb(book)
    bench_adversarial(book)
    bench_cold_start()
