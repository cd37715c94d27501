"""Is a version inside a rule's range? PEP 440 semantics through `packaging`.

Most checks are plain ("0.11.0" in ">=0.8.5,<0.12"): those are answered by comparing integer
tuples, because importing packaging costs about 10 ms of a CLI call's 50 ms budget. Anything else
(pre-releases, local versions such as "0.10.1.dev0+g6d8d", "~=", wildcards) goes to packaging.
"""

from __future__ import annotations

import operator

from bot.base import regex_cache

_PLAIN_VERSION = regex_cache.compile(r"^\d+(?:\.\d+)*$")
_PLAIN_CLAUSE = regex_cache.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)\s*$")
OPS = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
        ">": operator.gt, "<": operator.lt}


def _key(v: str) -> tuple[int, ...]:
    parts = [int(p) for p in v.split(".")]
    while len(parts) > 1 and parts[-1] == 0:     # 0.8 == 0.8.0, as in PEP 440
        parts.pop()
    return tuple(parts)


def in_range(version: str | None, spec: str) -> bool:
    if not version:
        return False
    clauses = [c for c in spec.split(",") if c.strip()]
    plain = [_PLAIN_CLAUSE.match(c) for c in clauses]
    if _PLAIN_VERSION.match(version) and all(plain):
        v = _key(version)
        return all(OPS[m.group(1)](v, _key(m.group(2))) for m in plain)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version
    try:
        return Version(version) in SpecifierSet(spec, prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def valid_specifier(spec: str) -> bool:
    if all(_PLAIN_CLAUSE.match(c) for c in spec.split(",") if c.strip()) and spec.strip():
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        SpecifierSet(spec)
        return True
    except InvalidSpecifier:
        return False
