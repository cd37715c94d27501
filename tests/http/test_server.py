"""Stopping the waitress server that serves the bot and the dashboard, while requests finish."""

from __future__ import annotations

import http.client
import threading

import pytest
from waitress.server import create_server

from bot.http.server import stop_server

pytestmark = pytest.mark.timeout(120)


def hello(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


def test_a_server_stops_cleanly_right_after_answering_requests():
    # A worker thread wakes the server's loop after each response; a stop issued in that moment
    # once raced the loop and failed with EBADF. Many rounds make the race likely to show.
    for _ in range(200):
        server = create_server(hello, host="127.0.0.1", port=0, threads=2)
        loop = threading.Thread(target=server.run, daemon=True)
        loop.start()
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
        for _ in range(3):
            conn.request("GET", "/")
            assert conn.getresponse().read() == b"ok"
        stop_server(server)
        loop.join(10)
        conn.close()
        assert not loop.is_alive()
        assert not server._map  # noqa: SLF001 - every socket of the server is closed
