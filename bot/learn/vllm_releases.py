"""What each vLLM release changed, for rule authors: the dashboard's vLLM release pages.

From the index of vLLM's releases (the copy in use, so a release `index update` added is here the
day it ships) and the rule book's map of vLLM's source (rules/_vllm_source.json). For each release
indexed whole, against the one before it:

- new: messages it raises that the release before did not;
- changed: a message the release before raised, gone in it, whose place raises a new message in
  its stead: the same check reworded. The same function under the same condition, or the same
  function or file and a message that reads mostly the same (rapidfuzz ratios MIN_SAME_CHECK,
  MIN_SAME_FUNCTION, MIN_SAME_FILE of the two masked messages);
- gone: the others the release before raised;
- drift: a hand-written rule whose message (a site the map gives it) is gone in the release, and
  whose patterns do not match the message's new wording (the rule run over the new site's
  synthesised message), or that has no new wording;
- rules whose `versions` end right before it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from bot.base.versions import in_range
from bot.diagnose.knowledge.vllm.synthesis import synthesise

MIN_SAME_CHECK = 30         # the same function and condition: little of the wording needs to stay
MIN_SAME_FUNCTION = 60
MIN_SAME_FILE = 80
NEAREST = 50                # a rule's message gone without a successor: the most similar new one, shown as a lead


@dataclass
class Drift:
    rule_id: str
    old: object                 # the rule's message (RaiseSite) the release no longer raises
    new: object | None          # its new wording, None when the release raises none
    message: str = ""           # the new wording synthesised, which the rule does not match
    nearest: bool = False       # `new` is only the new message most like it (NEAREST), raised elsewhere


@dataclass
class Release:
    version: str
    previous: str | None
    uploaded: str | None
    new: list = field(default_factory=list)          # RaiseSite
    changed: list = field(default_factory=list)      # (RaiseSite before, RaiseSite now)
    gone: list = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    ending: list = field(default_factory=list)       # rules whose `versions` stop before this release

    @property
    def counts(self) -> dict[str, int]:
        return {"new": len(self.new), "changed": len(self.changed), "gone": len(self.gone), "drift": len(self.drift)}


class History:
    """Every release's changes, computed once per index and rule book."""

    def __init__(self, idx, book, book_map: dict | None):
        self.idx, self.book = idx, book
        self._masks = [0] * len(idx.sites)
        self._by_function: dict[tuple[str, str], list[int]] = defaultdict(list)     # (exc, function) -> sites
        for i in range(len(self._masks)):
            exc = idx.site(i).exc
            for _fi, fn, _cond, lines in idx.places(i):
                for m in lines[::2]:
                    self._masks[i] |= m
                self._by_function[(exc, fn)].append(i)
        mapped = self._mapped(book_map or {})
        self.releases: list[Release] = []
        for ri, version in enumerate(idx.releases):
            rel = Release(version, idx.releases[ri - 1] if ri else None, idx.uploaded.get(version))
            if ri:
                self._compare(rel, ri, mapped)
            self.releases.append(rel)
        self.newest = idx.versions[-1]
        self.stale_versions = sorted(
            (r.id, r.versions, self._last_in(r.versions)) for r in book
            if not r.family and r.versions and "<" in r.versions and not in_range(self.newest, r.versions))

    def release(self, version: str) -> Release | None:
        return next((r for r in self.releases if r.version == version), None)

    def _last_in(self, versions: str) -> str | None:
        inside = [v for v in self.idx.versions if in_range(v, versions)]
        return inside[-1] if inside else None

    def _mapped(self, book_map: dict) -> list[tuple[object, int]]:
        """(rule, site id) for every site the map gives a shipped hand-written rule: the index's
        site of the same class, function and template."""
        out = []
        rules = {r.id: r for r in self.book if not r.family}
        for rule_id, entries in book_map.get("sites", {}).items():
            if rule_id not in rules:
                continue
            for e in entries:
                found = next((i for i in self._by_function.get((e["exc"], e["function"]), ())
                              if self.idx.site(i).regex.pattern == e["regex"]), None)
                if found is not None:
                    out.append((rules[rule_id], found))
        return out

    def _where(self, i: int, ri: int) -> set[tuple[str, str, str]]:
        """(file, function, condition) of a site's places in the release at position ri."""
        files = self.idx.files
        return {(files[fi], fn, cond or "") for fi, fn, cond, lines in self.idx.places(i)
                if any(m >> ri & 1 for m in lines[::2])}

    def _compare(self, rel: Release, ri: int, mapped) -> None:
        from rapidfuzz import fuzz
        idx, before, now = self.idx, 1 << (ri - 1), 1 << ri
        gone = [i for i, m in enumerate(self._masks) if m & before and not m & now]
        new = [i for i, m in enumerate(self._masks) if m & now and not m & before]
        by_check, by_function, by_file = defaultdict(set), defaultdict(set), defaultdict(set)
        for n in new:
            for file, fn, cond in self._where(n, ri):
                by_check[(fn, cond)].add(n)
                by_function[fn].add(n)
                by_file[file].add(n)
        scored = []
        for g in gone:
            masked = idx.site(g).masked
            for file, fn, cond in self._where(g, ri - 1):
                for n, least in [*((n, MIN_SAME_CHECK) for n in by_check.get((fn, cond), ()) if cond),
                                 *((n, MIN_SAME_FUNCTION) for n in by_function.get(fn, ())),
                                 *((n, MIN_SAME_FILE) for n in by_file.get(file, ()))]:
                    score = fuzz.ratio(masked, idx.site(n).masked)
                    if score >= least:
                        scored.append((score, g, n))
        pairs: dict[int, int] = {}
        taken: set[int] = set()
        for _score, g, n in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
            if g not in pairs and n not in taken:
                pairs[g] = n
                taken.add(n)
        rel.changed = [(idx.site(g), idx.site(n)) for g, n in sorted(pairs.items())]
        rel.gone = [idx.site(g) for g in gone if g not in pairs]
        rel.new = [idx.site(n) for n in new if n not in taken]
        everything = lambda when: True          # noqa: E731 - a pattern's `when` needs a log's facts
        for rule, i in mapped:
            if not self._masks[i] & before or self._masks[i] & now:
                continue
            n, nearest = pairs.get(i), False
            if n is None and new:
                score, n = max((fuzz.ratio(idx.site(i).masked, idx.site(k).masked), k) for k in new)
                n, nearest = (n, True) if score >= NEAREST else (None, False)
            if n is None:
                rel.drift.append(Drift(rule.id, idx.site(i), None))
                continue
            site = idx.site(n)
            line = f"{site.exc}: {' '.join(synthesise(site).split())}"
            if rule.search(line, everything) is None:
                rel.drift.append(Drift(rule.id, idx.site(i), site, line, nearest))
        rel.ending = sorted(r.id for r in self.book if not r.family and r.versions
                            and in_range(rel.previous, r.versions) and not in_range(rel.version, r.versions))


def history(idx, book) -> History:
    from bot.diagnose.knowledge.vllm import rulebook_map
    return History(idx, book, rulebook_map.load(book.directory))

