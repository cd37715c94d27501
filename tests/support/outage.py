"""A database outage on demand (a pytest plugin loaded by tests/conftest.py): the real PostgreSQL
behind a loopback TCP relay that the test can cut and restore.

- `pg_relay`: (url, relay) — `url` reaches a fresh test database through the relay;
  `relay.cut()` closes the port and every open connection, `relay.restore()` listens again on the
  same port.
"""

from __future__ import annotations

import socket
import threading

import pytest


class Relay:
    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    def restore(self) -> "Relay":
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            conns, self._conns = self._conns, []
        if listener is not None:
            listener.close()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture
def pg_relay(pg_url):
    from sqlalchemy.engine import make_url

    url = make_url(pg_url)
    relay = Relay(url.host or "127.0.0.1", url.port or 5432).restore()
    try:
        yield url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False), relay
    finally:
        relay.cut()


class SqliteOutage:
    """A SQLite file that cannot be opened while its folder is away (an unmounted volume) and a
    plain file stands where the folder should be."""

    def __init__(self, folder) -> None:
        self.folder = folder
        self.away = folder.with_name(folder.name + ".away")
        self.url = f"sqlite:///{folder / 'vllm-doctor.db'}"

    def cut(self, *stores) -> None:
        """`stores`: those with connections open, which die with the volume (an open file would
        otherwise go on working where it moved)."""
        self.folder.rename(self.away)
        self.folder.write_text("a file where the database's folder should be")
        for store in stores:
            store.dispose()

    def restore(self) -> None:
        if self.away.exists():
            self.folder.unlink()
            self.away.rename(self.folder)
        self.folder.mkdir(exist_ok=True)


class PostgresOutage:
    def __init__(self, url: str, relay: Relay) -> None:
        self.url, self.relay = url, relay

    def cut(self, *stores) -> None:
        self.relay.cut()            # closes every connection through it

    def restore(self) -> None:
        self.relay.restore()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def outage(request, tmp_path):
    """A database that goes down and comes back, SQLite or PostgreSQL: `.url`, `.cut(*stores using
    it)`, `.restore()`. It starts up and migrated."""
    from bot.store import Store

    if request.param == "sqlite":
        down = SqliteOutage(tmp_path / "db")
        down.restore()
    else:
        down = PostgresOutage(*request.getfixturevalue("pg_relay"))
    store = Store(down.url, spool_path=tmp_path / "migrate-spool.jsonl")
    store.upgrade()
    store.dispose()
    return down
