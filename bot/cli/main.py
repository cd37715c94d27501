"""`vllm-doctor`: diagnose logs, lint the rule book, and start the bot, worker and repro.

Only `diagnose` and `rules lint|list` live here; the other commands forward their arguments to the
module that owns them, imported on demand, so a diagnosis never pays for Slack or SQLAlchemy.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from bot.base.errors import Parser, SetupError
from bot.base.options import default_lang, lang_option, packs_option

FORWARDED = {
    "db": ("bot.store.cli", "manage the outcome database (upgrade, current)"),
    "serve": ("bot.slack.cli", "run the Slack bot (Socket Mode, or --http)"),
    "worker": ("bot.repro.cli", "run the GPU repro worker"),
    "repro": ("bot.repro.cli", "reproduce a failure locally, one setting at a time"),
    "index": ("bot.watch.cli", "the indexes of vLLM's releases and of the stack beneath: build, update"),
    "dashboard": ("bot.dashboard.cli", "serve the maintainers' web page (--host, --port)"),
}
RULES_FORWARDED = {"stats": "bot.learn.cli", "suggest": "bot.learn.cli"}
EXAMPLE = "examples/engine-core-failed.log"


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="vllm-doctor", description="Find the real error in a failing vLLM log.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    packs = packs_option()
    d = sub.add_parser("diagnose", parents=[packs], help="diagnose log files (or - for stdin)",
                       prog="vllm-doctor diagnose")
    d.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    d.add_argument("--example", action="store_true",
                   help=f"diagnose the bundled example ({EXAMPLE}: a real vLLM log that ends in a wrapper)")
    d.add_argument("--json", action="store_true", help="one JSON object per input, one per line")
    lang_option(d)
    d.add_argument("--record", action="store_true", help="store the diagnosis in the outcome database")
    d.add_argument("--no-color", action="store_true")
    r = sub.add_parser("rules", parents=[packs], help="the rule book: lint, list, sources, drift, stats, suggest")
    r.add_argument("action", choices=["lint", "list", "sources", "drift", *RULES_FORWARDED])
    r.add_argument("--json", action="store_true")
    r.add_argument("--all", action="store_true",
                   help="drift: also the reworded messages a rule still matches, another rule answers, or were reviewed")
    for name, (_, help_text) in FORWARDED.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return p


def _read(name: str) -> bytes:
    if name == "-":
        if sys.stdin is None:
            raise SetupError("stdin is closed: give a log FILE, or pipe one in (vllm-doctor diagnose - < vllm.log)")
        if sys.stdin.isatty():
            # Someone typed `vllm-doctor diagnose` alone: say what it waits for instead of hanging mutely.
            print("vllm-doctor diagnose: reading a log from the terminal; paste it, then press Ctrl-D "
                  "(or give a FILE, pipe one in, or try --example)", file=sys.stderr, flush=True)
        return sys.stdin.buffer.read()
    with open(name, "rb") as f:
        data = f.read()
    if data.startswith(b"#=SOURCE=#"):        # a rule fixture: diagnose the log, not its header
        from pathlib import Path

        from bot.learn.fixtures import read
        return read(Path(name)).data
    return data


def _book(args, use_cache: bool = True):
    """The shipped book with the packs of $VLLM_DOCTOR_LOCAL_RULES and --rules on top."""
    from bot.diagnose.knowledge.rulebook import load_rulebook, local_packs
    return load_rulebook(packs=local_packs(args.rules), use_cache=use_cache)


def _diagnose(args) -> int:
    from bot.diagnose import diagnose
    book = _book(args) if args.rules else None      # None: the default book, loaded once per process
    store = None
    lang = default_lang(args.lang)
    color = sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    files = [EXAMPLE] if args.example else args.files
    for name in files:
        try:
            if args.example:
                from bot.base.resources import read_bytes
                data = read_bytes(EXAMPLE)
            else:
                data = _read(name)
        except OSError as e:
            print(f"vllm-doctor: cannot read {name}: {e.strerror}", file=sys.stderr)
            return 2
        report = diagnose(data, lang=lang, book=book)
        if args.record:
            if store is None:
                from bot.store import Store
                store = Store.from_env()
            store.record_diagnosis(report, source="cli", text=data.decode("utf-8", "replace"))
        if args.json:
            out = {"file": name, "diagnoses": [_json_diagnosis(d) for d in report.diagnoses],
                   "verdict": report.verdict, "facts": report.facts, "notes": report.notes}
            if report.next_step:
                out["next_step"] = report.next_step
            print(json.dumps(out, ensure_ascii=False, default=str))
        else:
            from .terminal import render
            sys.stdout.write(render(report, name if len(files) > 1 else None, color))
    return 0


def _json_diagnosis(d) -> dict:
    keys = ("rule_id", "confidence", "level", "title", "evidence", "cause", "fix", "caveats",
            "line_no", "captures", "matched_by")
    full = d.to_dict()
    out = {k: full[k] for k in keys}
    if d.vllm_source:                   # where vLLM raises the message, from the index of its releases
        out["vllm_source"] = d.vllm_source
    return out


def _rules(args, rest: list[str]) -> int:
    if args.action in RULES_FORWARDED:
        packs = [a for d in args.rules for a in ("--rules", d)]
        return _forward(RULES_FORWARDED[args.action], [args.action, *(["--json"] if args.json else []), *packs, *rest])
    if args.action == "list":
        return _list(_book(args), args.json)
    if args.action == "sources":
        return _sources()
    if args.action == "drift":
        return _drift(args.all)
    from bot.learn.lint import lint
    problems, counts = lint(_book(args, use_cache=False))
    for p in problems:
        print(p)
    for note in counts["notes"]:
        print(f"note: {note}")
    print(f"{counts['rules']} rules, {counts['fixtures']} fixtures ({counts['negative']} negative): "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _sources() -> int:
    """Write the shipped rule book's map of vLLM's source (bot/learn/vllm_map.py)."""
    from pathlib import Path

    from bot.base import resources
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.rulebook.packs import fixtures_beside
    from bot.diagnose.knowledge.vllm import index
    from bot.learn import vllm_map
    idx = index.load()
    if idx is None:
        print("vllm-doctor: the index of vLLM's releases is not installed (bot/diagnose/knowledge/vllm/data)", file=sys.stderr)
        return 2
    book = load_rulebook(resources.rules_dir(), use_cache=False)
    path = vllm_map.write(book, idx, Path(fixtures_beside(book.directory)))
    print(f"wrote {path}")
    return 0


def _drift(show_all: bool) -> int:
    """The shipped rules whose vLLM message a later release reworded out of their reach
    (bot/learn/drift.py); exit 1 when one is left unexplained."""
    from pathlib import Path

    from bot.base import resources
    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.rulebook.packs import fixtures_beside
    from bot.diagnose.knowledge.vllm import index, rulebook_map
    from bot.learn import drift
    idx = index.load()
    if idx is None:
        print("vllm-doctor: the index of vLLM's releases is not installed (bot/diagnose/knowledge/vllm/data)", file=sys.stderr)
        return 2
    book = load_rulebook(resources.rules_dir(), use_cache=False)
    book_map = rulebook_map.load(book.directory)
    if book_map is None:
        print("vllm-doctor: rules/_vllm_source.json is missing: run `vllm-doctor rules sources`", file=sys.stderr)
        return 2
    reviewed = drift.load_reviewed(book.directory)
    found = drift.find(idx, book, book_map, Path(fixtures_beside(book.directory)), reviewed)
    for line in drift.report(found, show_all):
        print(line)
    for entry in drift.unused_reviews(reviewed, found):
        print(f"note: {drift.REVIEWED} lists a twin no rule has now: {entry}")
    left = sum(f.open for f in found)
    print(f"{len(found)} reworded message(s) near the rules' own: {left} no rule matches, unexplained"
          f" (releases {idx.releases[0]} … {idx.releases[-1]})")
    return 1 if left else 0


def _list(book, as_json: bool) -> int:
    from bot.diagnose.knowledge.rulebook.packs import packs_of
    rows = sorted(book, key=lambda r: (r.level != "root", r.id))
    if as_json:
        print(json.dumps([{"id": r.id, "pack": r.pack, "replaces": book.replaced.get(r.id), "level": r.level,
                           "status": r.status, "title": r.title["en"], "versions": r.versions} for r in rows],
                         ensure_ascii=False))
        return 0
    for r in rows:
        replaces = f"  [replaces {book.replaced[r.id]}'s rule]" if r.id in book.replaced else ""
        print(f"{r.id:34} {r.pack:12} {r.level:7} {r.status:6} {r.title['en']}{replaces}")
    for pack in packs_of(book):
        print(f"pack {pack.name}: {len(pack.rule_ids)} rules from {pack.directory}")
    print(f"{len(rows)} rules, rule book {book.version}")
    return 0


def _forward(module: str, argv: list[str]) -> int:
    import importlib
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        print(f"vllm-doctor: this command is not available: {e}", file=sys.stderr)
        return 2
    return int(mod.main(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    """The console script: every command, with the problems a user fixes said in one line (exit 2)."""
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except SetupError as e:
        print(f"vllm-doctor: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `vllm-doctor rules list | head -1`: the reader left. Whatever is still buffered for it
        # goes nowhere instead of raising again when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("vllm-doctor: the output was closed before everything was written (broken pipe)", file=sys.stderr)
        return 2


def _main(argv: list[str]) -> int:
    if argv and argv[0] in FORWARDED:
        name = argv[0]
        module = FORWARDED[name][0]
        return _forward(module, argv[1:] if name in ("db", "serve", "index", "dashboard") else argv)
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "rules":
        return _rules(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.example and args.files != ["-"]:
        parser.error("--example diagnoses the bundled example; give it no FILE")
    # A diagnosis keeps what it makes (the rule book, the indexes, the paste's records) until it answers, and makes
    # few cycles: at the collector's default threshold (700 new objects) a cold start ran it 30 to 50 times, a tenth
    # of the run, each time over every young object. Rarer collections, and the caller's threshold back after.
    threshold = gc.get_threshold()
    gc.set_threshold(100_000, 20, 20)
    try:
        return _diagnose(args)
    finally:
        gc.set_threshold(*threshold)


if __name__ == "__main__":
    sys.exit(main())
