"""The rule book's candidates: error messages its rules' patterns hit, and reworded messages.

Patterns find candidates; rapidfuzz scores the error messages no pattern hit against each rule's
canonical sentences, so a reworded message still matches. Facts decide which rules may answer (a
rule's `when` conditions, and a pattern's own). Ranking is the answering's (answering/rank.py).
"""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.base.versions import OPS, in_range
from bot.diagnose.knowledge import Candidate
from bot.diagnose.reading.tracebacks import Message

from .book import Rule, RuleBook

BASE_CONFIDENCE = {"root": 0.95, "hint": 0.75, "wrapper": 0.6}
FUZZY_CUTOFF = 90.0
TAIL_LINES = 3
_DIGITS = regex_cache.compile(r"\d+(?:\.\d+)?")
_COMPARISON = regex_cache.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")


def _norm(s: str) -> str:
    return _DIGITS.sub("0", s.replace("`", "").replace("'", "").replace('"', "")).lower()


_NORMED: dict[str, str] = {}


def _norm_sentence(s: str) -> str:
    """A rule's canonical sentence normalised once per process, not once per paste."""
    found = _NORMED.get(s)
    if found is None:
        found = _NORMED[s] = _norm(s)
    return found


# The names a canonical sentence turns on: its upper-case words (UVA, NIXL, NCCL, CUDA), outside quotes. Drift rewords
# a message around its names and keeps them; "CUDA is not available" is no rewording of "UVA is not available", though
# partial_ratio scores the two above the cut-off.
_ANCHOR = regex_cache.compile(r"(?<![\w.'\"`])[A-Z][A-Z0-9]{1,7}(?![\w'\"`])")
_ANCHORS: dict[str, frozenset[str]] = {}


def _anchors(sentence: str) -> frozenset[str]:
    found = _ANCHORS.get(sentence)
    if found is None:
        message = sentence.split(": ", 1)[1] if re.match(r"[\w.]+(?:Error|Exception|Warning): ", sentence) else sentence
        found = _ANCHORS[sentence] = frozenset(_ANCHOR.findall(message))
    return found


def _names_kept(sentence: str, text: str) -> bool:
    """The message names what the rule's sentence names (one of its upper-case words, where it has any)."""
    anchors = _anchors(sentence)
    return not anchors or any(a in text for a in anchors)


def condition_holds(key: str, expected, facts: dict) -> bool:
    actual = facts.get(key)
    if key in ("frames", "asserts", "assert_sites"):
        # a regex some traceback frame (failed assert, "path:function: test" of one) matches; "!regex": none does
        rx, want = (str(expected)[1:], False) if str(expected).startswith("!") else (str(expected), True)
        if not actual:
            return not want
        found = regex_cache.compile(rx)
        return any(found.search(f) for f in actual) == want
    # "!regex" on a fact read as words (platform, os_hint, ...): the fact is absent or the regex does not
    # match all of it ("!(?:cpu|tpu)": any platform but those)
    if isinstance(expected, str) and expected.startswith("!") and not key.endswith("_version") \
            and not isinstance(actual, bool):
        return actual is None or re.fullmatch(expected[1:], str(actual), re.I) is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(actual) == bool(expected) if not isinstance(expected, str) else \
            str(bool(actual)).lower() == expected.lower()
    if key.endswith("_version"):
        # "!spec": the paste does not show a release inside spec (it shows none, or one outside it):
        # for a message only releases before a fix print, whose paste often leaves the version out
        if str(expected).startswith("!"):
            return not in_range(actual, str(expected)[1:])
        return in_range(actual, str(expected))
    m = _COMPARISON.match(str(expected))
    if m:
        try:
            return OPS[m.group(1)](float(actual), float(m.group(2)))
        except (TypeError, ValueError):
            return False
    return str(actual).lower() == str(expected).lower()


# A report printed over several lines, each naming some of what the rule's text says (the kernel's OOM report: the
# constraint line names the task and pid, "Killed process" the same pid and its anon-rss): a later hit of the same rule
# this many lines after its first fills in what the first left unsaid, where the two agree on what both name.
REPORT_SPAN = 200


def _pattern_candidates(rules: list[Rule], errors: list[Message], holds) -> list[Candidate]:
    """Each rule's first hit; but a hit on an exception an `except` caught gives way to a later hit of the same pattern
    (the same captures: a fallback import that failed as well, whose name is the one the program needed). A later hit
    of another of the rule's patterns does not (vLLM's `int(device_id)` that failed on a GPU UUID, then NVML's "Not
    Found" for it: the first names the UUID)."""
    found: list[Candidate] = []
    handled: dict[int, Candidate] = {}      # id(rule) -> its hit on a caught exception, kept until a later hit
    pending = list(rules)
    filling: list[Candidate] = []
    for pos, msg in enumerate(errors):
        if not pending and not filling:
            break
        if filling:
            filling = [c for c in filling if msg.line_no - c.message.line_no <= REPORT_SPAN]
            for c in filling:
                _fill(c, c.rule.search(msg.text, holds))
        still = []
        for rule in pending:
            caps = rule.search(msg.text, holds)
            if caps is None:
                still.append(rule)
            elif id(rule) in handled and set(caps or ()) != set(handled[id(rule)].captures or ()):
                found.append(handled.pop(id(rule)))     # another of its patterns: the caught one says more
            elif msg.handled:
                handled[id(rule)] = Candidate(rule, msg, pos, BASE_CONFIDENCE[rule.level], "pattern", caps)
                still.append(rule)
            else:
                handled.pop(id(rule), None)
                found.append(Candidate(rule, msg, pos, BASE_CONFIDENCE[rule.level], "pattern", caps))
                if rule.named:
                    filling.append(found[-1])
        pending = still
    return sorted(found + list(handled.values()), key=lambda c: c.position) if handled else found


