"""A message of a stack package (torch, transformers, ...) matched to the raise site that words it.

A site is an exception class and a message template, `Repository {repo_id} was not found` (the
build scans each package's releases with the vLLM index's raise scanner). The build gives each
site one or two anchors, its rarest literal word and the rarest of its first words; a message is
compared only with the sites whose anchor it holds, a few instead of thousands, best word overlap
first. A template's regex must then match the whole message (or its start, when a caller appended
text): precision first, so a reworded message finds nothing (the vLLM index adds a fuzzy step for
vLLM's own messages; the stack's are matched exactly).

Standard library only; templates' regexes are compiled the first time a message reaches them.
"""

from __future__ import annotations

import heapq
import re

from ..raise_sites import SiteMatch, Template, bits, places_mask, template_parts

MIN_SCORE = 80
CLASS_PENALTY = 12           # the message's class is not the one the site raises
CANDIDATES = 10              # sites verified per message
MAX_CAPTURE = 1000
MAX_MESSAGE = 4000
FIRST_WORDS = 6              # a message cut short still holds its first words

_WORDS = r"[a-z][a-z0-9_]{2,}"
_NAME_ATTRS = ("__name__", "__qualname__")
_NOT_A_NAME = re.compile(r"[\s'\"]")


def literal_words(template: str) -> list[str]:
    """The lower-cased words (3+ characters) of a template's literal text, in order."""
    text = " ".join(v for k, v in template_parts(template) if k == "lit")
    return re.findall(_WORDS, text.lower())


def shape(template: str) -> str:
    """A template with its placeholders unnamed: what a reader of the message can tell apart."""
    return "".join(v if k == "lit" else "{}" for k, v in template_parts(template))


def _regex(parts: list[tuple[str, str]]) -> tuple[re.Pattern, list[str]]:
    """Literal text escaped, any run of white space matching any other (a paste's wrapping), each
    field a lazy bounded capture and the last one the rest; fields that touch share a capture."""
    out, names = [], []
    for i, (kind, value) in enumerate(parts):
        if kind == "lit":
            out.append(r"\s*".join(re.escape(p) for p in value.split()) if value.strip() else r"\s*")
        elif i > 0 and parts[i - 1][0] == "ph":
            continue
        else:
            out.append("(.*)" if i == len(parts) - 1 else f"(.{{0,{MAX_CAPTURE}}}?)")
            names.append(value)
    return re.compile("".join(out), re.S), names


class Site(Template):
    """One message a package raises (a class and a template), and every place that raises it."""

    __slots__ = ("index", "id", "exc", "template", "_parts", "_compiled", "_words", "_literal")

    def __init__(self, index: "SiteIndex", i: int):
        self.index, self.id = index, i
        self.exc, self.template = index.exc[i], index.template[i]
        self._parts = self._compiled = self._words = self._literal = None

    @property
    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = frozenset(literal_words(self.template))
        return self._words

    def captures(self, text: str, full: bool) -> tuple[int, dict] | None:
        """(end, {placeholder: value}) when the template matches the whole text (or its start)."""
        if self._compiled is None:
            self._compiled = _regex(self.parts)
        rx, names = self._compiled
        m = rx.fullmatch(text) if full else rx.match(text)
        if m is None:
            return None
        values: dict = {}
        for name, value in zip(names, m.groups()):
            value = value.strip()
            # a class's or function's __name__ holds no space or quote: "{self.__class__.__name__} has no
            # attribute {key}" is not Python's own "'dict' object has no attribute 'model_type'"
            if name.endswith(_NAME_ATTRS) and _NOT_A_NAME.search(value):
                return None
            values.setdefault(name, value)
        return m.end(), values

    @property
    def where(self) -> list[dict]:
        """[{release, file, line, function, condition}], oldest release first."""
        rels, files = self.index.releases, self.index.files
        out = []
        for fid, function, condition, lines in self.index.places(self.id):
            for j in range(0, len(lines), 2):
                for ri in bits(lines[j]):
                    out.append((ri, {"release": rels[ri], "file": files[fid], "line": lines[j + 1],
                                     "function": function, "condition": condition}))
        return [w for _, w in sorted(out, key=lambda x: (x[0], x[1]["file"], x[1]["line"]))]

    @property
    def releases(self) -> list[str]:
        mask = 0
        for _, _, _, lines in self.index.places(self.id):
            mask |= places_mask(lines)
        return [self.index.releases[i] for i in bits(mask)]

    def latest_where(self) -> dict:
        return self.where[-1]

    def __repr__(self) -> str:
        return f"Site({self.index.package} {self.exc}: {self.template[:60]!r})"


