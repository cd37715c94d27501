"""Records that could not be written while the database was down, kept in a JSONL file.

One line per record: {"kind": ..., "record": {...}, "database": ..., "spooled_at": ..., "error": ...}.
Draining writes them in order and keeps the rest when the database fails again. A record the
database refuses for good (say, feedback on a diagnosis that no longer exists) moves to a
`.rejected.jsonl` file beside the spool and is logged, so nothing disappears without a trace.

Each record names the database it was meant for (its URL without the password), and is only ever
written there: one data directory may serve a bot, a CLI and a test against different databases,
and a paste spooled for production must not land in a scratch database that happens to be up on
the next start. Records for another database stay in the spool for a store of theirs; records from
before this key existed are set aside in the rejected file, since where they belong is unknown.

A thread lock and, where the OS has it, an flock on a side file keep two writers (threads, or
two processes sharing the data directory) from draining the same lines twice.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable

from .models import utcnow
from .redact import redact

try:
    import fcntl
except ImportError:  # Windows: the thread lock alone
    fcntl = None

log = logging.getLogger(__name__)


class Spool:
    def __init__(self, path: str | os.PathLike, database: str):
        self.path = Path(path)
        self.database = database          # which database this store's records are for (store.spool_key)
        self.rejected_path = self.path.with_name(self.path.stem + ".rejected.jsonl")
        self._lock = threading.RLock()

    def append(self, kind: str, record: dict[str, Any], error: BaseException | None = None) -> bool:
        entry = {"kind": kind, "record": record, "database": self.database, "spooled_at": utcnow().isoformat(),
                 "error": _describe(error)}
        try:
            with self._locked():
                _append_lines(self.path, [entry])
        except OSError:
            log.exception("could not spool a %s record (uid %s) to %s; it is lost",
                          kind, record.get("uid"), self.path)
            return False
        log.warning("database unavailable (%s); %s record spooled to %s", _describe(error), kind, self.path)
        return True

    def pending(self) -> bool:
        """Whether the file holds anything (for any database: the cheap test before a drain)."""
        try:
            return self.path.stat().st_size > 0
        except OSError:
            return False

    def mine(self) -> int:
        """How many spooled records are this database's."""
        return sum(1 for entry in self.entries() if entry.get("database") == self.database)

    def entries(self) -> list[dict[str, Any]]:
        with self._locked():
            return self._read()

    def drain(self, write: Callable[[str, dict[str, Any]], Any],
              is_outage: Callable[[BaseException], bool]) -> int:
        """Write spooled records in order with `write(kind, record)`; return how many were written.

        Only this database's records are written; another database's stay as they are. Stops at
        the first outage and keeps what is left; a record refused for another reason moves to the
        rejected file.
        """
        with self._locked():
            entries = self._read()
            if not any(entry.get("database") in (self.database, None) for entry in entries):
                return 0
            written = 0
            left: list[dict[str, Any]] = []
            for i, entry in enumerate(entries):
                if "database" not in entry:
                    self._reject(entry, LookupError("spooled without naming its database; write it by hand"))
                    continue
                if entry["database"] != self.database:
                    left.append(entry)
                    continue
                try:
                    write(entry["kind"], entry["record"])
                    written += 1
                except Exception as e:
                    if is_outage(e):
                        left += entries[i:]
                        break
                    self._reject(entry, e)
            _rewrite(self.path, left)
            if written:
                log.info("wrote %d spooled record(s) from %s; %d left", written, self.path, len(left))
            return written

    def _read(self) -> list[dict[str, Any]]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        entries = []
        for n, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if not isinstance(entry, dict) or "kind" not in entry or "record" not in entry:
                    raise ValueError("not a spool entry")
            except ValueError as e:
                # A line cut short by a crash mid-write: keep it for a person, never retry it.
                self._reject({"line": n, "text": line}, e)
                continue
            entries.append(entry)
        return entries

    def _reject(self, entry: dict[str, Any], error: BaseException) -> None:
        log.error("spooled record refused by the database (%s); kept in %s", _describe(error), self.rejected_path)
        _append_lines(self.rejected_path, [{**entry, "rejected": _describe(error)}])

    @contextlib.contextmanager
    def _locked(self):
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if fcntl is None:
                yield
                return
            with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)


def _append_lines(path: Path, entries: list[dict[str, Any]], mode: str = "a") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode, encoding="utf-8") as f:
        for entry in entries:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _rewrite(path: Path, entries: list[dict[str, Any]]) -> None:
    if not entries:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    _append_lines(tmp, entries, mode="w")
    os.replace(tmp, path)


def _describe(error: BaseException | None) -> str | None:
    if error is None:
        return None
    text = str(error).strip().split("\n")[0]
    return redact(f"{type(error).__name__}: {text}")[:500]
