"""A local Socket Mode server: the WebSocket end that apps.connections.open points the bot at.

Built on the `websockets` package's threaded server, on 127.0.0.1 port 0. On each connection it
sends `hello`, then whatever envelopes a test pushes with send_envelope(); every message the bot
sends back (acks carrying the envelope_id) is kept and can be waited on.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve


class FakeSocketMode:
    def __init__(self) -> None:
        self.received: list[dict] = []
        self.connections: list[ServerConnection] = []
        self._cond = threading.Condition()
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self) -> "FakeSocketMode":
        self._server = serve(self._handle, "127.0.0.1", 0)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None

    def __enter__(self) -> "FakeSocketMode":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"ws://{host}:{port}/link/?ticket=fake-ticket"

    def _handle(self, conn: ServerConnection) -> None:
        with self._cond:
            self.connections.append(conn)
            self._cond.notify_all()
        conn.send(json.dumps({"type": "hello", "num_connections": 1,
                              "debug_info": {"host": "fake", "approximate_connection_time": 3600},
                              "connection_info": {"app_id": "AFAKE"}}))
        try:
            for raw in conn:
                message = json.loads(raw)
                with self._cond:
                    self.received.append(message)
                    self._cond.notify_all()
        except ConnectionClosed:
            pass

    def wait_connected(self, timeout: float = 10.0) -> ServerConnection:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.connections:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the bot never opened a Socket Mode connection")
                self._cond.wait(left)
            return self.connections[-1]

    def send_envelope(self, type_: str, payload: dict, *, retry_attempt: int = 0, retry_reason: str = "",
                      accepts_response_payload: bool = False) -> str:
        envelope_id = str(uuid.uuid4())
        envelope: dict[str, Any] = {"envelope_id": envelope_id, "type": type_, "payload": payload,
                                    "accepts_response_payload": accepts_response_payload}
        if type_ == "events_api":
            envelope.update(retry_attempt=retry_attempt, retry_reason=retry_reason)
        self.wait_connected().send(json.dumps(envelope))
        return envelope_id

    def wait_ack(self, envelope_id: str, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.received:
                    if message.get("envelope_id") == envelope_id:
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no ack for envelope {envelope_id}; got {self.received}")
                self._cond.wait(left)
