"""Hand-written rules left behind by vLLM's rewording: `vllm-doctor rules drift`.

A rule is anchored on the wording of the releases it was written for. When a later release rewords
the message (vLLM 0.31 added "for shared-memory allocation" to the /dev/shm check), the rule's
patterns stop matching, the paste falls through to a family answer, and no test fails: the
fixtures still carry the old wording. This finds those messages in the index of vLLM's releases,
starting from the rule book's map of it (rules/_vllm_source.json).

A rule's *own* sites are the sites the map gives it whose message the rule matches on the
template's literal text (not only on a value filled into a placeholder: a rule on `CUDA error: ...`
does not own every message that wraps an `{err}`). A *twin* of one is another site raised near it
whose template reads mostly the same (rapidfuzz ratio of the masked templates, stricter the farther
apart the two are raised: same function, same function name in another file, same file, or
anywhere but first raised by the release after the rule's site's last) or starts with the same
first sentence. A twin is a finding when

- it outlives the rule's site (the site is gone after release X, the twin is raised after X:
  "continues"), or
- it appeared after the rule's site and the newest release raises both ("newer"),

and no pattern of the rule matches it. A twin another hand-written rule matches is answered
("answered by"); a twin read and found to be another check is listed, with why, in
rules/_drift_reviewed.yaml ("reviewed"). What is left is a rule to widen.

A message is tried with several fillings of its placeholders: synthesised values
(synthesis.py), the values of the rule's own fixtures (a `{shm_path}` the synthesis cannot guess,
read from each fixture's evidence by the old template), the new template read over the old message
(`fp8` where `{kv_cache_dtype}` replaced it), and each of those with one value or every value
quoted: the index keeps no `!r` conversion, so `named {prefix!r}` reads as `named {prefix}`. Each
pattern's own `when` is taken to hold, as in `rules sources`.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bot.diagnose.knowledge.vllm.synthesis import ERROR_VALUES, value_for

REVIEWED = "_drift_reviewed.yaml"
MIN_LITERAL = 12            # as vllm_map: a template with less fixed text says too little
SAME_PLACE = 60             # least rapidfuzz ratio of the masked templates: the same file and function
SAME_FUNCTION = 75          # ... the same function name in another file (a function moved)
SAME_FILE = 80              # ... another function of the same file
NEXT_RELEASE = 70           # ... anywhere, same class, first raised by the release after the site's last
MIN_SENTENCE = 24           # a shared first sentence this long makes a twin at any ratio
OWN_LITERAL = 8             # a rule's match must cover this many characters of the template's own text
_EXC_PREFIX = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning):\s*")
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


@dataclass
class Finding:
    rule_id: str
    old: object                 # a RaiseSite of the rule's own
    new: object                 # its twin (RaiseSite)
    kind: str                   # "continues" | "newer"
    score: int                  # rapidfuzz ratio of the masked templates
    near: str                   # how they were paired: "function" | "moved function" | "file" |
                                # "next release" | "first sentence"
    matched: bool               # one of the rule's patterns matches the twin
    answered_by: str | None = None   # another hand-written rule matches it
    reviewed: str | None = None      # why it is another check (rules/_drift_reviewed.yaml)

    @property
    def open(self) -> bool:
        """Left for a person: the rule misses the twin and nothing explains why."""
        return not (self.matched or self.answered_by or self.reviewed)


# --- messages --------------------------------------------------------------------------------------

def message(site, values: dict | None = None, quoted: int | None = None) -> tuple[str, list[tuple[int, int]]]:
    """The site's message as an exception line, each placeholder filled from `values` (by its
    name) or synthesised, the one at position `quoted` (-1: every one) quoted; and the spans of its
    literal text."""
    rng = random.Random(f"0:{site.exc}:{site.template}")
    values = values or {}
    text, spans = f"{site.exc}: ", []
    for n, (kind, value) in enumerate(site.parts):
        if kind == "lit":
            value = _SPACE.sub(" ", value)
        else:
            value = values[value] if value in values else _neutral(value_for(value, rng))
            value = repr(value) if quoted in (n, -1) and not _number(value) else value
        if text.endswith(" ") and value.startswith(" "):
            value = value[1:]
        if kind == "lit" and value:
            spans.append((len(text), len(text) + len(value)))
        text += value
    return text.rstrip(), spans


def _neutral(value: str) -> str:
    """An error text synthesised into an `{e}` would let a rule on that error claim every message
    that wraps one: the wrapped error says nothing about the message around it."""
    return "something failed" if value in ERROR_VALUES else value


def _number(value: str) -> bool:
    return bool(re.fullmatch(r"[\d.]+", value))


def answers(rule, site, fillings: list[dict | None] = (None,)) -> bool:
    """Whether one of the rule's patterns matches the site's message, with one of the fillings,
    on the template's literal text: a match that lies in a filled value is not the site's."""
    quotings = [None, -1, *(n for n, (kind, _) in enumerate(site.parts) if kind == "ph")]
    for values in fillings:
        for quoted in quotings:
            text, spans = message(site, values, quoted)
            for rx in rule.patterns:
                for m in rx.finditer(text):
                    covered = sum(max(0, min(b, m.end()) - max(a, m.start())) for a, b in spans)
                    if covered >= min(OWN_LITERAL, m.end() - m.start()):
                        return True
    return False


def read_over(new, old, fillings: list[dict | None]) -> list[dict]:
    """The new template's placeholders read over the old message: the values with which the new
    wording says what the old one said (`fp8` in `{kv_cache_dtype}`), if it can."""
    out = []
    for values in fillings:
        text = _EXC_PREFIX.sub("", message(old, values)[0], count=1)
        found = new.fullmatch(text)
        if found:
            out.append(found)
    return out


def first_sentence(site) -> str:
    text = site.masked.lower()
    end = _SENTENCE_END.search(text)
    return text[:end.start()] if end else text


# --- where sites are raised ------------------------------------------------------------------------

class Places:
    """The index's sites by (file, function), by function and by file, and the span of releases
    (first and last position in `releases`) each is raised in."""

    def __init__(self, idx):
        self.idx = idx
        self.span: dict[int, tuple[int, int]] = {}
        self.places: dict[int, set[tuple[str, str]]] = defaultdict(set)
        self.by_place: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.by_function: dict[str, set[int]] = defaultdict(set)
        self.by_file: dict[str, set[int]] = defaultdict(set)
        self.by_first: dict[int, set[int]] = defaultdict(set)     # release position -> sites first raised there
        files = idx.files
        for i in range(len(idx.sites)):
            mask = 0
            for fi, fn, _cond, lines in idx.places(i):
                for m in lines[::2]:
                    mask |= m
                place = (files[fi], fn)
                self.places[i].add(place)
                self.by_place[place].add(i)
                self.by_function[fn].add(i)
                self.by_file[files[fi]].add(i)
            self.span[i] = ((mask & -mask).bit_length() - 1, mask.bit_length() - 1)
            self.by_first[self.span[i][0]].add(i)

    def near(self, i: int):
        """(site, least ratio, how) for every site raised near site i, nearest first."""
        seen: set[int] = {i}
        rings = [(self.by_place, lambda p: p, SAME_PLACE, "function"),
                 (self.by_function, lambda p: p[1], SAME_FUNCTION, "moved function"),
                 (self.by_file, lambda p: p[0], SAME_FILE, "file")]
        for table, key, least, how in rings:
            for place in sorted(self.places[i]):
                for j in sorted(table.get(key(place), ())):
                    if j not in seen:
                        seen.add(j)
                        yield j, least, how
        # a message gone from its place may come back from a new function elsewhere
        exc = self.idx.site(i).exc
        for j in sorted(self.by_first.get(self.span[i][1] + 1, ())):
            if j not in seen and self.idx.site(j).exc == exc:
                yield j, NEXT_RELEASE, "next release"


# --- the check -------------------------------------------------------------------------------------

def find(idx, book, book_map: dict, fixtures_root: Path | None = None,
         reviewed: dict | None = None) -> list[Finding]:
    """Every twin of every rule's own sites, matched or not (Finding.open: the ones to look at)."""
    from rapidfuzz import fuzz
    places = Places(idx)
    newest = len(idx.releases) - 1
    rules = {r.id: r for r in book if not r.family}
    by_regex = _by_regex(idx)
    out: list[Finding] = []
    for rule_id, entries in sorted(book_map.get("sites", {}).items()):
        rule = rules.get(rule_id)
        if rule is None:
            continue
        mapped = list(dict.fromkeys(i for e in entries for i in by_regex.get((e["exc"], e["regex"]), ())))
        fillings: list[dict | None] = [None]
        if fixtures_root is not None and not all(answers(rule, idx.site(i)) for i in mapped):
            fillings += fixture_values(book, rule, [idx.site(i) for i in mapped], fixtures_root)
        own = [i for i in mapped if answers(rule, idx.site(i), fillings)]
        done: set[int] = set(own)
        for i in own:
            old = idx.site(i)
            first, last = places.span[i]
            sentence = first_sentence(old)
            for j, least, how in places.near(i):
                new = idx.site(j)
                if j in done or new.literal_chars < MIN_LITERAL:
                    continue
                t_first, t_last = places.span[j]
                kind = ("continues" if t_last > last else
                        "newer" if t_last == last == newest and t_first > first else None)
                if kind is None:
                    continue
                score = round(fuzz.ratio(old.masked, new.masked))
                if score < least:
                    if len(sentence) < MIN_SENTENCE or first_sentence(new) != sentence:
                        continue
                    how = "first sentence"
                done.add(j)
                tried = fillings + read_over(new, old, fillings)
                matched = answers(rule, new, tried)
                other = None if matched else next(
                    (r.id for r in rules.values() if r.id != rule_id and answers(r, new, tried)), None)
                out.append(Finding(rule_id, old, new, kind, score, how, matched, other,
                                   _reviewed(reviewed or {}, rule_id, new)))
    return out


