"""How a fact's patterns are searched in a paste, and what one paste's facts share.

Each fact has a list of regexes, most reliable first; the first that matches wins. A regex runs only
on the lines that hold one of its literals (a str.find each), in a window of the text (its start,
its error lines, its end): a regex scan of a whole long log costs more than the diagnosis. Engine
starts are counted over the whole text, with str.find alone.
"""

from __future__ import annotations

import functools
import re

from bot.base import regex_cache


class _P:
    """A fact pattern searched only in the lines that hold one of its literals, and compiled on
    first use: most logs lack most facts, a str.find is far faster than a regex scan, and compiling
    every pattern up front costs more than a small log. The literals default to the pattern's own
    leading text; a pattern that starts with an alternation names them. `span` lets a match run on
    past its line (a command continued with backslashes). `near`: every match lies within that many characters of
    one of the literals, so only that much of a long line around each is searched (vLLM 0.32's engine config line,
    3,300 characters, names `enable_rocm_segmented_attn_autotune`: a case-blind pattern of a dozen branches took
    3 ms on each such line)."""

    MAX_TRIED = 64                  # lines tried per pattern: a hostile paste repeats a literal

    def __init__(self, pattern: str, flags: int = 0, literals: tuple[str, ...] = (), span: int = 0, near: int = 0):
        self.pattern, self.flags, self._rx, self.span, self.near = pattern, flags, None, span, near
        if not literals:
            lead = re.match(r"[^\\.^$*+?{}\[\]|()]*", pattern).group(0)
            nxt = pattern[len(lead):len(lead) + 1]
            lead = lead[:-1] if nxt in ("*", "?", "{") else lead
            literals = (lead,) if len(lead) >= 3 and not flags & re.I else ()
        self.literals = literals
        _LITERALS.update(lit for lit in literals if lit not in _EVERY_LINE)

    def search(self, text: str):
        starts = _line_starts(text, self.literals, self.MAX_TRIED) if self.literals else None
        if starts == []:
            return None
        if self._rx is None:
            self._rx = regex_cache.compile(self.pattern, self.flags)
        if starts is None:
            return self._rx.search(text)
        for start in starts:
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if self.near and end - start > 4 * self.near:
                m = self._search_near(text, start, end)
            else:
                m = self._rx.search(text, start, max(end, start + self.span) if self.span else end)
            if m:
                return m
        return None

    def _search_near(self, text: str, start: int, end: int):
        """The first match within `near` characters of a literal in one long line."""
        hits = sorted(at for lit in self.literals for at in _offsets(text, lit, start, end, self.MAX_TRIED))
        for at in hits:
            m = self._rx.search(text, max(start, at - self.near), min(end, at + self.near))
            if m:
                return m
        return None


def _offsets(text: str, literal: str, start: int, end: int, most: int) -> list[int]:
    found, at = [], text.find(literal, start, end)
    while at >= 0 and len(found) < most:
        found.append(at)
        at = text.find(literal, at + 1, end)
    return found


def _line_starts(text: str, literals: tuple[str, ...], most: int) -> list[int]:
    """Start offsets of the first lines holding any of the literals, in the order of the text."""
    if len(text) >= 65536:          # skip the patterns' literals a long paste lacks (one pass for all)
        present = _literals_present(text)
        literals = tuple(lit for lit in literals if lit in present or lit not in _LITERALS)
    starts: set[int] = set()
    for lit in literals:
        pos, n = text.find(lit), 0
        while pos >= 0 and n < most:
            starts.add(text.rfind("\n", 0, pos) + 1)
            nl = text.find("\n", pos)
            pos, n = (text.find(lit, nl + 1) if nl >= 0 else -1), n + 1
    return sorted(starts)[:most]


# The literals of every _P: on a long paste one Aho-Corasick pass says which of them it holds, where a
# str.find each (some 300, most absent, each a pass over the whole paste) took 4 ms on a megabyte.
_LITERALS: set[str] = set()
# ...but not the words of vLLM's record header and its workers' tag: on nearly every line of a vLLM log, the automaton
# listed thousands of their matches only to say they are there (0.45 ms of a 100 KB window's 0.7); each is looked for
# with str.find where a pattern asks, which finds it in the first lines
_EVERY_LINE = frozenset((" INFO ", "INFO ", " WARNING ", "WARNING ", " ERROR ", "ERROR ", " DEBUG ", "DEBUG ", "Worker"))


def _per_paste(compute):
    """`compute(text)` kept for the last text asked about (by identity: one paste's facts ask for it several times)."""
    kept: tuple = (None, None)

    def cached(text: str):
        nonlocal kept
        seen, found = kept          # one tuple, read at once: another thread may replace it
        if seen is not text:
            found = compute(text)
            kept = (text, found)
        return found
    return cached


@functools.cache
def _literal_scan(count: int):
    """The automaton of the `count` literals registered so far (a _P made later makes a new one)."""
    import ahocorasick_rs
    names = sorted(_LITERALS)
    return names, ahocorasick_rs.BytesAhoCorasick([n.encode() for n in names],
                                                   matchkind=ahocorasick_rs.MATCHKIND_STANDARD)


@_per_paste
def _literals_present(text: str) -> frozenset:
    names, scan = _literal_scan(len(_LITERALS))
    return frozenset(names[i] for i, _, _ in scan.find_matches_as_indexes(text.encode(), overlapping=True))


def _first(patterns: list[_P], text: str) -> str | None:
    """The first pattern's match, most reliable first: its group, or its groups joined by dots (a version in parts)."""
    for rx in patterns:
        m = rx.search(text)
        if m:
            return ".".join(g for g in m.groups() if g) if len(m.groups()) > 1 else m.group(1)
    return None


# the matches _all keeps unless told otherwise: as many as pip's conflicts a paste is read for (pip_uv)
MAX_CONFLICTS = 40


def _all(p: _P, text: str, most: int = MAX_CONFLICTS) -> list:
    """Every match of a fact pattern in the lines holding its literal (at most `most`)."""
    starts = _line_starts(text, p.literals, p.MAX_TRIED) if p.literals else [0]
    if not starts:
        return []
    if p._rx is None:
        p._rx = regex_cache.compile(p.pattern, p.flags)
    out = []
    for start in starts:
        end = text.find("\n", start)
        out.extend(p._rx.finditer(text, start, len(text) if end < 0 else end))
        if len(out) >= most:
            break
    return out[:most]
