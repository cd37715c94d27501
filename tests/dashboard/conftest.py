"""A dashboard served by waitress on loopback port 0, over a store the test filled."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest


@dataclass
class RunningDashboard:
    app: object
    server: object
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.effective_port}/dashboard"

    def close(self) -> None:
        from bot.http.server import stop_server

        stop_server(self.server)
        self.thread.join(10)


def serve(store, *, rulebook=None, sign_in=None, clock=None) -> RunningDashboard:
    from bot.dashboard.app import Dashboard
    from bot.dashboard.cli import make_server

    kwargs = {"clock": clock} if clock else {}
    app = Dashboard(store, rulebook=rulebook, sign_in=sign_in, **kwargs)
    server = make_server(app, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return RunningDashboard(app, server, thread)


@pytest.fixture
def open_dashboard(recorded):
    """The dashboard as `vllm-doctor dashboard` serves it on loopback: no sign-in."""
    running = serve(recorded.store, rulebook=recorded.book)
    yield running
    running.close()