def fixture_values(book, rule, sites: list, root: Path) -> list[dict]:
    """{placeholder: value} of each site whose template the evidence of a fixture of the rule reads."""
    from bot.diagnose import diagnose

    from .fixtures import read
    out = []
    for path in sorted((root / rule.id).glob("*.log")):
        best = diagnose(read(path).data, book=book).best
        if best is None or best.rule_id != rule.id:
            continue
        text = _EXC_PREFIX.sub("", " ".join(best.evidence.split()), count=1)
        for site in sites:
            found = site.fullmatch(text) or (site.prefix_match(text) or (0, None))[1]
            if found:
                out.append(found)
    return out


def _by_regex(idx) -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = defaultdict(list)
    for s in idx.sites:
        if s.literal_chars >= MIN_LITERAL:
            out[(s.exc, s.regex.pattern)].append(s.id)
    return out


def load_reviewed(directory) -> dict[str, list[dict]]:
    """rules/_drift_reviewed.yaml: {rule id: [{new: the twin's template's start, why: ...}]}."""
    import yaml
    path = Path(directory) / REVIEWED
    if not path.is_file():
        return {}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _reviewed(reviewed: dict, rule_id: str, site) -> str | None:
    template = " ".join(site.template.split())
    return next((r["why"] for r in reviewed.get(rule_id, ()) if template.startswith(" ".join(r["new"].split()))), None)


