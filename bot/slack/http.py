"""HTTP mode: bolt's WSGI adapter at /slack/events, /healthz (alive) and /readyz (able to answer:
see health.py) for load balancers and orchestrators, and the maintainers' dashboard at /dashboard
when Sign in with Slack is set up, served by bot/http/server.py (waitress, bounded against slow clients)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.http import server as http_server
from bot.slack import edge

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
DASHBOARD_PATH = "/dashboard"
# Slack's own payloads are far smaller; this only bounds what a stranger can make us read.
MAX_BODY_BYTES = 16 * 1024 * 1024


Readiness = Callable[[], "tuple[bool, dict]"]


def wsgi_app(app: App, signing_secret: str, ready: Readiness | None = None,
             dashboard=None) -> Callable[[dict, Callable], Iterable[bytes]]:
    slack = SlackRequestHandler(app, path=EVENTS_PATH)
    if dashboard is not None:
        from bot.dashboard.web import mount

        slack = mount(DASHBOARD_PATH, dashboard, slack)
    secret = signing_secret.encode()

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO"), environ.get("REQUEST_METHOD")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "3")])
            return [b"ok\n"]
        if path == READY_PATH and method in ("GET", "HEAD") and ready is not None:
            ok, details = ready()
            body = json.dumps(details).encode() + b"\n"
            start_response("200 OK" if ok else "503 Service Unavailable",
                           [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == EVENTS_PATH and method == "POST":
            try:
                body = edge.read_body(environ)
                if edge.is_ssl_check(environ, body):
                    start_response("200 OK", [("Content-Length", "0")])
                    return [b""]
                edge.screen(environ, body, secret)
            except edge.Rejected as rejected:
                return edge.reject(start_response, environ, rejected)
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
            try:
                return slack(environ, start_response)
            except Exception as e:  # noqa: BLE001 - bolt reading a field of an unexpected type
                # Listeners run after the ack, in their own threads: what raises here is bolt
                # building its request from a signed body whose fields are not what Slack sends.
                return edge.reject(start_response, environ, edge.Rejected(400, f"unreadable request ({type(e).__name__})"))
        return slack(environ, start_response)

    return application


def make_server(app: App, *, signing_secret: str, host: str = "0.0.0.0", port: int = 3000, threads: int = 8,
                ready: Readiness | None = None, dashboard=None, **limits: Any) -> Any:
    """The bounded server (bot/http/server.py: request deadline, per-client cap), bound but not
    yet serving: call .run() (blocks) and stop_server(). port=0 picks a free port; .effective_port
    says which. `limits`: read_s, per_client, connections, for tests."""
    return http_server.make_server(wsgi_app(app, signing_secret, ready, dashboard), host=host, port=port,
                                   threads=threads, max_body=MAX_BODY_BYTES, **limits)
