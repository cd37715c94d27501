"""Slow clients on loopback, for the HTTP edge's tests: connections that start a request and send
one byte of it now and then, the way a slowloris attack (or a very bad network) holds a server's
connections. Bounded: a fixed number of sockets, a fixed duration, loopback addresses only."""

from __future__ import annotations

import socket
import threading
import time


class SlowClients:
    """`count` connections from `source` (an address in 127.0.0.0/8, so the server sees another
    client than the test's own requests) to `port`, each sending the start of a POST and then one
    more header byte every `interval` seconds, until `stop()` or `duration` seconds."""

    def __init__(self, port: int, count: int, *, source: str = "127.0.0.2", interval: float = 1.0,
                 duration: float = 60.0) -> None:
        self.port, self.count, self.source = int(port), count, source
        self.interval, self.duration = interval, duration
        self.opened = 0                 # connections the server accepted (or at least let us make)
        self.refused = 0                # connect() failed outright
        self.closed_by_server = 0       # the server hung up on us
        self._socks: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "SlowClients":
        for _ in range(self.count):
            s = socket.socket()
            s.settimeout(2)
            try:
                s.bind((self.source, 0))
                s.connect(("127.0.0.1", self.port))
                s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nX-Slow: ")
            except OSError:
                self.refused += 1
                s.close()
                continue
            s.setblocking(False)
            self._socks.append(s)
            self.opened += 1
        self._thread.start()
        return self

    def alive(self) -> int:
        return len(self._socks)

    def _run(self) -> None:
        deadline = time.monotonic() + self.duration
        while not self._stop.is_set() and time.monotonic() < deadline and self._socks:
            for s in list(self._socks):
                try:
                    # A server that closed on us shows as EOF (b"") or a reset on recv.
                    try:
                        if s.recv(4096) == b"":
                            raise ConnectionResetError
                    except BlockingIOError:
                        pass
                    s.send(b"x")
                except OSError:
                    self.closed_by_server += 1
                    self._socks.remove(s)
                    s.close()
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for s in self._socks:
            s.close()
        self._socks.clear()
