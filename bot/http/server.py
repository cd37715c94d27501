"""The server the Slack endpoint and the dashboard run on, and how to stop it from another thread.

waitress (a production WSGI server in pure Python) reads every request whole in its event loop
before a worker thread sees it, so a slow client never holds a thread; what it does not bound is
how many connections slow clients may hold and for how long: 101 connections that each send a
byte now and then reached its connection limit (100), its idle timeout never fired, and no event
was acknowledged any more. `make_server` adds what it lacks:

- a deadline to receive a request, headers and body (`READ_S`), however steadily its bytes trickle;
- a cap on the connections one client address may hold (`PER_CLIENT`; 0: none, for a reverse
  proxy whose address every request has);
- a connection limit well above what those leave to strangers (`CONNECTIONS`), and idle
  keep-alive connections closed after `IDLE_S`.

What held, measured by tests/http/test_server.py: 300 such connections from one address, and 300
more from 30 addresses at 10 each, while signed events are acknowledged as fast as without them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer

log = logging.getLogger(__name__)

READ_S = 10.0           # Slack's own requests arrive whole in milliseconds; it gives up on us after 3 s
IDLE_S = 30             # a keep-alive connection with no request in progress
PER_CLIENT = 20
CONNECTIONS = 1000
REPORT_EVERY_S = 60.0


def connection_limit(wanted: int = CONNECTIONS) -> int:
    """`wanted`, or fewer where the open-file limit is lower (1024 in many containers): past it
    accept() fails, and the database, the spool and the log need files too."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, ValueError, OSError):
        return wanted
    return wanted if soft == resource.RLIM_INFINITY else max(64, min(wanted, soft - 128))


class _TimedChannel(HTTPChannel):
    """A connection that knows since when it has been receiving the request it has not finished."""

    reading_since: float | None = None

    def received(self, data: bytes) -> bool:
        was_reading = self.request is not None
        result = super().received(data)
        if self.request is None:
            self.reading_since = None
        elif not was_reading or self.reading_since is None:
            self.reading_since = time.monotonic()
        return result


class BoundedServer(TcpWSGIServer):
    """waitress's TCP server with a deadline for a request to arrive and a cap per client address."""

    channel_class = _TimedChannel

    def __init__(self, application: Callable, *, adj: Adjustments, read_s: float, per_client: int) -> None:
        self.read_s = read_s
        self.per_client = per_client
        self.dropped: Counter[str] = Counter()       # since the last report: why connections were cut
        self._reported = time.monotonic()
        super().__init__(application, map={}, adj=adj, sockinfo=adj.listen[0])

    def handle_accept(self) -> None:
        # waitress's own accept, then the cap: a client over it is closed before a channel exists.
        try:
            accepted = self.accept()
            if accepted is None:
                return
            conn, addr = accepted
            self.set_socket_options(conn)
        except OSError:
            return
        addr = self.fix_addr(addr)
        if self.per_client and self._held_by(addr[0]) >= self.per_client:
            conn.close()
            self.dropped["over the per-client cap"] += 1
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def _held_by(self, host: str) -> int:
        return sum(1 for channel in self.active_channels.values() if channel.addr and channel.addr[0] == host)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)                  # idle connections (IDLE_S)
        late = time.monotonic() - self.read_s
        for channel in list(self.active_channels.values()):
            since = getattr(channel, "reading_since", None)
            if since is not None and since < late and not channel.requests and not channel.will_close:
                channel.will_close = True
                self.dropped[f"not a whole request within {self.read_s:g}s"] += 1
        self._report()

    def _report(self) -> None:
        # One line a minute at most while it happens: a flood must not flood the log too.
        if self.dropped and time.monotonic() - self._reported >= REPORT_EVERY_S:
            log.warning("closed connections in the last %.0fs: %s", time.monotonic() - self._reported,
                        ", ".join(f"{n} {why}" for why, n in self.dropped.items()))
            self.dropped.clear()
            self._reported = time.monotonic()


def make_server(application: Callable, *, host: str, port: int, threads: int, max_body: int,
                read_s: float = READ_S, per_client: int = PER_CLIENT, connections: int | None = None) -> BoundedServer:
    """A bounded waitress server, bound but not yet serving: call .run() (blocks) and stop it with
    stop_server. port=0 picks a free port; .effective_port says which."""
    adj = Adjustments(host=host, port=port, threads=threads, ident="vllm-doctor", max_request_body_size=max_body,
                      connection_limit=connections or connection_limit(), channel_timeout=IDLE_S,
                      # how often maintenance() runs: the deadlines are checked every second
                      cleanup_interval=1)
    return BoundedServer(application, adj=adj, read_s=read_s, per_client=per_client)


def stop_server(server: Any) -> None:
    """Stop a server whose .run() is looping in another thread.

    Closing its sockets from outside would pull them from under the select() in that loop;
    instead the loop is woken through waitress's trigger and closes everything itself, which
    ends .run(). Requests already handed to worker threads are allowed to finish.
    """
    trigger = server.trigger
    try:
        trigger.pull_trigger(lambda: wasyncore.close_all(server._map))  # noqa: SLF001
    except OSError:
        # pull_trigger queues the thunk, then writes the wake-up byte. A loop already awake (a
        # worker thread had just pulled the trigger after a response) can run the thunk in
        # between, and the thunk closes the trigger's pipe: the write then fails with EBADF
        # although the server is stopping exactly as asked.
        if not trigger._closed:  # noqa: SLF001
            raise
    server.task_dispatcher.shutdown(cancel_pending=False, timeout=10)
