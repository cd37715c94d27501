"""Accuracy on real pastes the rule book was not written from.

Every case of `real_pastes.yaml` names one real log (a fixture under tests/fixtures/logs/, or a
paste under tests/accuracy/pastes/ that no rule answers right yet) and what its thread shows:
the answer that is right (`expect`), answers that are not wrong but not the best (`accept`;
`none` means abstaining is fine), the cause in a sentence, and optionally words the answer must
not say (`forbid`, e.g. a flag the user's release lacks) or must say (`require`). A thread a rule
already cites in its `references` is marked `cited_by` and left out of the headline figures
(the rule may have been written from it); the figures with them follow on a second line.

    python tests/accuracy/measure.py            # table and figures
    python tests/accuracy/measure.py --json     # one object per case, then the figures

Each case is one of:
    right      the first answer is the one the thread shows (and its text passes the checks)
    weaker     answered with something not wrong, where a better rule exists (`accept`)
    wrong      answered with something the thread shows is not the cause, or with text it forbids
    unsure     no answer, and none was expected (correctly unsure)
    missed     no answer, though a rule or family exists for it

Precision = (right + weaker) / answered; answered = diagnosed or wrapper-only verdicts.
It runs whatever `bot` the interpreter imports, so a figure for an older rule book comes from
running this file with that checkout first on PYTHONPATH (`--root` still points at this tree).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MANIFEST = HERE / "real_pastes.yaml"
ANSWERED = ("diagnosed", "wrapper_only")


@dataclass
class Case:
    file: str
    expect: str                     # a rule id, or "none"
    accept: list[str]
    cause: str
    tags: list[str] = field(default_factory=list)
    forbid: list[str] = field(default_factory=list)
    require: list[str] = field(default_factory=list)
    cited_by: list[str] = field(default_factory=list)   # rules whose `references` name its thread


@dataclass
class Result:
    case: Case
    verdict: str
    got: str                        # the first answer's rule id, or "-"
    confidence: float
    outcome: str
    why: str = ""


def load(manifest: Path = MANIFEST) -> list[Case]:
    raw = yaml.safe_load(manifest.read_text(encoding="utf-8")) or []
    return [Case(file=c["file"], expect=c["expect"], accept=list(c.get("accept") or []),
                 cause=c.get("cause", ""), tags=list(c.get("tags") or []),
                 forbid=list(c.get("forbid") or []), require=list(c.get("require") or []),
                 cited_by=list(c.get("cited_by") or []))
            for c in raw]


def _log(path: Path) -> bytes:
    """The log without its fixture headers."""
    from bot.learn.fixtures import read
    return read(path).data


def classify(case: Case, report) -> Result:
    top = report.diagnoses[0] if report.diagnoses else None
    answered = report.verdict in ANSWERED and top is not None
    if not answered:
        fine = case.expect == "none" or "none" in case.accept
        return Result(case, report.verdict, "-", 0.0, "unsure" if fine else "missed")
    got = top.rule_id
    text = "\n".join((top.title, top.cause, top.fix))
    if got == case.expect or got in case.accept:
        said = [w for w in case.forbid if w in text]
        lacks = [w for w in case.require if w not in text]
        if said or lacks:
            why = "; ".join([f"says {w!r}" for w in said] + [f"does not say {w!r}" for w in lacks])
            return Result(case, report.verdict, got, top.confidence, "wrong", why)
        outcome = "right" if got == case.expect else "weaker"
        return Result(case, report.verdict, got, top.confidence, outcome)
    return Result(case, report.verdict, got, top.confidence, "wrong", f"the thread shows {case.expect}")


def run(cases: list[Case], root: Path = ROOT, lang: str = "en") -> list[Result]:
    from bot.diagnose import diagnose
    return [classify(c, diagnose(_log(root / c.file), lang=lang)) for c in cases]


def figures(results: list[Result]) -> dict:
    n = Counter(r.outcome for r in results)
    answered = n["right"] + n["weaker"] + n["wrong"]
    total = len(results)
    return {
        "cases": total,
        "answered": answered,
        "answered_share": round(answered / total, 3) if total else 0.0,
        "precision": round((n["right"] + n["weaker"]) / answered, 3) if answered else 1.0,
        **{k: n[k] for k in ("right", "weaker", "wrong", "unsure", "missed")},
        "wrong_by_rule": dict(Counter(r.got for r in results if r.outcome == "wrong")),
        "missed_by_rule": dict(Counter(r.case.expect for r in results if r.outcome == "missed")),
    }


def table(results: list[Result]) -> str:
    rows = [f"{'case':58} {'outcome':7} {'answer':30} {'thread':30}"]
    for r in sorted(results, key=lambda r: (r.outcome, r.case.file)):
        name = Path(r.case.file).name[:58]
        note = f"  ({r.why})" if r.why else ""
        rows.append(f"{name:58} {r.outcome:7} {r.got[:30]:30} {r.case.expect[:30]:30}{note}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", type=Path, default=ROOT, help="the tree the manifest's paths are relative to")
    p.add_argument("--manifest", type=Path, default=None)
    p.add_argument("--lang", default="en")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    manifest = args.manifest or args.root / "tests/accuracy/real_pastes.yaml"
    results = run(load(manifest), args.root, args.lang)
    figs = figures(results)
    if args.json:
        for r in results:
            print(json.dumps({"file": r.case.file, "outcome": r.outcome, "answer": r.got,
                              "expect": r.case.expect, "verdict": r.verdict, "why": r.why}))
        print(json.dumps(figs))
        return 0
    print(table(results))
    print()
    fresh = [r for r in results if not r.case.cited_by]
    figs = figures(fresh)
    print(f"cases {figs['cases']}: right {figs['right']}, weaker {figs['weaker']}, wrong {figs['wrong']}, "
          f"unsure (correct) {figs['unsure']}, missed {figs['missed']}")
    print(f"answered {figs['answered']} ({figs['answered_share']:.0%}), precision {figs['precision']:.1%}")
    if len(fresh) < len(results):
        every = figures(results)
        print(f"with the {len(results) - len(fresh)} threads the rules cite: cases {every['cases']}, right "
              f"{every['right']}, weaker {every['weaker']}, wrong {every['wrong']}, unsure {every['unsure']}, "
              f"missed {every['missed']}; answered {every['answered_share']:.0%}, precision {every['precision']:.1%}")
    if figs["wrong_by_rule"]:
        print("wrong answers by rule/family: " + ", ".join(f"{k} {v}" for k, v in sorted(figs["wrong_by_rule"].items())))
    if figs["missed_by_rule"]:
        print("missed by rule/family: " + ", ".join(f"{k} {v}" for k, v in sorted(figs["missed_by_rule"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
