"""The shapes a paste arrives in, through the whole diagnose(): the same error as an issue title, inside a sentence,
in Markdown (inline code, a quote, a bullet, bold, a table row), HTML-escaped, among Chinese or Japanese prose; and
the same log JSON-escaped, behind docker compose's, kubectl's, journald's, loguru's, structlog's or Ray's prefixes, in
ANSI colours (with and without the ESC byte), with CRLF line ends, Windows paths, its line breaks lost or hard-wrapped
at 80 and 120 columns. For each shape: how many of the errors whose clean form is answered keep that answer (the same
rule first).

The errors: the messages tests/bench_stack_answers.py builds from the stack index (a sample of each kind), and a
hand-written rule's evidence from its first fixture (the line the rule answers; the fixture itself for the log
shapes). Line shapes wrap the bare message, whose clean form is the bare message; log shapes change the whole paste
(the stack bench's vLLM log, the fixture), whose clean form is that paste. Negative fixtures in the log shapes must
stay unanswered.

    python tests/bench_paste_shapes.py [--per-kind 6] [--rules 80] [--negatives 40] [--seed 5] [--misses SHAPE]

Prints figures; not a timed test.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bot.diagnose import diagnose  # noqa: E402


# --- a line's shapes: what a person writes around one error line -------------------------------------------------

def _one_line(msg: str) -> str:
    return " ".join(part.strip() for part in msg.split("\n") if part.strip())


def _each_line(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


LINE_SHAPES = {
    "title": lambda m: f"[Bug]: {_one_line(m)}",
    "title+words": lambda m: f"[Bug]: vllm serve crashes at startup with {_one_line(m)}",
    "sentence": lambda m: f"When I start the server I get {_one_line(m)} and then it exits. Any idea?",
    "inline code": lambda m: f"When I run `vllm serve` I get `{_one_line(m)}` and the server exits.",
    "blockquote": lambda m: _each_line("> ", m),
    "bullet": lambda m: _each_line("- ", m),
    "bold": lambda m: f"**{_one_line(m)}**",
    "table row": lambda m: f"| 0.10.1 | H100 | {_one_line(m)} |",
    "chinese": lambda m: f"启动 vLLM 的时候报错：{_one_line(m)}，请问怎么解决？",
    "japanese": lambda m: f"vLLM を起動すると {_one_line(m)} というエラーが出ます。",
    "html escaped": lambda m: html.escape(m),
}


# --- a log's shapes: what a tool or a page did to the whole paste ------------------------------------------------

def _json_string(text: str) -> str:
    return json.dumps(text)[1:-1]


def _hard_wrap(text: str, width: int) -> str:
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return "\n".join(out)


def _windows(text: str) -> str:
    text = text.replace("/usr/local/lib/python3.12/dist-packages/", "C:\\Users\\me\\miniconda3\\Lib\\site-packages\\")
    text = text.replace("/app/serve.py", "C:\\work\\serve.py")
    out = []
    for line in text.split("\n"):
        if 'File "C:\\' in line:
            head, _, rest = line.partition('File "')
            path, _, tail = rest.partition('"')
            line = head + 'File "' + path.replace("/", "\\") + '"' + tail
        out.append(line)
    return "\n".join(out)


ESC = "\x1b"
LOG_SHAPES = {
    "json string": _json_string,
    "json record": lambda t: json.dumps({"time": "2025-01-02T03:04:05Z", "level": "error", "log": t}),
    "docker compose": lambda t: _each_line("api-1  | ", t),
    "kubectl prefix": lambda t: _each_line("[pod/api-7d9f8/api] ", t),
    "journald": lambda t: _each_line("Aug 15 18:15:59 gpu-node-3 python3[8707]: ", t),
    "loguru": lambda t: _each_line("2025-01-02 03:04:05.678 | ERROR    | app.server:start:42 - ", t),
    "structlog": lambda t: _each_line("2025-01-02T03:04:05.678901Z [error    ] ", t),
    "ray raylet": lambda t: _each_line("(raylet) ", t),
    "ray pid": lambda t: _each_line("(pid=4123, ip=10.0.0.12) ", t),
    "ansi": lambda t: _each_line(ESC + "[1;31m", t.replace("\n", ESC + "[0m\n")) + ESC + "[0m",
    "ansi no esc": lambda t: _each_line("[1;31m", t.replace("\n", "[0m\n")) + "[0m",
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "windows paths": _windows,
    "one long line": lambda t: " ".join(line for line in t.split("\n") if line.strip()),
    "wrapped 80": lambda t: _hard_wrap(t, 80),
    "wrapped 120": lambda t: _hard_wrap(t, 120),
    "html escaped log": html.escape,
    "quoted log": lambda t: _each_line("> ", t),
    "chinese around": lambda t: "部署的时候报错如下：\n" + t + "\n请问怎么解决？谢谢！",
}


def _top(text: str) -> str:
    r = diagnose(text)
    return r.diagnoses[0].rule_id if r.diagnoses else "-"


def stack_errors(per_kind: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """(kind:key, message, paste) from the stack bench, a sample of each kind."""
    import bench_stack_answers as b
    from bot.diagnose.knowledge.stack import stack_index
    ix = stack_index.load()
    if ix is None:
        return []
    said: list[str] = []
    plain = b.paste
    b.paste = lambda message, frames: (said.append(message), plain(message, frames))[1]
    try:
        cases = b.cases(ix)
    finally:
        b.paste = plain
    by_kind = defaultdict(list)
    for (kind, key, text, _words), message in zip(cases, said):
        by_kind[kind].append((f"{kind}:{key}", message.split("\n")[0] if kind in ("acl", "hccl") else message, text))
    out = []
    for kind, items in by_kind.items():
        out += rng.sample(items, min(per_kind, len(items)))
    return out


def rule_errors(most: int, rng: random.Random) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(rule, its evidence, its first fixture) for a sample of hand-written rules; and (name, text) of negatives."""
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.rulebook.packs import fixtures_beside
    from bot.learn import fixtures
    book = load_rulebook()
    root = Path(fixtures_beside(book.directory))
    first: dict[str, object] = {}
    negatives = []
    for fx in fixtures.all_fixtures(root):
        if fx.expect is None:
            negatives.append((fx.path.stem, fx.data.decode("utf-8", "replace")))
        elif fx.expect not in first and not getattr(book.rules.get(fx.expect), "family", None):
            first[fx.expect] = fx
    out = []
    for rule in sorted(first):
        text = first[rule].data.decode("utf-8", "replace")
        r = diagnose(text)
        if r.diagnoses and r.diagnoses[0].rule_id == rule and r.diagnoses[0].evidence:
            out.append((rule, r.diagnoses[0].evidence, text))
    return rng.sample(out, min(most, len(out))), negatives


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--per-kind", type=int, default=6, help="stack errors of each kind")
    p.add_argument("--rules", type=int, default=80, help="hand-written rules sampled")
    p.add_argument("--negatives", type=int, default=40, help="negative fixtures sampled")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--misses", action="append", default=[], help="list the errors a shape loses")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    stack = stack_errors(args.per_kind, rng)
    rules, negatives = rule_errors(args.rules, rng)
    negatives = rng.sample(negatives, min(args.negatives, len(negatives)))
    kept: dict[str, Counter] = defaultdict(Counter)
    misses: dict[str, list[str]] = defaultdict(list)
    bases = Counter()
    for source, errors in (("stack", stack), ("rules", rules)):
        for name, line, log in errors:
            clean_line, clean_log = _top(line), _top(log)
            bases[source, "line"] += clean_line != "-"
            bases[source, "log"] += clean_log != "-"
            for shapes, text, clean in ((LINE_SHAPES, line, clean_line), (LOG_SHAPES, log, clean_log)):
                for shape, make in shapes.items() if clean != "-" else ():
                    got = _top(make(text))
                    kept[shape][source] += got == clean
                    if got != clean:
                        misses[shape].append(f"{name}: {clean} -> {got}")
    wrong = Counter()
    for name, text in negatives:
        for shape, make in LOG_SHAPES.items():
            got = _top(make(text))
            if got != "-":
                wrong[shape] += 1
                misses[shape].append(f"negative {name}: -> {got}")
    print(f"errors: {len(stack)} stack (clean line answered {bases['stack', 'line']}, clean log {bases['stack', 'log']}), "
          f"{len(rules)} rules (line {bases['rules', 'line']}, log {bases['rules', 'log']}), {len(negatives)} negatives")
    print(f"{'shape':18} {'stack':>12} {'rules':>12} {'all':>7}  negatives answered")
    totals = Counter()
    for shape in [*LINE_SHAPES, *LOG_SHAPES]:
        kind = "line" if shape in LINE_SHAPES else "log"
        cells = []
        for source in ("stack", "rules"):
            n = bases[source, kind]
            cells.append(f"{kept[shape][source]:4}/{n:<4} {kept[shape][source] / n:4.0%}" if n else "-")
            totals[source, "kept"] += kept[shape][source]
            totals[source, "n"] += n
        n = bases["stack", kind] + bases["rules", kind]
        k = kept[shape]["stack"] + kept[shape]["rules"]
        neg = str(wrong[shape]) if kind == "log" else ""
        print(f"{shape:18} {cells[0]:>12} {cells[1]:>12} {k / n if n else 0:7.1%}  {neg}")
    k, n = totals["stack", "kept"] + totals["rules", "kept"], totals["stack", "n"] + totals["rules", "n"]
    print(f"{'all shapes':18} {'':>12} {'':>12} {k / n if n else 0:7.1%}  {sum(wrong.values())}")
    for shape in args.misses:
        print(f"\nlost in {shape}:")
        for line in misses.get(shape, []):
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
