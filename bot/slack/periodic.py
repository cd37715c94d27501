"""Background rounds for the bot: post finished repro jobs, write spooled records.

A round that fails is logged once, as one line, when the failures start, and once when they end:
a database that is down for an hour must not fill the log with a traceback every few seconds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from bot.store.redact import redact

log = logging.getLogger(__name__)


class Periodic:
    """Runs `task()` at start and then every `interval_s` seconds, in a daemon thread, until stopped."""

    def __init__(self, name: str, task: Callable[[], object], interval_s: float) -> None:
        self.name = name
        self.task = task
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing: str | None = None

    def start(self) -> "Periodic":
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run_once(self) -> None:
        try:
            self.task()
        except Exception as e:  # noqa: BLE001 - keep going; the next round may work
            first_line = (str(e).strip().splitlines() or [""])[0]
            why = redact(f"{type(e).__name__}: {first_line}")[:300]
            if self._failing is None:
                log.warning("%s failed (%s); retrying every %gs", self.name, why, self.interval_s)
            self._failing = why
            return
        if self._failing is not None:
            log.info("%s works again", self.name)
            self._failing = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval_s)
