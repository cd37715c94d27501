"""HTTP mode: bolt's WSGI adapter at /slack/events, a /healthz for load balancers and
orchestrators, and the maintainers' dashboard at /dashboard when Sign in with Slack is set up,
served by waitress (a production WSGI server in pure Python)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from waitress import wasyncore
from waitress.server import create_server

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
DASHBOARD_PATH = "/dashboard"
# Slack's own payloads are far smaller; this only bounds what a stranger can make us read.
MAX_BODY_BYTES = 16 * 1024 * 1024


def wsgi_app(app: App, dashboard=None) -> Callable[[dict, Callable], Iterable[bytes]]:
    slack = SlackRequestHandler(app, path=EVENTS_PATH)
    if dashboard is not None:
        from bot.dashboard.web import mount

        slack = mount(DASHBOARD_PATH, dashboard, slack)

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "3")])
            return [b"ok\n"]
        return slack(environ, start_response)

    return application


def make_server(app: App, *, host: str = "0.0.0.0", port: int = 3000, threads: int = 8, dashboard=None) -> Any:
    """A waitress server, bound but not yet serving: call .run() (blocks) and .close().
    port=0 picks a free port; .effective_port says which."""
    return create_server(wsgi_app(app, dashboard), host=host, port=port, threads=threads,
                         max_request_body_size=MAX_BODY_BYTES, ident="vllm-doctor")


def stop_server(server: Any) -> None:
    """Stop a server whose .run() is looping in another thread.

    Closing its sockets from outside would pull them from under the select() in that loop;
    instead the loop is woken through waitress's trigger and closes everything itself, which
    ends .run(). Requests already handed to worker threads are allowed to finish.
    """
    server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))  # noqa: SLF001
    server.task_dispatcher.shutdown(cancel_pending=False, timeout=10)
