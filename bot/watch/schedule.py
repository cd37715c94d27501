"""The bot's watch: `vllm-doctor index update` from PyPI once a period, so the bot knows each vLLM
release within a day of its upload, without a new vllm-doctor.

    INDEX_WATCH_HOURS   hours between rounds (default 24; 0 turns the watch off)

A round runs the update in a child process (the scan of a new release is a minute of CPU that
would otherwise hold the bot's GIL) and the bot's readers switch to the new copy by themselves
(installed.py). Replicas sharing a database take turns through a PostgreSQL advisory lock; those
sharing the data folder as well skip a round when another asked PyPI less than a period ago
(checked.json), so one replica does the work. A round that fails raises, and the bot's Periodic
logs that once, and once when it works again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

from bot.base.errors import SetupError
from bot.diagnose.knowledge.vllm import installed

log = logging.getLogger(__name__)
PERIOD_ENV = "INDEX_WATCH_HOURS"
DEFAULT_HOURS = 24.0
LOCK_KEY = 0x766C6C6D               # "vllm": the advisory lock every replica of one database takes
UPDATE_TIMEOUT_S = 3600.0
COMMAND = [sys.executable, "-m", "bot.cli", "index", "update"]


def period_s(env=None) -> float | None:
    """Seconds between rounds, or None when the watch is off."""
    env = os.environ if env is None else env
    value = env.get(PERIOD_ENV, "").strip()
    if not value:
        return DEFAULT_HOURS * 3600
    try:
        hours = float(value)
    except ValueError:
        raise SetupError(f"{PERIOD_ENV} must be a number of hours (0 turns the watch off), got {value!r}") from None
    if hours < 0:
        raise SetupError(f"{PERIOD_ENV} must be 0 (off) or more, got {value!r}")
    return hours * 3600 if hours else None


class Watch:
    """`round` runs every `interval_s` (an hour, or the period when shorter) and updates when PyPI
    was last asked a period ago: a restart does not ask again, a failing PyPI is tried hourly."""

    def __init__(self, store, period: float, command: list[str] | None = None):
        self.store, self.period_s = store, period
        self.interval_s = min(period, 3600.0)
        self.command = command or COMMAND

    def round(self) -> str:
        """One round; returns what it did (for the log and the tests). Raises when the update failed."""
        if self._asked_lately():
            return "asked lately"
        with self._replica_lock() as ours:
            if not ours:
                return "another replica"
            if self._asked_lately():           # it finished while we waited for the lock
                return "asked lately"
            return self._update()

    def _asked_lately(self) -> bool:
        checked = installed.last_checked()
        try:
            at = datetime.fromisoformat(checked["at"])
        except (TypeError, KeyError, ValueError):
            return False
        return (datetime.now(timezone.utc) - at).total_seconds() < self.period_s - self.interval_s / 2

    @contextlib.contextmanager
    def _replica_lock(self):
        """PostgreSQL: an advisory lock, held while the round runs. SQLite (one host): the data
        folder's own lock keeps two updates apart. A database that is down does not stop the
        watch: the data folder's lock still does."""
        engine = getattr(self.store, "engine", None)
        if engine is None or engine.dialect.name != "postgresql":
            yield True
            return
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError
        with contextlib.ExitStack() as stack:
            try:
                conn = stack.enter_context(engine.connect())
                ours = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY}).scalar())
            except SQLAlchemyError:
                ours = None
            if ours is None:
                yield True
                return
            try:
                yield ours
            finally:
                if ours:    # the lock is the session's: let go of it before the connection goes back to the pool
                    with contextlib.suppress(SQLAlchemyError):
                        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})

    def _update(self) -> str:
        start = time.monotonic()
        try:
            done = subprocess.run(self.command, capture_output=True, text=True, timeout=UPDATE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"index update ran over {UPDATE_TIMEOUT_S / 60:.0f} minutes and was stopped") from None
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            raise RuntimeError(why.removeprefix("vllm-doctor index update: "))
        said = (done.stdout.strip().splitlines() or [""])[-1]
        if "unchanged" not in said:
            log.info("index of vLLM's releases updated in %.0f s: %s", time.monotonic() - start, said)
            return "updated"
        return "unchanged"


def watch_for(store, env=None) -> Watch | None:
    """The bot's watch, or None when INDEX_WATCH_HOURS=0; a malformed setting is a SetupError."""
    period = period_s(env)
    return Watch(store, period) if period else None
