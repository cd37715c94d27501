"""Which copy of a knowledge source's data is in use: the one shipped in the package, or a newer one
`vllm-doctor index update` wrote to the data folder. The index of vLLM's releases
(vllm/installed.py) and the stack index (stack/stack_index.py) are each a DataCopies; the copies
are written by bot/watch/publish.py.

    <data folder>/<name>/            (bot/base/dirs.py: $VLLM_DOCTOR_DATA_DIR, else the user data folder)
        current.json                 {"dir", "newest", "base", "updated", "added"}: the copy in use
        20261202T150102Z-4711/       a copy, laid out as the package ships it
        lock                         held (flock) by the update that is writing a copy

A copy is written whole in a folder of its own, each file fsync'd, and becomes the one in use when
current.json is replaced (os.replace is atomic): an update killed at any point leaves the old copy
in use, and a reader never sees half of one. The copy in use before it is kept, for a reader that
loaded it a moment ago; older ones are deleted.

The data folder's copy is used while it is at least as new as the package's: it was made from the
package's own data (`base` is that data's digest), or its newest vLLM release is newer than the
package's (vllm-doctor was upgraded since; the next update starts again from the new package).
Readers (load()) look at current.json at most once every `recheck_s` seconds, by its mtime, and
switch to a new copy without a restart. Standard library only.
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache
from pathlib import Path
from collections.abc import Callable

from bot.base import dirs

RECHECK_S = 60.0


@lru_cache(maxsize=8)
def _digest(path: Path) -> str:
    """The digest of a file's bytes, or of a folder's files (names and bytes); "" when unreadable."""
    import hashlib          # here: asked only where a newer copy was written; at import it cost every cold start 3 ms
    try:
        if path.is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        h = hashlib.sha256()
        for p in sorted(path.iterdir()):
            if p.is_file():
                h.update(p.name.encode() + b"\0" + p.read_bytes())
        return h.hexdigest()[:16]
    except OSError:
        return ""


@lru_cache(maxsize=8)
def _newest(newest: Callable[[Path], str | None], path: Path) -> str | None:
    try:
        return newest(path)
    except (OSError, ValueError, KeyError, IndexError, EOFError, TypeError):
        return None


class State:
    """What a process has read: the copy chosen (looked at again at most every recheck_s seconds,
    read again only when current.json changed) and the copies loaded."""

    def __init__(self):
        self.path: Path | None = None
        self.checked = 0.0
        self.stamp: tuple | None = None
        self.loaded: dict[str, object] = {}
        self.last: str | None = None            # the key load() gave last for the copy in use


class DataCopies:
    def __init__(self, name: str, packaged: Path, core: str, newest: Callable[[Path], str | None],
                 version_key: Callable[[str], tuple | None], folder: bool = False):
        """name: the data folder's subfolder; packaged: the package's copy; core: the file a copy is
        read from (a copy is whole once it is there); newest(path): the newest vLLM release a copy
        knows; folder: readers are handed a copy's folder (else its core file)."""
        self.name, self.packaged, self.core, self.newest, self.version_key = name, packaged, core, newest, version_key
        self.folder = folder
        self.recheck_s = RECHECK_S
        self.state = State()

    def root(self) -> Path:
        return dirs.data_dir() / self.name

    def handed(self, copy: Path) -> Path:
        """What readers are handed of a copy's folder."""
        return copy if self.folder else copy / self.core

    # --- choosing --------------------------------------------------------------------------------

    def current(self, folder: Path | None = None) -> dict | None:
        """current.json of the data folder, with `path` (its copy, as readers are handed it), or None."""
        folder = folder or self.root()
        try:
            info = json.loads((folder / "current.json").read_text(encoding="utf-8"))
            if not (folder / info["dir"] / self.core).is_file():
                return None
            info["path"] = self.handed(folder / info["dir"])
            return info
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def packaged_digest(self) -> str:
        return _digest(self.packaged)

    def choose(self, folder: Path | None = None) -> tuple[Path, str, dict | None]:
        """(the copy in use, "data" | "packaged", current.json or None)."""
        info = self.current(folder)
        if info is None:
            return self.packaged, "packaged", None
        if info.get("base") == self.packaged_digest():
            return info["path"], "data", info
        newest = _newest(self.newest, self.packaged)
        if newest is None:
            return info["path"], "data", info
        mine, theirs = self.version_key(info.get("newest") or ""), self.version_key(newest)
        if mine and theirs and mine > theirs:
            return info["path"], "data", info
        return self.packaged, "packaged", info

    def in_use(self) -> Path:
        """The copy to read now (current.json looked at at most every recheck_s seconds, and at once
        when the copy chosen is gone: two updates since, the second deleting it)."""
        s = self.state
        now = time.monotonic()
        if s.path is not None and now - s.checked < self.recheck_s and (s.path == self.packaged or s.path.exists()):
            return s.path
        s.checked = now
        try:
            st = os.stat(self.root() / "current.json")
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if s.path is None or stamp != s.stamp:
            s.stamp = stamp
            s.path = self.choose()[0] if stamp else self.packaged
        return s.path

    # --- reading ---------------------------------------------------------------------------------

    def load(self, read: Callable[[Path], object], path: str | Path | None = None):
        """read(path) of the copy in use, once per process (read gives None for data it cannot read).
        A running process switches to a newer copy within recheck_s seconds of the update, and
        forgets the one before; a data folder's copy that cannot be read: the packaged one answers."""
        if path is not None:
            return self._load(read, str(path))
        s = self.state
        key, packaged = str(self.in_use()), str(self.packaged)
        if s.last is not None and s.last != key and s.last != packaged:
            s.loaded.pop(s.last, None)          # the copy before it: nobody asks for it any more
        s.last = key
        return self._load(read, key) or (self._load(read, packaged) if key != packaged else None)

    def _load(self, read: Callable[[Path], object], key: str):
        if key not in self.state.loaded:
            self.state.loaded[key] = read(Path(key))
        return self.state.loaded[key]

    def last_checked(self) -> dict | None:
        """When PyPI was last asked, and the newest release it served (checked.json)."""
        try:
            return json.loads((self.root() / "checked.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
