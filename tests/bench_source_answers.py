"""Answers from vLLM's source, through the whole diagnose() (prints figures; not a test).

    python tests/bench_source_answers.py [--sample 60] [--seed 11]

1. Precision on a random sample: user-facing raise sites of the newest indexed release and of 0.8.5,
   each message synthesised into a minimal traceback whose frames are the user's (never the raise
   site), through `diagnose()`. Printed one per line for a person to check: the site the first
   diagnosis names against the one the message came from, its rule and the start of its text.
   (Coverage over every site: `python tests/bench_vllm_source.py`, "through diagnose()".)
2. No regressions: every rule fixture still gives its own rule first and nothing it does not name;
   the negative fixtures get no answer, from a family rule or any other.
3. Real logs: the fixtures of the family rules and of the rules the index completes.
4. Cost: cold start on a paste a rule answers (the index is never loaded) and on one a family
   answers (it is), against `python -c "import yaml, rapidfuzz"`; the index's load in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.learn import fixtures  # noqa: E402
from bot.diagnose import diagnose, load_rulebook  # noqa: E402
from bot.diagnose.knowledge.vllm import index as vsrc  # noqa: E402
from bot.diagnose.knowledge.vllm.build.wheels import part_paths  # noqa: E402
from bot.diagnose.knowledge.vllm.synthesis import in_traceback, synthesise  # noqa: E402

HERE = Path(__file__).resolve().parent
LOGS = HERE / "fixtures" / "logs"
INDEX_COMPLETED = ("unexpected-keyword-argument", "cli-bad-args")


def sample_precision(idx, book, n: int, rng: random.Random) -> None:
    pool = []
    for release in (idx.releases[-1], idx.nearest_release("0.8.5")):
        pool += [(release, s) for s in idx.sites
                 if any(w["release"] == release and idx.user_facing_file(w["file"]) for w in s.where)]
    picked = rng.sample(pool, min(n, len(pool)))
    right = named = 0
    print(f"== a random sample of {len(picked)} synthesised messages through diagnose() ==")
    for release, site in picked:
        report = diagnose(in_traceback(site.exc, synthesise(site)), book=book)
        d = report.best
        src = d.vllm_source if d else None
        ok = bool(src) and any((w["file"], w["function"]) == (src["file"], src["function"]) for w in site.where)
        named += bool(src)
        right += ok
        got = f"{src['file']}:{src['function']}" if src else "-"
        mark = "right" if ok else ("WRONG" if src else "no site")
        print(f"[{mark}] {release} {site.exc}: {site.template[:70]!r}\n    -> {d.rule_id if d else None} "
              f"({report.verdict}, {d.confidence if d else 0:.2f}) {got} | {(d.title if d else '')[:80]}")
    print(f"sites named: {named} of {len(picked)}; right: {right}; precision {right / max(named, 1):.1%}")


def no_regressions(book) -> None:
    problems, families_on_negatives, n = [], 0, 0
    family_ids = {r.id for r in book if r.family}
    for fx in fixtures.all_fixtures(LOGS):
        report = diagnose(fx.data, book=book)
        n += 1
        problems += fixtures.check(fx, report)
        if fx.expect is None:
            families_on_negatives += sum(d.rule_id in family_ids for d in report.diagnoses)
    print(f"\n== no regressions ==\n{n} fixtures: {len(problems)} problem(s); answers from a family rule on the "
          f"negative fixtures: {families_on_negatives}")
    for p in problems[:10]:
        print("  " + p)


def real_logs(book) -> None:
    family_ids = sorted(r.id for r in book if r.family) + list(INDEX_COMPLETED)
    print("\n== real logs (fixtures) of the family rules and the rules the index completes ==")
    for rid in family_ids:
        fxs = [fixtures.read(p) for p in sorted((LOGS / rid).glob("*.log"))]
        ok = sum(not fixtures.check(fx, diagnose(fx.data, book=book)) for fx in fxs)
        print(f"{rid:34} {ok} of {len(fxs)} right")


def _best(cmd, env, n=9) -> float:
    """Best of n in the child's CPU time (user + system): steadier than the wall clock on a shared box."""
    import resource
    times = []
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, capture_output=True, check=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def cost() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rule_paste = HERE.parent / "bot" / "examples" / "engine-core-failed.log"
    family_paste = LOGS / "vllm-config-invalid" / "vllm-0.26-h200-tp-0.log"
    root = str(HERE.parent)
    for p in (rule_paste, family_paste):
        subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", str(p)], capture_output=True, check=True,
                       env=env, cwd=root)
    base = _best([sys.executable, "-c", "import yaml, rapidfuzz"], env)
    rule = _best([sys.executable, "-m", "bot.cli", "diagnose", str(rule_paste)], env)
    family = _best([sys.executable, "-m", "bot.cli", "diagnose", str(family_paste)], env)
    load = ("import time;t=time.perf_counter();from bot.diagnose.knowledge.vllm import index as v;i=v.load();"
            "i.match('ValueError: x');print(time.perf_counter()-t)")
    loads = [float(subprocess.run([sys.executable, "-c", load], capture_output=True, text=True, env=env,
                                  cwd=root).stdout) for _ in range(5)]
    size = sum(p.stat().st_size for p in part_paths(vsrc.DATA_PATH).values())
    print(f"\n== cost (best of 9, CPU time of the process) ==\n`python -c 'import yaml, rapidfuzz'` {base * 1e3:.0f} ms; "
          f"diagnose, a rule answers: {rule * 1e3:.0f} ms ({rule / base:.2f}x, index not loaded); "
          f"diagnose, a family answers: {family * 1e3:.0f} ms ({family / base:.2f}x)")
    print(f"index: {size / 1e6:.2f} MB on disk; import + load + first match in a fresh process: "
          f"{min(loads) * 1e3:.0f} ms (best of 5)")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sample", type=int, default=60)
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args()
    idx, book = vsrc.load(), load_rulebook()
    if idx is None:
        sys.exit("the index of vLLM's releases is not installed")
    sample_precision(idx, book, args.sample, random.Random(args.seed))
    no_regressions(book)
    real_logs(book)
    cost()


if __name__ == "__main__":
    main()
