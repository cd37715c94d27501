"""Match error messages against the rule book and rank what matched.

Patterns find candidates; rapidfuzz scores the error messages no pattern hit against each rule's
canonical sentences, so a reworded message still matches. Ranking follows the seed's method: the
FIRST real error wins, root causes outrank hints and hints outrank wrappers, and facts break ties
(a rule's `when` conditions, and `supersedes` when two rules explain the same line).
"""

from __future__ import annotations

import bisect
import re
from .facts import run_starts
from .record import Factory, Record
from .versions import OPS, in_range
from .rulebook import Rule, RuleBook
from .tracebacks import Message

LEVEL_RANK = {"root": 0, "hint": 1, "wrapper": 2}
BASE_CONFIDENCE = {"root": 0.95, "hint": 0.75, "wrapper": 0.6}
FUZZY_CUTOFF = 90.0
TAIL_LINES = 3
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_COMPARISON = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")


class Candidate(Record):
    rule: Rule
    message: Message
    position: int                 # order of the message in the log
    confidence: float
    matched_by: str
    captures: dict = Factory(dict)
    source: object = None         # what vLLM's source says about the message (source.Hit), for family rules


def _norm(s: str) -> str:
    return _DIGITS.sub("0", s.replace("`", "").replace("'", "").replace('"', "")).lower()


def condition_holds(key: str, expected, facts: dict) -> bool:
    actual = facts.get(key)
    if key == "frames":          # a regex some traceback frame matches; "!regex": none does
        rx, want = (str(expected)[1:], False) if str(expected).startswith("!") else (str(expected), True)
        return any(re.search(rx, f) for f in actual or ()) == want
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(actual) == bool(expected) if not isinstance(expected, str) else \
            str(bool(actual)).lower() == expected.lower()
    if key.endswith("_version"):
        return in_range(actual, str(expected))
    m = _COMPARISON.match(str(expected))
    if m:
        try:
            return OPS[m.group(1)](float(actual), float(m.group(2)))
        except (TypeError, ValueError):
            return False
    return str(actual).lower() == str(expected).lower()


def _pattern_candidates(rules: list[Rule], errors: list[Message], holds) -> list[Candidate]:
    found: list[Candidate] = []
    pending = list(rules)
    for pos, msg in enumerate(errors):
        if not pending:
            break
        still = []
        for rule in pending:
            caps = rule.search(msg.text, holds)
            if caps is None:
                still.append(rule)
            else:
                found.append(Candidate(rule, msg, pos, BASE_CONFIDENCE[rule.level], "pattern", caps))
        pending = still
    return found


def _tail_candidates(rules: list[Rule], tail: list[Message], n_errors: int, holds) -> list[Candidate]:
    found = []
    for rule in rules:
        for msg in reversed(tail[-TAIL_LINES:]):
            caps = rule.search(msg.text, holds)
            if caps is not None:
                found.append(Candidate(rule, msg, n_errors, BASE_CONFIDENCE[rule.level], "pattern", caps))
                break
    return found


def _fuzzy_candidates(rules: list[Rule], errors: list[Message], taken: set[str],
                      explained: set[int]) -> list[Candidate]:
    """Reworded messages: strong error lines that no pattern explained, scored against the rules'
    canonical sentences. Short lines are skipped: a fragment scores high against anything."""
    choices, owners = [], []
    for rule in rules:
        if rule.id in taken:
            continue
        for sentence in rule.fuzzy:
            choices.append(_norm(sentence))
            owners.append(rule)
    if not choices:
        return []
    found: list[Candidate] = []
    shortest = 0.6 * min(len(c) for c in choices)
    for pos, msg in enumerate(errors):
        if id(msg) in explained or not (msg.exc_type or msg.inner or msg.level in ("ERROR", "CRITICAL")):
            continue
        query = _norm(msg.text)
        if len(query) < max(25, shortest):
            continue
        from rapidfuzz import fuzz, process     # imported only when a message needs scoring
        best = process.extractOne(query, choices, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_CUTOFF,
                                  processor=None)
        if not best:
            continue
        _, score, idx = best
        if len(query) < 0.6 * len(choices[idx]):
            continue
        rule = owners[idx]
        if rule.id in taken or rule.search(msg.text, lambda when: True) is not None:
            continue            # a pattern of this rule saw the line and its condition said no
        taken.add(rule.id)
        conf = (0.55 + (score - FUZZY_CUTOFF) / (100 - FUZZY_CUTOFF) * 0.3) * (1.0 if rule.level == "root" else 0.8)
        found.append(Candidate(rule, msg, pos, round(conf, 3), "fuzzy"))
    return found


def _explained(rules: list[Rule], errors: list[Message], taken: set[str], holds) -> set[int]:
    """Messages that some rule's pattern explains, even when that rule already hit earlier:
    a reworded-message score must never re-explain them as something else."""
    hit_rules = [r for r in rules if r.id in taken]
    return {id(m) for m in errors if any(r.search(m.text, holds) is not None for r in hit_rules)}


