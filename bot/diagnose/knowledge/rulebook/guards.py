"""Version guards: a paragraph of a rule's text that holds only for some vLLM releases.

A paragraph may start with `[vllm >=0.11.2]` (any PEP 440 specifier after `vllm`), e.g. advice that
names a flag the older releases do not have. When the log shows its vLLM version, a paragraph whose
guard excludes it is dropped and an included one is shown without the guard; when it does not, the
guard becomes a short readable prefix ("vLLM ≥ 0.11.2:") so the reader knows where it applies.
"""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.base.versions import in_range, valid_specifier

# Anything that starts like a guard, so a misspelt one is reported instead of shown as text.
_GUARD = regex_cache.compile(r"^\s*\[\s*vllm\b(?P<spec>[^\]\n]*)\]\s*", re.I)
_LIST_MARKER = regex_cache.compile(r"^(\s*(?:\d{1,2}[.)]|[-*+])\s+)")
_SYMBOLS = {">=": "≥", "<=": "≤", "!=": "≠", "==": "=", "~=": "~=", "===": "=", ">": ">", "<": "<"}
_CLAUSE = regex_cache.compile(r"^\s*(===|~=|==|!=|>=|<=|>|<)\s*(\S+)\s*$")
_AND = {"en": " and ", "zh": " 且 "}
_COLON = {"en": ": ", "zh": "："}


def split(paragraph: str) -> tuple[str | None, str]:
    """(the guard's specifier or None, the paragraph without its guard)."""
    m = _GUARD.match(paragraph)
    if not m:
        return None, paragraph
    return m.group("spec").strip(), paragraph[m.end():]


def problem(paragraph: str) -> str | None:
    """Why a paragraph's guard is malformed, or None when it is fine (or has none)."""
    m = _GUARD.match(paragraph)
    if not m:
        if re.search(r"\[\s*vllm\s*[<>=!~]", paragraph, re.I):
            return "a version guard [vllm ...] must start its paragraph"
        return None
    raw = m.group(0).strip()
    spec = m.group("spec").strip()
    if not raw.startswith("[vllm ") or not spec:
        return f"guard {raw!r} must read [vllm SPECIFIER], e.g. [vllm >=0.11.2]"
    if not valid_specifier(spec):
        return f"guard {raw!r}: '{spec}' is not a PEP 440 specifier"
    if not paragraph[m.end():].strip():
        return f"guard {raw!r} guards an empty paragraph"
    return None


def readable(spec: str, lang: str) -> str:
    """'>=0.7,<0.11' -> 'vLLM ≥ 0.7 and < 0.11'."""
    parts = []
    for clause in (c for c in spec.split(",") if c.strip()):
        m = _CLAUSE.match(clause)
        parts.append(f"{_SYMBOLS[m.group(1)]} {m.group(2)}" if m else clause.strip())
    return "vLLM " + _AND.get(lang, _AND["en"]).join(parts)


def apply(paragraph: str, version: str | None, lang: str) -> str | None:
    """The paragraph as the reader should see it, or None when its guard excludes their release."""
    spec, body = split(paragraph)
    if spec is None:
        return paragraph
    if version and in_range(version, ">=0"):        # a version packaging cannot read counts as unknown
        return body if in_range(version, spec) else None
    prefix = readable(spec, lang) + _COLON.get(lang, _COLON["en"])
    if body.lstrip().startswith("```"):
        return prefix.rstrip() + "\n" + body
    m = _LIST_MARKER.match(body)
    if m:
        return m.group(1) + prefix + body[m.end():]
    return prefix + body
