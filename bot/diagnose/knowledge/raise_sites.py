"""What the two indexes of raise sites (vLLM's, and the stack's of torch, transformers, ...) share
at diagnosis time: a message template's parts (literal text and `{name}` placeholders, `{{` and
`}}` for literal braces), the releases a mask holds, and a message's match to a site. Standard
library only (and the project's lazy regexes), nothing compiled at import."""

from __future__ import annotations

from bot.base.lazyre import LazyRe

TEMPLATE_PART = LazyRe(r"\{\{|\}\}|\{([^{}]*)\}")


def template_parts(template: str) -> list[tuple[str, str]]:
    """[("lit", text) | ("ph", name)] of a template; {{ and }} are literal braces."""
    out: list[tuple[str, str]] = []
    lit: list[str] = []
    pos = 0
    for m in TEMPLATE_PART.finditer(template):
        lit.append(template[pos:m.start()])
        pos = m.end()
        if m.group(0) in ("{{", "}}"):
            lit.append(m.group(0)[0])
            continue
        if "".join(lit):
            out.append(("lit", "".join(lit)))
        lit = []
        out.append(("ph", m.group(1)))
    lit.append(template[pos:])
    if "".join(lit):
        out.append(("lit", "".join(lit)))
    return out


class Template:
    """What a site knows of its template, worked out on first use: its parts and how many literal
    characters it has. A site class with the slots `template`, `_parts` and `_literal` derives it."""

    __slots__ = ()

    @property
    def parts(self) -> list[tuple[str, str]]:
        if self._parts is None:
            self._parts = template_parts(self.template)
        return self._parts

    @property
    def literal_chars(self) -> int:
        if self._literal is None:
            self._literal = len("".join("".join(v.split()) for k, v in self.parts if k == "lit"))
        return self._literal


def bits(mask: int) -> list[int]:
    """The release positions a mask holds, ascending."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def places_mask(lines: list[int]) -> int:
    """The releases a place's `lines` ([mask, line, mask, line, ...]: the line it stood on per set of releases)
    holds, as one mask."""
    mask = 0
    for j in range(0, len(lines), 2):
        mask |= lines[j]
    return mask


class SiteMatch:
    """A message matched to a raise site: the site, the score (80-100), the values the message
    filled the placeholders with, and how (template | prefix | fuzzy)."""

    __slots__ = ("site", "score", "captures", "by")

    def __init__(self, site, score: float, captures: dict, by: str):
        self.site, self.score, self.captures, self.by = site, score, captures, by

    def __repr__(self) -> str:
        return f"SiteMatch({self.score:.0f} {self.by} {self.site!r})"
