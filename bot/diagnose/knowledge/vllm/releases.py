"""Which indexed release describes a vLLM version: shared by the index and the rule book's map of
vLLM's source (rulebook_map.py), which must not load the index. Standard library only.

The index holds two lists. Its `releases` are the last patch of every minor (0.5.5, 0.6.6.post1,
..., 0.20.2, ...): their raise sites and imports. Its `versions` are every release PyPI serves from
0.5.0 on: their arguments, config fields and env vars, so whether a release has a name is exact.

A version is looked up in a list (locate):
- itself when the list holds it ("0.20.1" in versions; "v0.8.5+cu121" reads as 0.8.5), or the entry
  with the same numbers ("0.10.1.dev3+gabc" is 0.10.1, "0.6.3.post1" is 0.6.3 when the list lacks it);
- else the newest entry of its minor at or before it (0.20.3, unreleased, is 0.20.2), or its minor's
  first entry: in `releases` every version of a minor reads as that minor's last patch (0.20.1 and
  0.20.0 as 0.20.2, 0.8.5 as 0.8.5.post1);
- else, for a minor the list lacks, the two entries it lies between (a fact they disagree on is
  unknown); outside the list's span, nothing.
"""

from __future__ import annotations

from functools import lru_cache

from bot.base import regex_cache

_VERSION = regex_cache.compile(r"v?(\d+(?:\.\d+)*)")


def version_key(version: str) -> tuple[int, ...] | None:
    """(0, 10, 1) for "0.10.1.dev0+g6d8d", "v0.10.1", "0.10.1.post1"; None when it has no number."""
    m = _VERSION.match(str(version).strip())
    if not m:
        return None
    nums = [int(x) for x in m.group(1).split(".")]
    while len(nums) < 3:
        nums.append(0)
    return tuple(nums[:3])


def plain(version) -> str:
    """"0.8.5" for "v0.8.5+cu121" and " 0.8.5 ": the version without a local build tag."""
    return str(version).strip().lstrip("vV").split("+")[0]


@lru_cache(maxsize=16)
def _keys(names: tuple[str, ...]) -> list[tuple[int, ...] | None]:
    return [version_key(n) for n in names]


def locate(names: list[str] | tuple[str, ...], version) -> tuple[int, int] | None:
    """(i, j): the positions in `names` (versions, ascending) that describe `version`: i == j when
    one does; i + 1 == j for a version of a minor the list lacks, which lies between them; None
    outside the list's minors or for a version without a number."""
    if not version or not names:
        return None
    names = tuple(names)
    v = plain(version)
    if v in names:
        i = names.index(v)
        return i, i
    key = version_key(v)
    if key is None:
        return None
    keys = _keys(names)
    same = [i for i, k in enumerate(keys) if k == key]
    if same:
        return same[0], same[0]
    minor = [i for i, k in enumerate(keys) if k[:2] == key[:2]]
    if minor:
        older = [i for i in minor if keys[i] <= key]
        j = older[-1] if older else minor[0]
        return j, j
    if key < keys[0] or key > keys[-1]:
        return None
    for i, k in enumerate(keys):
        if k > key:
            return i - 1, i
    return None


def release_for(names: list[str], version) -> str | None:
    """The entry of `names` that describes `version` (see locate): for a minor the list lacks, the
    older of the two around it; None outside the list's minors."""
    found = locate(names, version)
    return names[found[0]] if found else None


def runs(releases: list[str], all_releases: list[str]) -> str:
    """"0.8.5 – 0.33.0" for consecutive indexed releases; runs joined by commas."""
    pos = [all_releases.index(r) for r in releases if r in all_releases]
    out, start = [], None
    for i, p in enumerate(pos):
        if start is None:
            start = p
        if i + 1 == len(pos) or pos[i + 1] != p + 1:
            out.append(all_releases[start] if start == p else f"{all_releases[start]} – {all_releases[p]}")
            start = None
    return ", ".join(out)


def raised_at(file: str, line: int, frames) -> bool:
    """Whether a raise site (its file from `vllm/`, its line) is one of the log's vLLM frames
    (facts' `vllm_frames`: [path, line, function]); line numbers move with nearly every release, so
    without a version line they tell which release's code raised."""
    return any(at == line and path.endswith(file) for path, at, _ in frames or ())