class SiteIndex:
    """One package's sites: block from the build (releases, files, exc, template, postings);
    places(i) gives where site i is raised (read from its own block on first use)."""

    def __init__(self, block: dict, places):
        self.package, self.releases, self.files = block["package"], block["releases"], block["files"]
        self.exc, self.template = block["exc"], block["template"]
        self._postings_text: dict[str, str] = block["postings"]
        self._postings: dict[str, list[int]] = {}
        self._sites: list[Site | None] = [None] * len(self.exc)
        self._places = places
        self._memo: dict = {}

    def __len__(self) -> int:
        return len(self.exc)

    def site(self, i: int) -> Site:
        if self._sites[i] is None:
            self._sites[i] = Site(self, i)
        return self._sites[i]

    def places(self, i: int) -> list:
        return self._places()[i]

    def _posting(self, word: str) -> list[int]:
        if word not in self._postings:
            text = self._postings_text.get(word)
            self._postings[word] = [int(i) for i in text.split()] if text else []
        return self._postings[word]

    def _candidates(self, words: set[str]) -> list[tuple[float, int]]:
        """(word overlap, site) of the sites whose anchor the message holds, most alike first: an
        F1 of the two word sets, so a long template cut short beats a short one sharing a word."""
        pool = {i for w in words for i in self._posting(w)}
        ranked = []
        for i in pool:
            tw = self.site(i).words
            common = len(tw & words)
            if common:
                p, r = common / len(words), common / len(tw)
                ranked.append((2 * p * r / (p + r), i))
        return heapq.nlargest(CANDIDATES, ranked)

    def match(self, message: str, exc: str | None = None, limit: int = 3) -> list[SiteMatch]:
        key = (message, exc, limit)
        if key not in self._memo:
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[key] = self._match(message, exc)[:limit]
        return self._memo[key]

    def _match(self, message: str, exc: str | None) -> list[SiteMatch]:
        text = " ".join(message[:MAX_MESSAGE].split())
        if exc == "KeyError" and len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]                       # str(KeyError("x")) is "'x'"
        words = set(re.findall(_WORDS, text.lower()))
        trimmed = text.rstrip(" .:")
        found = []
        for _, i in self._candidates(words):
            site = self.site(i)
            if not site.words <= words:             # a template's regex needs all its words
                continue
            specific = min(1.0, site.literal_chars / 30)
            whole = site.captures(text, full=True) or (site.captures(trimmed, full=True) if trimmed != text else None)
            if whole:
                score, captures, by = 90 + 10 * specific, whole[1], "template"
            else:
                start = site.captures(text, full=False)
                if not start or start[0] < len(text) * 0.6:     # the message, then text appended to it
                    continue
                score, captures, by = 85 + 8 * specific - 10 * (1 - start[0] / len(text)), start[1], "prefix"
            if exc and site.exc != exc:
                score -= CLASS_PENALTY
            if score >= MIN_SCORE:
                found.append(SiteMatch(site, round(score, 1), captures, by))
        found.sort(key=lambda s: (s.score, s.site.literal_chars, s.site.exc == exc), reverse=True)
        return found
