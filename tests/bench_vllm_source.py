"""Coverage, precision and cost of the index of vLLM's error surface (prints figures; not a test).

    python tests/bench_vllm_source.py [--releases 0.34.0,0.8.5] [--sample 40] [--index PATH] [--against PATH]

1. Coverage: every user-facing raise site of each release gets its message synthesised
   (placeholders filled with plausible values for their names), put in a minimal traceback whose
   frames are the user's own (never the raise site), cut into messages by the diagnosis's own
   cleaner (bot.diagnose.reading.tracebacks.messages) and matched. "Right" = the first match is that site
   (sites are one per exception class and literal text, so the same text in another file counts).
   Then the same pastes through the whole diagnose(): does the first diagnosis's `vllm_source`
   name the site?
   Also printed: how many wrong first matches are a template that yields the very same text
   (two sites a user cannot tell apart), and a random sample for a human to check.
2. Abstention: every error message of the negative fixtures (healthy vLLM, other programs, SGLang,
   TGI, ...) through match(); how many would get a site.
3. Cost: the data file's size, load time (a fresh process, against `import rapidfuzz` in the same
   kind of process), and match time per message after load.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.diagnose.reading import logtext, tracebacks  # noqa: E402
from bot.learn.fixtures import read  # noqa: E402
from bot.diagnose.knowledge.vllm import index as vsrc  # noqa: E402
from bot.diagnose.knowledge.vllm.synthesis import in_traceback, synthesise  # noqa: E402

HERE = Path(__file__).resolve().parent
NEGATIVE = HERE / "fixtures" / "logs" / "_negative"


def message_of(paste: str) -> tracebacks.Message | None:
    """The message the diagnosis would match: the traceback's exception line."""
    msgs = [m for m in tracebacks.messages(paste) if m.exc_type]
    return msgs[0] if msgs else None


def per_release(idx: vsrc.Index) -> None:
    """What each release holds: raise/assert statements with a message or not, and the distinct
    messages the index keeps (all, and in user-facing folders)."""
    distinct: dict[str, int] = {}
    user: dict[str, int] = {}
    for site in idx.sites:
        rels = {w["release"] for w in site.where}
        uf = {w["release"] for w in site.where if idx.user_facing_file(w["file"])}
        for r in rels:
            distinct[r] = distinct.get(r, 0) + 1
        for r in uf:
            user[r] = user.get(r, 0) + 1
    print("\n| vLLM | files | raise/assert sites | user-facing | no message | nearly all placeholder | "
          "distinct messages kept | user-facing |")
    print("|---|---|---|---|---|---|---|---|")
    for rel in idx.releases:
        c = idx.counts[rel]
        print(f"| {rel} | {c['files']:,} | {c['sites']:,} | {c['user_facing']:,} | {c['no_message']:,} | "
              f"{c['mostly_placeholder']:,} | {distinct.get(rel, 0):,} | {user.get(rel, 0):,} |")


