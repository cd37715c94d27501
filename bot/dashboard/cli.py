"""`vllm-doctor dashboard [--host 127.0.0.1] [--port 8090] [--db URL]`: serve the maintainers' page.

On a loopback address (the default) the page is open to whoever can reach this machine's
loopback, unless Sign in with Slack is configured, which is then required too (a reverse proxy on
the same host would otherwise open it to everyone it serves). On any other address Sign in with
Slack is required, and the command refuses to start without it.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading

log = logging.getLogger("vllm_doctor.dashboard")
PREFIX = "/dashboard"


def main(argv: list[str] | None = None) -> int:
    from bot.base import logs
    from bot.base.errors import Parser, SetupError, port_number

    parser = Parser(prog="vllm-doctor dashboard", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=8090, help="port, 1-65535 (default 8090)")
    parser.add_argument("--db", metavar="URL", help="database URL (default: $DATABASE_URL, else the local SQLite file)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        logs.setup(logs.level_from(os.environ.get("LOG_LEVEL")))
        return serve(args)
    except SetupError as e:
        print(f"vllm-doctor dashboard: {e}", file=sys.stderr)
        return 2


def serve(args) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from bot.base.errors import SetupError, listen_error
    from bot.store import Store
    from bot.store.engine import display

    from .auth import SignInError
    from .hosts import is_loopback

    store = Store.from_env(args.db)
    try:
        try:
            # The address it is bound to is one it answers as (hosts.py: DNS rebinding).
            dashboard = build(store, loopback_only=is_loopback(args.host), hosts=[args.host])
        except SignInError as e:
            raise SetupError(str(e)) from None
        try:
            if store.current() is None:
                raise SetupError(f"{display(store.url)} has no vllm-doctor tables yet; run `vllm-doctor db upgrade`")
        except SQLAlchemyError as e:
            raise SetupError(f"cannot read {display(store.url)}: {type(e).__name__}: "
                             f"{(str(e).strip().splitlines() or [''])[0]}") from None
        try:
            server = make_server(dashboard, host=args.host, port=args.port)
        except OSError as e:
            raise listen_error(e, args.host, args.port, option="--port") from None
        where = f"http://{args.host}:{server.effective_port}{PREFIX}/"
        log.info("dashboard on %s (%s), reading %s", where,
                 "Sign in with Slack" if dashboard.sign_in else "open on this machine only", display(store.url))
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        from bot.http.server import stop_server

        runner = threading.Thread(target=server.run, name="waitress", daemon=True)
        runner.start()
        while not stop.wait(1.0):
            pass
        stop_server(server)
        runner.join(10)
        return 0
    finally:
        store.dispose()


def build(store, *, loopback_only: bool, env=None, hosts=()):
    """The dashboard app for `store`; SignInError when it would be open beyond loopback."""
    from bot.learn.cli import rulebook_or_none

    from .app import Dashboard
    from .auth import SignInError, SignInSettings, SlackSignIn

    settings = SignInSettings.from_env(env)
    if settings is None and not loopback_only:
        raise SignInError("outside localhost the dashboard requires Sign in with Slack: set SLACK_CLIENT_ID, "
                          "SLACK_CLIENT_SECRET and DASHBOARD_URL (README: 'The maintainers' dashboard')")
    return Dashboard(store, rulebook=rulebook_or_none(), sign_in=SlackSignIn(settings) if settings else None,
                     hosts=hosts)


def for_bot(store, env=None):
    """The dashboard `serve --http` mounts at /dashboard: always behind Sign in with Slack, as the
    bot's port is public. None (and a log line saying how) when sign-in is not set up."""
    from .app import Dashboard
    from .auth import SignInSettings, SlackSignIn

    settings = SignInSettings.from_env(env)
    if settings is None:
        log.info("dashboard not served: set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and DASHBOARD_URL "
                 "to serve it at %s/ behind Sign in with Slack", PREFIX)
        return None
    from bot.learn.cli import rulebook_or_none

    return Dashboard(store, rulebook=rulebook_or_none(), sign_in=SlackSignIn(settings))


def make_server(dashboard, *, host: str, port: int, **limits):
    """The bounded server (bot/http/server.py) serving the dashboard under /dashboard; / redirects there."""
    from bot.http.server import make_server as bounded_server

    from .web import Response, mount, redirect

    def elsewhere(environ, start_response):
        if environ.get("PATH_INFO") in ("", "/"):
            return redirect(PREFIX + "/", status=302)(environ, start_response)
        return Response("Not found; the dashboard is at /dashboard/\n", status=404,
                        content_type="text/plain; charset=utf-8")(environ, start_response)

    return bounded_server(mount(PREFIX, dashboard, elsewhere), host=host, port=port, threads=4, max_body=64 * 1024,
                          **limits)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
