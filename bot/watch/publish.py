"""Writing a copy of an index into the data folder, the update's side of knowledge/data_copies.py:
under a lock, whole, each file fsync'd, made the copy in use by one atomic rename. The index of
vLLM's releases (publish()) and the stack index (publish_copy() with the stack's DataCopies) are
written the same way; readers and the folder's layout are in data_copies.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from bot.diagnose.knowledge.data_copies import DataCopies
from bot.diagnose.knowledge.vllm import installed
from bot.diagnose.knowledge.vllm.build.wheels import write


@contextlib.contextmanager
def lock(blocking: bool = True, copies: DataCopies = installed.COPIES):
    """A data folder's update lock (flock: the kernel lets go of it when its holder dies, so an
    update killed midway does not keep the next one out). Yields whether it was had; without
    `blocking`, False at once when another update holds it."""
    folder = copies.root()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish_copy(copies: DataCopies, write_into: Callable[[Path], None], newest: str, base: str,
                 added: list[str]) -> Path:
    """A new copy, written by write_into(folder), made the one in use; call it under lock(copies=...).
    `base`: the digest of the packaged data it was made from; `newest`: the newest vLLM release it
    knows. Returns the new copy as readers are handed it."""
    folder = copies.root()
    for stale in folder.glob(".tmp-*"):        # what an update killed midway left
        shutil.rmtree(stale, ignore_errors=True)
    stamp = datetime.now(timezone.utc)
    name = f"{stamp:%Y%m%dT%H%M%S%f}Z-{os.getpid()}"
    tmp = folder / f".tmp-{name}"
    tmp.mkdir(parents=True)
    write_into(tmp)
    for f in tmp.iterdir():
        _fsync(f)
    _fsync(tmp)
    os.rename(tmp, folder / name)
    _fsync(folder)
    previous = copies.current(folder)
    info = {"dir": name, "newest": newest, "base": base, "updated": stamp.isoformat(timespec="seconds"),
            "added": added}
    pointer = folder / "current.json.tmp"
    pointer.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    _fsync(pointer)
    os.replace(pointer, folder / "current.json")     # the switch: atomic
    _fsync(folder)
    # the copy before stays for a reader that loaded it a moment ago; older ones go
    keep = {name, previous["dir"] if previous else None}
    for old in folder.iterdir():
        if old.is_dir() and not old.name.startswith(".") and old.name not in keep:
            shutil.rmtree(old, ignore_errors=True)
    return copies.handed(folder / name)


def publish(data: dict, base: str, added: list[str]) -> Path:
    """Write `data` (an index of vLLM's releases as merge returns it) as a new copy and make it the
    one in use; call it under lock(). Returns the new copy's core."""
    return publish_copy(installed.COPIES, lambda tmp: write(data, tmp / installed.CORE), data["versions"][-1],
                        base, added)


def note_checked(served: list[str]) -> None:
    """Remember when PyPI was asked and the newest it served (index status; the bot's watch, so
    replicas sharing the data folder ask once per period)."""
    folder = installed.root()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / "checked.json.tmp"
    tmp.write_text(json.dumps({"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                               "newest": served[-1] if served else None}) + "\n", encoding="utf-8")
    os.replace(tmp, folder / "checked.json")