def coverage(idx: vsrc.Index, release: str, sample: int, rng: random.Random, against: vsrc.Index | None = None) -> dict:
    """`against`: match with that index instead (one without the release): right is its first
    match being the same message (exception class and template, placeholders unnamed)."""
    from bot.diagnose.knowledge.vllm.build.wheels import shape
    sites = [s for s in idx.sites if any(w["release"] == release and idx.user_facing_file(w["file"])
                                         for w in s.where)]
    matcher = against or idx
    rows = []
    t_match = 0.0
    for site in sites:
        text = synthesise(site)
        msg = message_of(in_traceback(site.exc, text))
        if msg is None:
            rows.append((site, text, None, "no message"))
            continue
        t = time.perf_counter()
        got = matcher.match(msg.text, msg.exc_type)
        t_match += time.perf_counter() - t
        first = got[0] if got else None
        if first is None:
            verdict = "abstained"
        elif first.site is site or (against is not None and (first.site.exc, shape(first.site.template))
                                     == (site.exc, shape(site.template))):
            verdict = "right"
        elif first.site.fullmatch(" ".join(text.split())) is not None:
            verdict = "same text"       # another template yields this very text
        else:
            verdict = "wrong"
        rows.append((site, text, first, verdict))
    counts = {v: sum(1 for r in rows if r[3] == v) for v in ("right", "same text", "wrong", "abstained", "no message")}
    answered = counts["right"] + counts["same text"] + counts["wrong"]
    c = idx.counts.get(release, {})
    print(f"\n== vLLM {release}: {len(sites)} user-facing sites in the index "
          f"({c.get('user_facing', '?')} user-facing raise/assert statements, "
          f"{c.get('mostly_placeholder', '?')} of all sites skipped as nearly all placeholder, "
          f"{c.get('no_message', '?')} without a message)")
    print(f"first match right:      {counts['right']:5} / {len(sites)} = {counts['right'] / len(sites):.1%}")
    print(f"  + same text elsewhere: {counts['same text']:5}   (another site's template yields the identical text)")
    print(f"wrong site:             {counts['wrong']:5}")
    print(f"abstained:              {counts['abstained']:5}   no message found: {counts['no message']}")
    print(f"precision (right / answered): {counts['right'] / max(answered, 1):.1%};"
          f" counting identical texts as right: {(counts['right'] + counts['same text']) / max(answered, 1):.1%}")
    print(f"match time: {t_match / max(len(rows), 1) * 1e6:.0f} µs per message (first time each template is used)")
    print(f"-- random sample of {sample} for a human to check --")
    for site, text, first, verdict in rng.sample(rows, min(sample, len(rows))):
        w = first.site.latest_where() if first else None
        got = f"{w['file']}:{w['line']} {w['function']} ({first.by} {first.score:.0f})" if first else "-"
        want = site.latest_where()
        print(f"[{verdict}] {site.exc}: {text[:110]!r}\n    want {want['file']} {want['function']}\n    got  {got}")
    wrong = [r for r in rows if r[3] == "wrong"]
    if wrong:
        print(f"-- wrong first matches ({len(wrong)}; first 10) --")
        for site, text, first, _ in wrong[:10]:
            print(f"  {text[:100]!r}\n    want {site.template[:90]!r}\n    got  {first.site.template[:90]!r}")
    return counts


def through_diagnose(idx: vsrc.Index, release: str) -> None:
    """The same pastes through the whole `diagnose()`: the first diagnosis's `vllm_source` must name
    the site (its file and function in one of the site's places). A hand-written rule answers
    first where it knows the message; its answer is counted apart."""
    from bot.diagnose import diagnose
    sites = [s for s in idx.sites if any(w["release"] == release and idx.user_facing_file(w["file"])
                                         for w in s.where)]
    counts = {"right": 0, "wrong": 0, "rule": 0, "none": 0}
    start = time.perf_counter()
    for site in sites:
        report = diagnose(in_traceback(site.exc, synthesise(site)))
        first = report.diagnoses[0] if report.diagnoses else None
        src = first.vllm_source if first else None
        if first is None:
            counts["none"] += 1
        elif src is None:
            counts["rule"] += 1
        elif any((w["file"], w["function"]) == (src["file"], src["function"]) for w in site.where):
            counts["right"] += 1
        else:
            counts["wrong"] += 1
    n = len(sites)
    answered_by_index = counts["right"] + counts["wrong"]
    print(f"through diagnose(): first diagnosis names the site {counts['right']} / {n} = {counts['right'] / n:.1%}; "
          f"another site {counts['wrong']}; a hand-written rule without a site {counts['rule']}; "
          f"no diagnosis {counts['none']}; precision of sites named {counts['right'] / max(answered_by_index, 1):.1%}; "
          f"{(time.perf_counter() - start) / n * 1e3:.1f} ms per paste")


def abstention(idx: vsrc.Index) -> None:
    files = sorted(NEGATIVE.glob("*.log"))
    total = answered = 0
    print(f"\n== abstention: error messages of the {len(files)} negative fixtures ==")
    for path in files:
        text = logtext.clean(read(path).data).text
        for m in tracebacks.messages(text):
            if not m.is_error:
                continue
            total += 1
            got = idx.match(m.text, m.exc_type)
            if got:
                answered += 1
                w = got[0].site.latest_where()
                print(f"  {path.name}: {m.text[:90]!r}\n    -> {got[0].by} {got[0].score:.0f} {w['file']} {w['function']}")
    print(f"{answered} of {total} error messages got a site")


