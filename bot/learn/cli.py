"""`vllm-doctor rules stats|suggest`: measure the rule book against the store, and draft new rules.

    vllm-doctor rules stats [--json] [--wrong-threshold 0.3] [--min-feedback 3]
    vllm-doctor rules suggest [--out DIR] [--min-count 2]

Both read the database named by --db, else $DATABASE_URL, else the local SQLite file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from bot.base.errors import Parser, SetupError


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:       # argparse exits on --help and on bad usage; we return instead
        return int(e.code or 0)
    from bot.store import Store
    from bot.store.engine import display

    prog = f"vllm-doctor rules {args.command}"
    try:
        store = Store.from_env(args.db)
    except SetupError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        if store.current() is None:
            print(f"{prog}: {display(store.url)} has no vllm-doctor tables yet; run `vllm-doctor db upgrade`",
                  file=sys.stderr)
            return 2
        rulebook = rulebook_or_none(args.rules)
        with store.session() as session:
            return args.run(args, session, rulebook)
    except SQLAlchemyError as e:
        # The command line's convention (bot/errors.py): could not do what was asked, exit 2.
        print(f"{prog}: cannot read {display(store.url)}: {type(e).__name__}: "
              f"{(str(e).strip().splitlines() or [''])[0]}", file=sys.stderr)
        return 2
    finally:
        store.dispose()


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="vllm-doctor rules", description=__doc__.split("\n")[0])
    from bot.base.options import packs_option
    common = packs_option()
    common.add_argument("--db", metavar="URL", help="database URL (default: $DATABASE_URL, else the local SQLite file)")
    sub = parser.add_subparsers(dest="command", required=True)

    stats = sub.add_parser("stats", parents=[common], help="per-rule hits, feedback, precision, version drift")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.add_argument("--wrong-threshold", type=_fraction, default=0.3, metavar="F",
                       help="flag rules whose share of 'wrong' votes is above F (default 0.3)")
    stats.add_argument("--min-feedback", type=_count, default=3, metavar="N",
                       help="only flag rules with at least N votes (default 3)")
    stats.set_defaults(run=_stats)

    suggest = sub.add_parser("suggest", parents=[common], help="draft rules from unanswered pastes")
    suggest.add_argument("--out", type=Path, default=Path("rule-drafts"), metavar="DIR",
                         help="folder for the drafts (default ./rule-drafts)")
    suggest.add_argument("--min-count", type=_count, default=2, metavar="N",
                         help="draft a rule for failures seen at least N times (default 2)")
    suggest.set_defaults(run=_suggest)
    return parser


def _stats(args, session, rulebook) -> int:
    from .stats import compute

    stats = compute(session, rulebook, wrong_threshold=args.wrong_threshold, min_feedback=args.min_feedback)
    if args.json:
        print(json.dumps(stats.to_dict(), indent=2, ensure_ascii=False))
        return 0
    print(f"{stats.diagnoses} diagnoses stored, {stats.answered} answered; "
          f"rule book {stats.rulebook_version or '(not loaded)'}")
    active = [r for r in stats.rules if r.status != "shadow" and (r.hits or r.also_matched or r.votes)]
    if active:
        print(f"\n{'rule':40} {'pack':14} {'hits':>5} {'fixed':>5} {'wrong':>5} {'partly':>6}  precision (95% CI)")
        for r in active:
            flag = "  FLAGGED: " + r.flag_reason if r.flagged else ""
            print(f"{_name(r):40} {r.pack or '-':14} {r.hits:5} {r.fixed:5} {r.wrong:5} {r.partly:6}  "
                  f"{_precision(r)}{flag}")
            if r.outside_versions:
                claim = f"versions {r.versions}" if r.versions else f"verified on {r.verified_vllm}"
                print(f"{'':57}hit outside {claim}: {_versions(r.outside_versions)}")
            if r.precision_dropping:
                print(f"{'':57}precision dropping: {r.earlier_precision:.0%} before, {r.recent_precision:.0%} "
                      f"in the last {stats.recent_days} days")
    shadows = [r for r in stats.rules if r.status == "shadow"]
    if shadows:
        print(f"\n{'shadow rule':40} {'pack':14} {'matched':>7} {'first':>5} {'gaps':>5} {'displ.':>6} {'rescue':>6}")
        for r in shadows:
            s = r.shadow
            print(f"{r.rule_id:40} {r.pack or '-':14} {s.matched:7} {s.would_be_first:5} {s.fills_gap:5} "
                  f"{s.displaced_fixed:6} {s.shown_was_wrong:6}")
        print("  first: would have been shown first; gaps: ...where nothing was answered; displ.: ...over an "
              "answer marked fixed; rescue: ...over an answer marked wrong")
    unused = [r.rule_id for r in stats.rules if r.status == "active" and not (r.hits or r.also_matched)]
    if unused:
        print(f"\n{len(unused)} active rule(s) never matched a stored paste")
    if stats.flagged:
        print(f"\n{len(stats.flagged)} rule(s) flagged: wrong in more than {args.wrong_threshold:.0%} of at least "
              f"{args.min_feedback} votes: {', '.join(r.rule_id for r in stats.flagged)}")
    return 0


def _suggest(args, session, rulebook) -> int:
    from .suggest import suggest

    drafts, skipped = suggest(session, args.out, min_count=args.min_count, rulebook=rulebook)
    for d in drafts:
        print(f"{d.rule_path}  ({d.cluster.count} pastes, {len(d.fixture_paths)} fixture(s), "
              f"pattern finds {d.matches})")
    for s in skipped:
        print(f"skipped ({s.count} pastes): {s.reason}: {s.signature[:100]}")
    if not drafts:
        print(f"no unanswered failure seen {args.min_count} or more times; nothing drafted")
    return 0


def rulebook_or_none(packs=()):
    """The rule book, or None when it cannot be read: stats still count what the store holds."""
    try:
        from bot.diagnose.knowledge.rulebook import load_rulebook, local_packs
        return load_rulebook(packs=local_packs(packs))
    except Exception as e:          # a broken rule file must not hide the numbers
        print(f"warning: rule book not loaded ({type(e).__name__}: {e}); version ranges are not checked",
              file=sys.stderr)
        return None


def _name(r) -> str:
    return r.rule_id + (" (not in rule book)" if r.status == "missing" else "")


def _precision(r) -> str:
    if r.precision is None:
        return "-"
    return f"{r.precision:.0%} ({r.precision_low:.0%}-{r.precision_high:.0%})"


def _versions(counts: dict[str, int]) -> str:
    return ", ".join(f"{v} ({n})" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value
