"""Is a version inside a rule's range? PEP 440 semantics through `packaging`.

Most checks are plain ("0.11.0" in ">=0.8.5,<0.12"): those are answered by comparing integer
tuples, because importing packaging costs about 10 ms of a CLI call's 50 ms budget. Anything else
(pre-releases, local versions such as "0.10.1.dev0+g6d8d", "~=", wildcards) goes to packaging.
"""

from __future__ import annotations

import functools
import operator

from bot.base import regex_cache

_PLAIN_VERSION = regex_cache.compile(r"^\d+(?:\.\d+)*$")
# a clause of plain numbers, or a prefix match (`!=5.0.*`, `==4.5.*`: the release segment starts so)
_PLAIN_CLAUSE = regex_cache.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)(\.\*)?\s*$")
OPS = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
        ">": operator.gt, "<": operator.lt}


def _key(v: str) -> tuple[int, ...]:
    parts = [int(p) for p in v.split(".")]
    while len(parts) > 1 and parts[-1] == 0:     # 0.8 == 0.8.0, as in PEP 440
        parts.pop()
    return tuple(parts)


def _plain_clauses(spec: str) -> list | None:
    """The clauses of a range of plain numbers, as matches (a wildcard only after == or !=); None for any other range."""
    plain = [_PLAIN_CLAUSE.match(c) for c in spec.split(",") if c.strip()]
    return plain if all(m and (not m.group(3) or m.group(1) in ("==", "!=")) for m in plain) else None


def in_range(version: str | None, spec: str) -> bool:
    if not version:
        return False
    plain = _plain_clauses(spec)
    if _PLAIN_VERSION.match(version) and plain is not None:
        v = _key(version)
        return all(_prefix_holds(m.group(1), version, m.group(2)) if m.group(3) else OPS[m.group(1)](v, _key(m.group(2)))
                   for m in plain)
    from packaging.version import InvalidVersion, Version
    specifier = _specifier_set(spec)
    try:
        return specifier is not None and Version(version) in specifier
    except InvalidVersion:
        return False


def _prefix_holds(op: str, version: str, prefix: str) -> bool:
    """`==5.0.*` / `!=5.0.*` of a plain version: its release segment, padded with zeros, starts with the prefix."""
    want = [int(p) for p in prefix.split(".")]
    have = [int(p) for p in version.split(".")]
    have += [0] * (len(want) - len(have))
    return (have[:len(want)] == want) == (op == "==")


@functools.lru_cache(maxsize=256)
def _specifier_set(spec: str):
    """The parsed range, once per range: packaging builds and intersects its intervals on each new SpecifierSet,
    and one wildcard pin asked of every release of a package took 30 ms."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return SpecifierSet(spec, prereleases=True)
    except InvalidSpecifier:
        return None


def valid_specifier(spec: str) -> bool:
    if _plain_clauses(spec):
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        SpecifierSet(spec)
        return True
    except InvalidSpecifier:
        return False