def cost(idx_path: Path) -> None:
    """Size on disk, and in a fresh process: import + load (the core), the first match with the
    site's places (reads the `where` part), the first argument lookup (reads the facts part); best
    of 5, beside `import rapidfuzz.fuzz` and `import yaml, rapidfuzz` timed the same way."""
    from bot.diagnose.knowledge.vllm.build.wheels import part_paths
    code = ("import time,sys;t=time.perf_counter();from bot.diagnose.knowledge.vllm import index as v;i=v.load(sys.argv[1]);"
            "t1=time.perf_counter();r=i.match('ValueError: max_num_batched_tokens (2048) must be greater than or "
            "equal to max_num_seqs (4096).');r[0].site.latest_where();t2=time.perf_counter();"
            "i.arg('--max-model-len');t3=time.perf_counter();print(t1-t,t2-t1,t3-t2)")
    root = str(HERE.parent)
    runs = [[float(x) for x in subprocess.run([sys.executable, "-c", code, str(idx_path)], capture_output=True,
                                                text=True, cwd=root).stdout.split()] for _ in range(5)]
    base = lambda stmt: min(float(subprocess.run([sys.executable, "-c", "import time;t=time.perf_counter();"
                                                  f"{stmt};print(time.perf_counter()-t)"], capture_output=True,
                                                 text=True, cwd=root).stdout) for _ in range(5))
    sizes = {name: p.stat().st_size for name, p in part_paths(idx_path).items()}
    best = [min(r[i] for r in runs) * 1e3 for i in range(3)]
    print(f"\n== cost ==\nindex files: {sum(sizes.values()) / 1e6:.2f} MB "
          f"({', '.join(f'{k} {v / 1e6:.2f}' for k, v in sizes.items())})")
    print(f"fresh process, best of 5: import + load {best[0]:.0f} ms; first match + its places {best[1]:.0f} ms; "
          f"first argument lookup {best[2]:.0f} ms")
    print(f"same box, same way: `import rapidfuzz.fuzz` {base('import rapidfuzz.fuzz') * 1e3:.0f} ms, "
          f"`import yaml, rapidfuzz` {base('import yaml, rapidfuzz') * 1e3:.0f} ms")


def match_speed(idx: vsrc.Index) -> None:
    """Warm matching: a few hundred error messages of real logs, memo cleared, after one pass."""
    texts = []
    for path in sorted((HERE / "fixtures" / "logs").glob("*/*.log")):
        clean = logtext.clean(read(path).data).text
        texts += [(m.text, m.exc_type) for m in tracebacks.messages(clean) if m.is_error]
    for t, e in texts:
        idx.match(t, e)
    idx._memo.clear()
    start = time.perf_counter()
    for t, e in texts:
        idx.match(t, e)
    dt = time.perf_counter() - start
    print(f"warm match over {len(texts)} error messages of the fixtures: {dt * 1e3:.0f} ms, "
          f"{dt / len(texts) * 1e6:.0f} µs per message")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--releases", default=None, help="default: the newest indexed release and 0.8.5")
    p.add_argument("--sample", type=int, default=40)
    p.add_argument("--index", default=str(vsrc.DATA_PATH))
    p.add_argument("--no-diagnose", action="store_true", help="skip the pass through the whole diagnose()")
    p.add_argument("--against", default=None, metavar="PATH",
                   help="match the releases' sites with the index at PATH instead (e.g. a copy without the "
                        "newest release: what its users got before `index update`); implies --no-diagnose")
    args = p.parse_args()
    idx = vsrc.load(args.index)
    if idx is None:
        sys.exit(f"no index at {args.index}: run `vllm-doctor index build`")
    against = vsrc.load(args.against) if args.against else None
    if args.against and against is None:
        sys.exit(f"no index at {args.against}")
    rng = random.Random(11)
    # a release as vLLM numbers it is measured on the indexed release that describes it (0.8.5 → 0.8.5.post1)
    releases = [idx.nearest_release(r) or r for r in (args.releases.split(",") if args.releases
                                                      else [idx.releases[-1], "0.8.5"])]
    print(f"index: {len(idx.releases)} releases {idx.releases[0]} … {idx.releases[-1]}, {len(idx.sites)} sites")
    per_release(idx)
    for rel in releases:
        coverage(idx, rel, args.sample, rng, against)
        if not (args.no_diagnose or against):
            through_diagnose(idx, rel)
    abstention(idx)
    cost(Path(args.index))
    match_speed(idx)


if __name__ == "__main__":
    main()
