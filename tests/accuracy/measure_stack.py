"""Accuracy on the researcher's real pastes of failures beneath vLLM (tests/accuracy/stack_pastes.yaml).

The manifest splits them: `rule` — a hand-written rule was written from the paste (it is that rule's
fixture, and left out of the figures); `cited` — a rule written before this set cites its thread (left
out too); `measure` — held out, never used to write a rule; `negative`
— another program's log that shows it (its frames, its name: plain PyTorch, SGLang, llama.cpp, a
training job, ...), which must get no answer at all; `bare` — a line from another project's thread that
shows no program at all, which a vLLM help channel gets from its own users too: answered on the
stack's terms (the error's meaning, with a word that the paste shows no vLLM), counted apart.

    python tests/accuracy/measure_stack.py           # table and figures
    python tests/accuracy/measure_stack.py --json

Top-1 = held-out pastes whose first answer is the rule or stack family the thread's cause names
(`expect`), over all held-out pastes; an abstention counts against it. A false diagnosis is any
answer (a diagnosis, or "only a wrapper matched") on a negative; the answers on `bare` pastes are
printed beside it, since the set first counted them as negatives too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MANIFEST = HERE / "stack_pastes.yaml"
ANSWERED = ("diagnosed", "wrapper_only")


def load(manifest: Path = MANIFEST) -> list[dict]:
    return yaml.safe_load(manifest.read_text(encoding="utf-8")) or []


def run(cases: list[dict], root: Path = ROOT) -> list[dict]:
    from bot.diagnose import diagnose
    from bot.learn.fixtures import read
    out = []
    for c in cases:
        report = diagnose(read(root / c["file"]).data)
        top = report.diagnoses[0] if report.diagnoses else None
        answered = report.verdict in ANSWERED and top is not None
        got = top.rule_id if answered else "-"
        if c["split"] == "negative":
            outcome = "false" if answered else "abstained"
        elif c["split"] == "bare" and answered:
            outcome = "answered" if got == c["expect"] else "wrong"
        elif not answered:
            outcome = "missed"
        else:
            outcome = "right" if got == c["expect"] else "weaker" if got in (c.get("accept") or ()) else "wrong"
        f = report.facts
        # Whether anything can be answered without guessing: the paste shows no other program (vLLM,
        # or nothing at all), and an error line (an exception, a native line, an ERROR record).
        shows_error = report.root is not None
        answerable = bool(f.get("stack_context")) and not f.get("foreign_context") and shows_error
        out.append({**c, "got": got, "verdict": report.verdict, "outcome": outcome, "answerable": answerable,
                    "confidence": top.confidence if answered else 0.0})
    return out


def figures(results: list[dict], split: str = "measure") -> dict:
    held = [r for r in results if r["split"] == split]
    neg = [r for r in results if r["split"] == "negative"]
    bare = [r for r in results if r["split"] == "bare"]
    n = Counter(r["outcome"] for r in held)
    able = [r for r in held if r["answerable"]]
    fine = n["right"] + n["weaker"]
    return {
        "measured": len(held), "right": n["right"], "weaker": n["weaker"], "wrong": n["wrong"], "missed": n["missed"],
        "answerable": len(able), "answerable_right": sum(r["outcome"] == "right" for r in able),
        "top1_answerable": round(sum(r["outcome"] == "right" for r in able) / len(able), 3) if able else 0.0,
        "top1": round(n["right"] / len(held), 3) if held else 0.0,
        "precision": round(fine / (fine + n["wrong"]), 3) if fine + n["wrong"] else 1.0,
        "negatives": len(neg), "false_diagnoses": sum(r["outcome"] == "false" for r in neg),
        # what each negative shows of its program, where the manifest says (stack2): a named program or
        # its frames, or nothing at all (a bare line)
        "false_by_shows": {shows: f"{sum(r['outcome'] == 'false' for r in neg if r.get('shows') == shows)}/"
                                  f"{sum(1 for r in neg if r.get('shows') == shows)}"
                           for shows in sorted({r["shows"] for r in neg if r.get("shows")})},
        "bare": len(bare), "bare_answered": sum(r["outcome"] == "answered" for r in bare),
        "bare_wrong": sum(r["outcome"] == "wrong" for r in bare),
        "written_from": sum(r["split"] == "rule" for r in results),
        "cited": sum(r["split"] == "cited" for r in results),
        "used": sum(r["split"] == "used" for r in results),
        "by_class": {cls: f"{sum(r['outcome'] == 'right' for r in held if r['class'] == cls)}/"
                           f"{sum(1 for r in held if r['class'] == cls)}"
                     for cls in sorted({r["class"] for r in held})},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--manifest", type=Path, default=MANIFEST)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results = run(load(args.manifest))
    figs = figures(results)
    if args.json:
        for r in results:
            print(json.dumps({k: r[k] for k in ("file", "class", "split", "expect", "got", "outcome", "answerable")}))
        print(json.dumps(figs))
        return 0
    print(f"{'paste':58} {'split':8} {'outcome':9} {'vLLM+error':10} {'answer':28} {'thread':28}")
    for r in sorted(results, key=lambda r: (r["split"], r["outcome"], r["file"])):
        able = "yes" if r["answerable"] else "no"
        print(f"{Path(r['file']).name[:58]:58} {r['split']:8} {r['outcome']:9} {able:10} {r['got'][:28]:28} {r['expect'][:28]:28}")
    print()
    print(f"held out {figs['measured']} (never used to write a rule; {figs['written_from'] + figs['used']} others were): "
          f"right {figs['right']}, weaker {figs['weaker']}, wrong {figs['wrong']}, no answer {figs['missed']}")
    print(f"top-1 {figs['top1']:.1%}, precision {figs['precision']:.1%} (right or not wrong, of those answered)")
    if figs["used"]:
        u = figures(results, "used")
        print(f"read while changing the bot ({u['measured']}, counted apart): right {u['right']}, weaker {u['weaker']}, "
              f"wrong {u['wrong']}, no answer {u['missed']}")
    print(f"of those, {figs['answerable']} show an error line and no other program (the others show another "
          f"program's frames, or are cut before the error): top-1 there "
          f"{figs['answerable_right']}/{figs['answerable']} = {figs['top1_answerable']:.1%}")
    print(f"negatives {figs['negatives']} (another program's log): false diagnoses {figs['false_diagnoses']}"
          + (" (by what the paste shows: " + ", ".join(f"{k} {v}" for k, v in figs["false_by_shows"].items()) + ")"
             if figs["false_by_shows"] else ""))
    if figs["bare"]:
        print(f"bare lines from other projects' threads {figs['bare']}: answered on the stack's terms "
              f"{figs['bare_answered']}, another answer {figs['bare_wrong']} (false diagnoses by the set's first "
              f"definition: {figs['false_diagnoses'] + figs['bare_answered'] + figs['bare_wrong']} of "
              f"{figs['negatives'] + figs['bare']})")
    print("by class (right/held out): " + ", ".join(f"{k} {v}" for k, v in figs["by_class"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