def _fill(c: Candidate, caps: dict | None) -> None:
    """A later hit's captures added to a candidate's, where no value both name differs (another kill's pid, another
    process: not the same report; a capture the text only asks about, `{?memcg}`, may be worded either way)."""
    if not caps or all(k in c.captures for k in caps):
        return
    differ = {k for k, v in caps.items() if c.captures.get(k, v) != v}
    if not differ or not differ - c.rule.flags:
        c.captures.update({k: v for k, v in caps.items() if k not in c.captures})


def _tail_candidates(rules: list[Rule], tail: list[Message], n_errors: int, holds) -> list[Candidate]:
    """A `tail` rule says the log stops at its line (a capture bar, a wait): an error printed after
    that line says the process did not stop there but died, so the error answers, not the rule."""
    found = []
    last = tail[-TAIL_LINES:]
    for rule in rules:
        for i in range(len(last) - 1, -1, -1):
            caps = rule.search(last[i].text, holds)
            if caps is not None:
                if not any(_died_with(m) for m in last[i + 1:]):
                    found.append(Candidate(rule, last[i], n_errors, BASE_CONFIDENCE[rule.level], "pattern", caps))
                break
    return found


def _died_with(msg: Message) -> bool:
    """An exception line, or a line native code printed as it died (the user's own Ctrl-C that ends a
    paste of a hang is not in the tail: tracebacks.tail leaves it out)."""
    return bool(msg.exc_type or msg.native)


def _fuzzy_candidates(rules: list[Rule], errors: list[Message], taken: set[str],
                      explained: set[int]) -> list[Candidate]:
    """Reworded messages: strong error lines that no pattern explained, scored against the rules'
    canonical sentences. Short lines are skipped: a fragment scores high against anything."""
    choices, owners, sentences = [], [], []
    for rule in rules:
        if rule.id in taken:
            continue
        for sentence in rule.fuzzy:
            choices.append(_norm_sentence(sentence))
            owners.append(rule)
            sentences.append(sentence)
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
        best = _best_partial(query, choices)
        if not best:
            continue
        _, score, idx = best
        if len(query) < 0.6 * len(choices[idx]) or not _names_kept(sentences[idx], msg.text):
            continue
        rule = owners[idx]
        if rule.id in taken or rule.search(msg.text, lambda when: True) is not None:
            continue            # a pattern of this rule saw the line and its condition said no
        taken.add(rule.id)
        conf = (0.55 + (score - FUZZY_CUTOFF) / (100 - FUZZY_CUTOFF) * 0.3) * (1.0 if rule.level == "root" else 0.8)
        found.append(Candidate(rule, msg, pos, round(conf, 3), "fuzzy"))
    return found


def _best_partial(query: str, choices: list[str]) -> tuple[str, float, int] | None:
    """`process.extractOne(query, choices, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_CUTOFF)`, the same answer in
    a tenth of the time (a message of 200 characters against the book's 300 sentences took 15 to 40 ms of a cold
    start). partial_ratio scores windows of the longer text: 2 LCS / (m + the window's length), m the shorter's length;
    the window's LCS is at most L, the LCS of the two whole texts, so no window scores above 200 L / (m + L). A
    sentence whose bound is under the cut-off cannot be the answer and is left out before partial_ratio is asked; the
    others keep their order, so the best and its ties are the same."""
    from rapidfuzz import fuzz, process  # imported only when a message needs scoring
    from rapidfuzz.distance import LCSseq
    kept = []
    for i, choice in enumerate(choices):
        common = LCSseq.similarity(query, choice)
        # (0.1 below the cut-off: a bound a float rounding away from it is kept)
        if choice and 200 * common / (min(len(query), len(choice)) + common) >= FUZZY_CUTOFF - 0.1:
            kept.append(i)
    best = process.extractOne(query, [choices[i] for i in kept], scorer=fuzz.partial_ratio,
                              score_cutoff=FUZZY_CUTOFF, processor=None)
    return (best[0], best[1], kept[best[2]]) if best else None


def _explained(rules: list[Rule], errors: list[Message], taken: set[str], holds) -> set[int]:
    """Messages that some rule's pattern explains, even when that rule already hit earlier:
    a reworded-message score must never re-explain them as something else."""
    hit_rules = [r for r in rules if r.id in taken]
    return {id(m) for m in errors if any(r.search(m.text, holds) is not None for r in hit_rules)}


