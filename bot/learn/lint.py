"""`vllm-doctor rules lint`: the rule book's own test, runnable without pytest.

Schema and compile errors, patterns prone to catastrophic backtracking, dangling ids, rules without
a real fixture, and fixtures that do not give what they name. Each rule pack is checked with its own
fixtures, against the book as it runs (the shipped book with every pack on top): a team rule that
fires on a shipped fixture, or a shipped rule that takes a team fixture, is a problem.
"""

from __future__ import annotations

import re
from pathlib import Path

try:
    import re._parser as sre_parse  # Python 3.11+
    from re._constants import BRANCH, MAX_REPEAT, MAXREPEAT, MIN_REPEAT, SUBPATTERN
except ImportError:                          # pragma: no cover
    import sre_parse
    from sre_constants import BRANCH, MAX_REPEAT, MAXREPEAT, MIN_REPEAT, SUBPATTERN

from bot.base import resources
from bot.diagnose import diagnose
from bot.diagnose.knowledge.rulebook import RuleBook, load_rulebook
from bot.diagnose.knowledge.rulebook.book import SHIPPED
from bot.diagnose.knowledge.rulebook.packs import packs_of

from . import fixtures

_REPEATS = (MAX_REPEAT, MIN_REPEAT)


def _has_unbounded_repeat(items) -> bool:
    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            if hi == MAXREPEAT or hi > 50 or _has_unbounded_repeat(sub):
                return True
        elif op == SUBPATTERN:
            if _has_unbounded_repeat(av[-1]):
                return True
        elif op == BRANCH:
            if any(_has_unbounded_repeat(b) for b in av[1]):
                return True
    return False


def _nested_repeat(items) -> bool:
    """A repeat whose body holds another unbounded repeat: (a+)+, (\\w+\\s?)*, ..."""
    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            if (hi == MAXREPEAT or hi > 50) and _has_unbounded_repeat(sub):
                return True
            if _nested_repeat(sub):
                return True
        elif op == SUBPATTERN and _nested_repeat(av[-1]):
            return True
        elif op == BRANCH and any(_nested_repeat(b) for b in av[1]):
            return True
    return False


def _leading_unbounded(items) -> bool:
    """`(?P<model>\\S+) does not ...`: re.search retries the repeat at every start position, so a
    long line costs its length squared. A lookbehind or a bounded repeat avoids that."""
    for op, av in items:
        if op == SUBPATTERN:
            return _leading_unbounded(av[-1])
        if op in _REPEATS:
            lo, hi, sub = av
            return hi == MAXREPEAT or hi > 1000
        return False
    return False


def pattern_problems(rule_id: str, pattern: str) -> list[str]:
    try:
        parsed = sre_parse.parse(pattern)
    except re.error as e:
        return [f"{rule_id}: pattern {pattern!r} does not compile: {e}"]
    if _nested_repeat(list(parsed)):
        return [f"{rule_id}: pattern {pattern!r} nests unbounded repeats (catastrophic backtracking)"]
    if _leading_unbounded(list(parsed)):
        return [f"{rule_id}: pattern {pattern!r} starts with an unbounded repeat (slow on long lines); "
                "bound it (\\S{1,400}) or anchor it with a lookbehind"]
    return []


def lint(book: RuleBook | None = None) -> tuple[list[str], dict]:
    """Problems, and counts: rules, fixtures, negative fixtures, and `notes` (what was not checked)."""
    book = book or load_rulebook(use_cache=False)
    problems = list(book.errors)
    for rule in book:
        for p in rule.pattern_sources:
            problems += pattern_problems(rule.id, p)
        for other in rule.related + rule.supersedes:
            if other not in book.rules:
                problems.append(f"{rule.id}: names unknown rule '{other}' in related/supersedes")
    counts = {"rules": len(book), "fixtures": 0, "negative": 0, "notes": []}
    reports: dict[Path, object] = {}            # each fixture diagnosed once: the source map reads them too
    fixture_problems = []
    for pack in packs_of(book):
        root = Path(pack.fixtures)
        if pack.directory == resources.rules_dir() and not root.is_dir():
            # A wheel carries the rule book, not its test logs: they were run when it was built.
            counts["notes"].append(f"{SHIPPED}: its fixtures are not installed here ({root}); not run")
            continue
        fixture_problems += _lint_fixtures(book, pack.name, root, counts, reports)
    return problems + _against_vllm_source(book, counts, reports) + fixture_problems, counts


def _lint_fixtures(book: RuleBook, pack: str, root: Path, counts: dict, reports: dict) -> list[str]:
    problems, with_fixture = [], set()
    prefix = "" if pack == SHIPPED else f"{pack}: "
    for fx in fixtures.all_fixtures(root):
        name = f"{prefix}{fx.path.parent.name}/{fx.path.name}"
        if fx.expect is not None and fx.expect not in book.rules:
            problems.append(f"{name}: expects unknown rule '{fx.expect}'")
            continue
        if fx.expect and fx.path.parent.name != fx.expect:
            problems.append(f"{name}: lives in the folder of another rule than it expects ({fx.expect})")
        if fx.expect and book.rules[fx.expect].pack != pack:
            # The rule it was written for was replaced by a later pack, whose own fixtures check it.
            counts["notes"].append(f"{name}: not run, {fx.expect} is now {book.rules[fx.expect].pack}'s rule")
            continue
        counts["fixtures"] += 1
        counts["negative"] += fx.expect is None
        report = reports[fx.path] = diagnose(fx.data, book=book)
        problems += [prefix + p for p in fixtures.check(fx, report)]
        if fx.expect:
            with_fixture.add(fx.expect)
    for rule in book:
        if rule.pack == pack and rule.id not in with_fixture:
            problems.append(f"{prefix}{rule.id}: has no fixture under {root}/{rule.id}/")
    return problems


def _against_vllm_source(book: RuleBook, counts: dict, reports: dict) -> list[str]:
    """Every flag, keyword and VLLM_* variable a rule's text names exists where the text is shown
    (lint_names.py), and the shipped book's map of vLLM's source (rules/_vllm_source.json) is
    what `rules sources` writes from the index and the fixtures now."""
    from bot.diagnose.knowledge.vllm import index

    from . import lint_names, vllm_map
    idx = index.load()
    if idx is None:
        counts["notes"].append("the index of vLLM's releases is not installed: rule texts not checked against it")
        return []
    problems = lint_names.problems(book, idx)
    fixtures = Path(packs_of(book)[0].fixtures)
    if book.directory != resources.rules_dir() or not fixtures.is_dir():
        return problems     # a wheel's book, or another book: its map was checked when it was built
    shipped = _shipped_only(book)
    # (the reports lint made are this book's only when no pack is loaded on top)
    stale = vllm_map.stale(shipped, idx, fixtures, reports if shipped is book else None)
    return problems + ([f"{SHIPPED}: {stale}"] if stale else [])


def _shipped_only(book: RuleBook) -> RuleBook:
    """The shipped rules alone: the map describes them, whatever packs a team loads on top."""
    if not book.packs or len(packs_of(book)) == 1:
        return book
    return load_rulebook(book.directory, packs=[], use_cache=False)

