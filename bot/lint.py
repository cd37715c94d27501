"""`vllm-doctor rules lint`: the rule book's own test, runnable without pytest.

Schema and compile errors, patterns prone to catastrophic backtracking, dangling ids, rules without
a real fixture, and fixtures that do not give what they name.
"""

from __future__ import annotations

import re
from pathlib import Path

try:
    import re._parser as sre_parse          # Python 3.11+
    from re._constants import MAX_REPEAT, MIN_REPEAT, MAXREPEAT, SUBPATTERN, BRANCH
except ImportError:                          # pragma: no cover
    import sre_parse
    from sre_constants import MAX_REPEAT, MIN_REPEAT, MAXREPEAT, SUBPATTERN, BRANCH

from . import fixtures
from .diagnose import diagnose
from .diagnose.rulebook import RuleBook, load_rulebook

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


def lint(book: RuleBook | None = None, fixture_root: Path | None = None) -> tuple[list[str], dict]:
    book = book or load_rulebook(use_cache=False)
    problems = list(book.errors)
    for rule in book:
        for p in rule.pattern_sources:
            problems += pattern_problems(rule.id, p)
        for other in rule.related + rule.supersedes:
            if other not in book.rules:
                problems.append(f"{rule.id}: names unknown rule '{other}' in related/supersedes")
    root = fixture_root or fixtures.fixtures_root(Path(book.directory))
    all_fx = fixtures.all_fixtures(root)
    with_fixture = set()
    for fx in all_fx:
        if fx.expect is not None and fx.expect not in book.rules:
            problems.append(f"{fx.path.parent.name}/{fx.path.name}: expects unknown rule '{fx.expect}'")
            continue
        if fx.expect and fx.path.parent.name != fx.expect:
            problems.append(f"{fx.path.parent.name}/{fx.path.name}: lives in the folder of another rule than it expects ({fx.expect})")
        problems += fixtures.check(fx, diagnose(fx.data, book=book))
        if fx.expect:
            with_fixture.add(fx.expect)
    for rule in book:
        if rule.id not in with_fixture:
            problems.append(f"{rule.id}: has no fixture under {root.name}/{rule.id}/")
    negatives = sum(1 for fx in all_fx if fx.expect is None)
    return problems, {"rules": len(book), "fixtures": len(all_fx), "negative": negatives}
