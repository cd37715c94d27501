"""The name a user meant: the one way every room finds the closest known name to a misspelt one."""

from __future__ import annotations

from collections.abc import Iterable

# rapidfuzz's ratio (difflib's 2·matches/length, in percent): at 85 a typo of one name
# (safetensor → safetensors, flaot32 → float32), not a kin of several
TYPO_CUTOFF = 85


def nearest(given: str, names: Iterable[str], cutoff: float = TYPO_CUTOFF) -> str | None:
    """The name of `names` closest to `given`, or None when none scores `cutoff` or more."""
    from rapidfuzz import fuzz, process  # only when a name is missed: most pastes never load it
    found = process.extractOne(given, list(names), scorer=fuzz.ratio, score_cutoff=cutoff)
    return found[0] if found else None


KIN_CUTOFF = 75     # the names close enough to offer beside a misspelt one (a few, best first)


def nearest_few(given: str, names: Iterable[str], limit: int = 3, cutoff: float = KIN_CUTOFF) -> list[str]:
    """Up to `limit` names of `names` closest to `given`, best first, each scoring `cutoff` or more."""
    from rapidfuzz import fuzz, process
    return [n for n, _, _ in process.extract(given, list(names), scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)]