def _rank(cands: list[Candidate]) -> list[Candidate]:
    # A WARNING record is never the root while an error explains the same log.
    cands.sort(key=lambda c: (LEVEL_RANK[c.rule.level], c.message.level == "WARNING", c.position, -c.confidence))
    by_id = {c.rule.id: c for c in cands}
    for winner in list(cands):
        for loser_id in winner.rule.supersedes:
            loser = by_id.get(loser_id)
            if loser is None or loser is winner:
                continue
            if cands.index(loser) < cands.index(winner):
                cands.remove(winner)
                cands.insert(cands.index(loser), winner)
    return cands


class Matched(Record):
    candidates: list[Candidate]          # best first; one per rule (its first hit)
    cause: Message | None = None         # the real error above a wrapper, when no rule knows it


def _real_errors(errors: list[Message], wrapped: set[int]) -> list[Message]:
    """Exceptions that are causes: not a wrapper's own message, not a warning."""
    return [m for m in errors if (m.exc_type or m.inner) and id(m) not in wrapped and m.level != "WARNING"
            and not (m.exc_type or "").endswith("Warning")]


def _visible_cause(wrapper: Candidate, errors: list[Message], wrapped: dict[int, set[str]],
                   text: str) -> Message | None:
    """The first real exception of the wrapper's run that the paste shows: above the wrapper's last
    line, or inside the very log record that printed the wrapper (`logger.exception` prints its
    message first and the traceback that caused it after)."""
    real = _real_errors(errors, set(wrapped))
    if not real:
        return None
    starts = run_starts(text)
    run = bisect.bisect_right(starts, wrapper.message.line_no)
    hits = [wrapper.message] + [m for m in errors if wrapper.rule.id in wrapped.get(id(m), ())
                                and bisect.bisect_right(starts, m.line_no) == run]
    last = max(m.line_no for m in hits)
    records = {(m.proc, m.header) for m in hits if m.level and m.header}
    for m in real:
        if bisect.bisect_right(starts, m.line_no) == run and \
                (m.line_no < last or (m.proc, m.header) in records):
            return m
    return None


def _cover_wrappers(cands: list[Candidate], wrappers: list[Rule], errors: list[Message], holds,
                    text: str) -> Matched:
    """A wrapper ("the real error is above") is no answer when the paste shows that error: answer
    it with a rule, or quote it. Only wrappers are left here, or nothing at all."""
    first = next((c for c in cands if c.rule.level == "wrapper"), None)
    if first is None or any(c.rule.level != "wrapper" and c.rule.status == "active" for c in cands):
        return Matched(cands)
    wrapped: dict[int, set[str]] = {}
    for m in errors:
        ids = {r.id for r in wrappers if r.search(m.text, holds) is not None}
        if ids:
            wrapped[id(m)] = ids
    cause = _visible_cause(first, errors, wrapped, text)
    if cause is None:
        return Matched(cands)
    return Matched([c for c in cands if c.rule.level != "wrapper"], cause)


def match(book: RuleBook, errors: list[Message], tail: list[Message], text: str, facts: dict) -> Matched:
    """All candidates, best first; one per rule (its first hit)."""
    def holds(when: dict) -> bool:
        return all(condition_holds(k, v, facts) for k, v in when.items())

    usable = [r for r in book if not r.family and holds(r.when)]
    by_scope: dict[str, list[Rule]] = {"errors": [], "any": [], "tail": []}
    for r in usable:
        by_scope[r.scope].append(r)
    strong = [m for m in errors if m.is_error or m.plain]
    cands = _pattern_candidates(by_scope["errors"], strong, holds)
    # scope: any — the rule's message may be an INFO or WARNING record, a little less sure
    for c in _pattern_candidates(by_scope["any"], errors, holds):
        c.position = sum(1 for m in strong if m.line_no < c.message.line_no)
        c.confidence *= 1.0 if c.message.is_error else 0.85
        cands.append(c)
    cands += _tail_candidates(by_scope["tail"], tail, len(strong), holds)
    taken = {c.rule.id for c in cands}
    explained = {id(c.message) for c in cands} | _explained(by_scope["errors"], strong, taken, holds)
    # A reworded message after the first root cause found by a pattern could never rank first:
    # score only the messages before it (this also spares most CLI calls importing rapidfuzz).
    first_root = min((c.position for c in cands if c.rule.level == "root"), default=len(strong))
    cands += _fuzzy_candidates(by_scope["errors"], strong[:first_root], taken, explained)
    # Then vLLM's own source (source.py), only for a paste no hand-written rule answers: a paste a
    # rule answers never loads the index, nor even the module that reads it.
    if not any(c.rule.level != "wrapper" and c.rule.status == "active" for c in cands) and book.families:
        from .source import find
        cands += find(book, _rank(cands), strong, text, facts)
    wrappers = [r for r in by_scope["errors"] if r.level == "wrapper"]
    return _cover_wrappers(_rank(cands), wrappers, strong, holds, text)
