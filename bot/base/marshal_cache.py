"""A cache of data read at every cold start, in `marshal` form under the user's cache folder
($XDG_CACHE_HOME, else ~/.cache, in `vllm-doctor/`): the validated rule book, the rule book's map of vLLM's
source. marshal reads plain data (dicts, lists, strings, numbers) three to four times faster than JSON; its
format belongs to one Python release, hence the release in the file's name. A cache that is missing, cut short,
written by another Python or stamped for other inputs reads as None, and the caller rebuilds it.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib


def path(kind: str, source: str) -> str:
    """The cache file for `kind` of data read from `source` (a file or folder)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = f"{zlib.crc32(os.path.realpath(source).encode()):08x}"
    return os.path.join(base, "vllm-doctor", f"{kind}-{key}-py{sys.version_info[0]}{sys.version_info[1]}.marshal")


def load(cache: str, stamp) -> object | None:
    """What `store` kept in `cache` under the same `stamp` (what the inputs were: names, sizes, times), else None."""
    try:
        with open(cache, "rb") as f:
            kept = marshal.loads(f.read())      # (marshal.load on the file reads it an item at a time: 20x slower)
        return kept["value"] if kept.get("stamp") == stamp else None
    except (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError):
        return None


def store(cache: str, stamp, value) -> None:
    """Keep `value` (plain data) for `stamp`; written whole or not at all (a rename), silently skipped where the
    cache folder cannot be written."""
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(marshal.dumps({"stamp": stamp, "value": value}))
        os.replace(tmp, cache)
    except (OSError, ValueError):
        pass
