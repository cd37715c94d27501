"""A file of separately compressed JSON blocks, each read on its first use.

The parts of the index that matching does not need (where each message is raised; arguments, env
vars, config classes, imports) are large, and a lookup needs a small piece of them: the places of
one site, the arguments without the config classes. Each piece is its own zlib stream, so the
first lookup decompresses and parses only its block instead of the whole part.

Layout: one line of JSON, {"blocks": {name: [offset, length]}}, then the compressed blocks;
offsets count from the end of that line.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import zlib
from pathlib import Path

from bot.base import marshal_cache


def write(path: Path, blocks: dict[str, object]) -> int:
    """Write the blocks (JSON values); returns the bytes on disk."""
    body, table = [], {}
    offset = 0
    for name, value in blocks.items():
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode()
        data = zlib.compress(raw, 9)
        table[name] = [offset, len(data)]
        body.append(data)
        offset += len(data)
    head = json.dumps({"blocks": table}, separators=(",", ":")).encode() + b"\n"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(head)
        for data in body:
            f.write(data)
    os.replace(tmp, path)
    return path.stat().st_size


_READING = threading.Lock()


class Pack:
    """The blocks of a pack file; the file is read on the first `get`. It is opened at once: an
    update that deletes an old copy of the index (installed.py) leaves a reader that loaded it
    able to read it still."""

    def __init__(self, path: Path):
        self.path = path
        self._data: bytes | None = None
        self._table: dict[str, list[int]] = {}
        self._start = 0
        self._cache: dict[str, object] = {}
        self._stamp = None                       # the file's size and time, for the blocks' marshal copies
        try:
            self._file = open(path, "rb")        # noqa: SIM115 - read (and closed) on first use
            st = os.fstat(self._file.fileno())
            self._stamp = (st.st_size, st.st_mtime_ns)
        except OSError:
            self._file = None                    # said on first use, as before

    def __del__(self):
        if getattr(self, "_file", None) is not None:
            self._file.close()

    def _open(self) -> None:
        with _READING:              # threads of one bot share an index: the file is read once
            if self._data is not None:
                return
            if self._file is None:
                data = self.path.read_bytes()
            else:
                with self._file:
                    data = self._file.read()
                self._file = None
            end = data.index(b"\n")
            self._table = json.loads(data[:end])["blocks"]
            self._start, self._data = end + 1, data

    def names(self) -> list[str]:
        if self._data is None:
            self._open()
        return list(self._table)

    def get(self, name: str, default=None):
        if name in self._cache:
            return self._cache[name]
        # A block as the last process parsed it, from its marshal copy in the user's cache (marshal_cache): parsing
        # the largest (the arguments, 0.7 MB of JSON) was 5 to 10 ms of a cold start's answer, and the file unread.
        cache = marshal_cache.path("vllm-pack", f"{self.path}#{name}") if self._stamp else None
        collecting = gc.isenabled()
        gc.disable()        # parsing makes many objects and no cycles: the collector only slows it
        try:
            value = marshal_cache.load(cache, (*self._stamp, name)) if cache else None
            if value is None:
                if self._data is None:
                    self._open()
                where = self._table.get(name)
                if where is None:
                    return default
                offset, length = where
                value = json.loads(zlib.decompress(self._data[self._start + offset: self._start + offset + length]))
                if cache:
                    marshal_cache.store(cache, (*self._stamp, name), value)
            self._cache[name] = value
        finally:
            if collecting:
                gc.enable()
        return value
