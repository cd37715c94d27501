"""Which copy of the index of vLLM's releases is in use: the one shipped in the package, or the newer
one `vllm-doctor index update` wrote to the data folder.

    <data folder>/vllm-index/        (bot/base/dirs.py: $VLLM_DOCTOR_DATA_DIR, else the user data folder)
        current.json                 {"dir", "newest", "base", "updated", "added"}: the copy in use
        20261202T150102Z-4711/       a copy: index.json.gz, index.where.pack, index.facts.pack
        lock                         held (flock) by the update that is writing a copy
        checked.json                 when PyPI was last asked, and what it served

A copy is written whole in a folder of its own, each file fsync'd, and becomes the one in use when
current.json is replaced (os.replace is atomic): an update killed at any point leaves the old copy
in use, and a reader never sees half of one. The copy in use before it is kept, for a reader that
loaded it a moment ago; older ones are deleted.

The data folder's copy is used while it is at least as new as the package's: it was made from the
package's own index (`base` is that index's digest), or its newest release is newer than the
package's (vllm-doctor was upgraded since; the next update starts again from the new package).
Readers (index.load()) look at current.json at most once every RECHECK_S seconds, by its mtime,
and switch to a new copy without a restart. The copies are written by bot/watch/publish.py.
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache
from pathlib import Path

from bot.base import dirs

from .releases import version_key

PACKAGED = Path(__file__).parent / "data" / "index.json.gz"
CORE = "index.json.gz"
RECHECK_S = 60.0


def root() -> Path:
    return dirs.data_dir() / "vllm-index"


# --- reading ---------------------------------------------------------------------------------------

def current(folder: Path | None = None) -> dict | None:
    """current.json of the data folder, with `path` (its copy's core), or None when there is none."""
    folder = folder or root()
    try:
        info = json.loads((folder / "current.json").read_text(encoding="utf-8"))
        info["path"] = folder / info["dir"] / CORE
        return info if info["path"].is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


@lru_cache(maxsize=4)
def _packaged(path: Path) -> tuple[str, str | None]:
    """(digest, newest version) of the packaged index, read once per process."""
    import gzip
    import hashlib
    try:
        raw = path.read_bytes()
        newest = json.loads(gzip.decompress(raw))["versions"][-1]
    except (OSError, ValueError, KeyError, IndexError, EOFError):
        return "", None
    return hashlib.sha256(raw).hexdigest()[:16], newest


def packaged_digest() -> str:
    return _packaged(PACKAGED)[0]


def choose(folder: Path | None = None) -> tuple[Path, str, dict | None]:
    """(the core of the index in use, "data" | "packaged", current.json or None)."""
    info = current(folder)
    if info is None:
        return PACKAGED, "packaged", None
    digest, newest = _packaged(PACKAGED)
    if info.get("base") == digest or newest is None:
        return info["path"], "data", info
    mine, theirs = version_key(info.get("newest", "")), version_key(newest)
    if mine and theirs and mine > theirs:
        return info["path"], "data", info
    return PACKAGED, "packaged", info


class _InUse:
    """index.load()'s answer to "which file", looked at again at most every RECHECK_S seconds and
    only read again when current.json changed."""

    def __init__(self):
        self.path: Path | None = None
        self.checked = 0.0
        self.stamp: tuple | None = None

    def path_now(self) -> Path:
        now = time.monotonic()
        if self.path is not None and now - self.checked < RECHECK_S:
            return self.path
        self.checked = now
        try:
            st = os.stat(root() / "current.json")
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if self.path is None or stamp != self.stamp:
            self.stamp = stamp
            self.path = choose()[0] if stamp else PACKAGED
        return self.path


IN_USE = _InUse()


def in_use() -> Path:
    """The core of the index to read now (checked at most every RECHECK_S seconds)."""
    return IN_USE.path_now()


def last_checked() -> dict | None:
    try:
        return json.loads((root() / "checked.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