_BOOK_SCANS: dict[int, list] = {}
# Messages shorter than this are searched for each literal in turn (0.3 ms a thousand characters), not with the
# automaton: building it (and importing its module) took 3 ms of a cold start, more than a small paste's whole search.
SCAN_FROM = 8_000


def _book_scan(book: RuleBook) -> list:
    """[book, every pattern's required literal in the book, one automaton over them (built on first need)]: the same
    whatever a paste's facts let answer, so made once per book (kept with the book, so that its id is not reused)."""
    known = _BOOK_SCANS.get(id(book))
    if known is None or known[0] is not book:
        if len(_BOOK_SCANS) > 8:             # tests and rule authors load many books; a server, one
            _BOOK_SCANS.clear()
        known = _BOOK_SCANS[id(book)] = [book, tuple(sorted({lit for r in book for lit in r.literals if lit})), None]
    return known


def _reachable(rules: list[Rule], messages: list[Message], book: RuleBook) -> list[Rule]:
    """The rules one of whose patterns could hit one of these messages. A pattern cannot match without
    its required literal, and most rules' literals are in no message of a paste: one automaton pass
    over all the messages leaves out those rules, where each rule testing each literal on each
    message cost most of a small paste's diagnosis."""
    known = _book_scan(book)
    literals = known[1]
    if not literals or not messages:
        return rules
    joined = "\n".join(m.text for m in messages)
    if known[2] is None and len(joined) < SCAN_FROM:
        found = {lit for lit in literals if lit in joined}
    else:
        if known[2] is None:
            import ahocorasick_rs
            known[2] = ahocorasick_rs.BytesAhoCorasick([lit.encode() for lit in literals],
                                                       matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
        found = {literals[i] for i, _, _ in
                 known[2].find_matches_as_indexes(joined.encode("utf-8", "surrogatepass"), overlapping=True)}
    return [r for r in rules if any(not lit or lit in found for lit in r.literals)]


def holds_for(facts: dict):
    """`holds(when)`: whether a rule's (or a pattern's) conditions hold for the log's facts. Each
    condition set is the rule book's own and is asked about once per message, so its answer is kept
    for the paste (with the set itself, so that its id cannot be reused)."""
    seen: dict[int, tuple[dict, bool]] = {}

    def holds(when: dict) -> bool:
        known = seen.get(id(when))
        if known is None:
            known = seen[id(when)] = (when, all(condition_holds(k, v, facts) for k, v in when.items()))
        return known[1]
    return holds


def answers(cands: list[Candidate]) -> bool:
    """Whether a real answer is among the candidates: an active rule that does not merely point at
    an error above it (a wrapper, a worker's death), nor only says where it failed (a hint:
    "torch.compile failed", whose inner OS or CUDA error the indexes may still explain)."""
    return any(not c.points_above and c.rule.status == "active" and c.rule.level != "hint" for c in cands)


def candidates(book: RuleBook, errors: list[Message], tail: list[Message], facts: dict) -> list[Candidate]:
    """Every rule's first hit in the log: patterns over the error messages (scope `errors`), over
    every record (`any`) and over the last lines (`tail`), then reworded messages by rapidfuzz."""
    holds = holds_for(facts)
    usable = [r for r in book if not r.family and holds(r.when)]
    by_scope: dict[str, list[Rule]] = {"errors": [], "any": [], "tail": []}
    for r in usable:
        by_scope[r.scope].append(r)
    # the patterns' search only where a pattern can hit; the reworded-message scores below see every rule
    reach = {id(r) for r in _reachable(usable, errors + tail, book)}
    hit = {scope: [r for r in rules if id(r) in reach] for scope, rules in by_scope.items()}
    strong = strong_messages(errors)
    cands = _pattern_candidates(hit["errors"], strong, holds)
    # scope: any — the rule's message may be an INFO or WARNING record, a little less sure
    for c in _pattern_candidates(hit["any"], errors, holds):
        c.position = sum(1 for m in strong if m.line_no < c.message.line_no)
        c.confidence *= 1.0 if c.message.is_error else 0.85
        cands.append(c)
    cands += _tail_candidates(hit["tail"], tail, len(strong), holds)
    taken = {c.rule.id for c in cands}
    explained = {id(c.message) for c in cands} | _explained(hit["errors"], strong, taken, holds)
    # A reworded message after the first root cause found by a pattern could never rank first:
    # score only the messages before it (this also spares most CLI calls importing rapidfuzz).
    first_root = min((c.position for c in cands if c.rule.level == "root"), default=len(strong))
    return cands + _fuzzy_candidates(by_scope["errors"], strong[:first_root], taken, explained)


def strong_messages(errors: list[Message]) -> list[Message]:
    """The messages a root cause can be: errors, and plain lines that read like one."""
    return [m for m in errors if m.is_error or m.plain]


def wrappers(book: RuleBook, facts: dict) -> list[Rule]:
    """The rules whose message says "the real error is above" (a wrapper, or a hint that points
    above: `points_above`), that may answer here."""
    holds = holds_for(facts)
    return [r for r in book if not r.family and r.pointer and holds(r.when)
            and (r.scope == "errors" or r.level != "wrapper")]