def unused_reviews(reviewed: dict, findings: list[Finding]) -> list[str]:
    """Entries of the reviewed list no finding needs any more (the index or the rule changed)."""
    used = {(f.rule_id, " ".join(f.new.template.split())) for f in findings}
    return [f"{rid}: {r['new']}" for rid, entries in sorted(reviewed.items()) for r in entries
            if not any(u[0] == rid and u[1].startswith(" ".join(r["new"].split())) for u in used)]


# --- the report ------------------------------------------------------------------------------------

def releases_of(site) -> str:
    rels = site.releases
    return rels[0] if len(rels) == 1 else f"{rels[0]} … {rels[-1]}"


def verdict(f: Finding) -> str:
    if f.matched:
        return "a pattern matches the new wording"
    if f.answered_by:
        return f"no pattern matches the new wording; {f.answered_by} answers it"
    if f.reviewed:
        return f"no pattern matches the new wording; reviewed: {f.reviewed}"
    return "NO PATTERN MATCHES THE NEW WORDING"


def report(findings: list[Finding], show_all: bool = False) -> list[str]:
    return [f"{f.rule_id}: {f.kind} ({f.near}, ratio {f.score}): {verdict(f)}\n"
            f"    old ({releases_of(f.old)}): {f.old.exc}: {_one_line(f.old.template)}\n"
            f"    new ({releases_of(f.new)}): {f.new.exc}: {_one_line(f.new.template)}"
            for f in findings if show_all or f.open]


def _one_line(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
