"""`vllm-doctor serve [--http] [--port N] [--host H]`: run the bot.

Socket Mode by default (an outbound WebSocket: no public URL, works from inside a company
network; needs SLACK_APP_TOKEN). With --http, Slack posts events, commands and clicks to
/slack/events (needs SLACK_SIGNING_SECRET and a public HTTPS URL in front).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from dataclasses import replace
from typing import Any

from bot.base import logs
from bot.base.options import packs_option
from bot.base.errors import Parser, SetupError, env_port, listen_error, port_number
from bot.slack.settings import Settings, SettingsError

log = logging.getLogger("vllm_doctor.serve")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="vllm-doctor serve", parents=[packs_option()],
        description="Run the Slack bot: Socket Mode by default (needs SLACK_APP_TOKEN), "
                    "or the Events API over HTTP with --http (needs SLACK_SIGNING_SECRET).")
    parser.add_argument("--http", action="store_true", help="serve the Events API over HTTP instead of Socket Mode")
    # PORT is read after parsing, so a bad PORT is named as PORT, not as --port.
    parser.add_argument("--port", type=port_number, default=None, help="HTTP port, 1-65535 (default: $PORT or 3000)")
    parser.add_argument("--host", default=os.environ.get("HOST") or "0.0.0.0", help="HTTP bind address (default 0.0.0.0)")
    parser.add_argument("--migrate", action="store_true",
                        help="upgrade the database to the newest migration first (default: refuse an unmigrated one)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as e:       # a usage mistake (said in one line) or --help: returned, not raised
        return int(e.code or 0)
    try:
        logs.setup(logs.level_from(os.environ.get("LOG_LEVEL")))
        if args.port is None:
            args.port = env_port("PORT", os.environ.get("PORT"), 3000)
        settings = Settings.from_env()
        settings = replace(settings, rule_packs=settings.rule_packs + tuple(args.rules))
        check_mode(settings, http=args.http)
        return serve(settings, args)
    except SetupError as err:
        print(f"vllm-doctor serve: {err}", file=sys.stderr)
        return 2


def serve(settings: Settings, args: argparse.Namespace) -> int:
    from bot.slack.app import build_app, load_book, make_client
    from bot.slack.health import Readiness, check_database, upgrade
    from bot.slack.periodic import Periodic
    from bot.slack.replies import Replies
    from bot.slack.repro import ReproPoster
    from bot.store import Store
    from bot.watch.schedule import watch_for

    store = Store.from_env(settings.database_url)
    try:
        needs_upgrade = check_database(store, migrate_later=args.migrate)
        dashboard = dashboard_for(store) if args.http else None
        book = load_book(settings)
        replies = Replies(make_client(settings), store, retry_s=settings.reply_retry_s)
        app = build_app(settings, store=store, book=book, replies=replies)
        # The port before migrating: a busy one is found before anything is changed.
        server = listen(app, settings, args.host, args.port, Readiness(store, book), dashboard) if args.http else None
        if needs_upgrade:
            upgrade(store)
        # Records spooled while the database was down are written now, then on a timer, not
        # only when the next record happens to be written.
        flusher = Periodic("writing spooled records", store.flush_spool, settings.spool_flush_s).start()
        poster = ReproPoster(app.client, store, interval_s=settings.repro_poll_s).start()
        # vLLM's new releases into the index of its releases, daily (INDEX_WATCH_HOURS)
        watch = watch_for(store)
        watcher = Periodic("updating the index of vLLM's releases", watch.round, watch.interval_s).start() \
            if watch else None
        # Answers stored but not yet posted (Slack refused them, or the last run stopped first).
        replies.start()
        stop = threading.Event()
        _stop_on_signals(stop)
        try:
            if server is not None:
                serve_http(server, stop=stop, dashboard=dashboard is not None)
            else:
                serve_socket_mode(app, settings.app_token, stop=stop)
        finally:
            poster.stop()
            if watcher:
                watcher.stop()
            # Answers already being worked on are finished before the process exits.
            app.listener_runner.listener_executor.shutdown(wait=True)
            replies.stop()
            flusher.stop()
            flush_on_exit(flusher, store)
    finally:
        store.dispose()
    return 0


def flush_on_exit(flusher: Any, store: Any) -> None:
    """One last write of the spool on the way out (SIGTERM from an orchestrator is how a bot
    usually ends): what was kept during an outage that is over by now reaches the database today,
    not at the next start, which may never come on this host."""
    flusher.run_once()
    left = store.spool.mine()
    if left:
        log.warning("%d record(s) still spooled in %s (the database is unreachable); written at the next start",
                    left, store.spool.path)


def check_mode(settings: Settings, *, http: bool) -> None:
    if http and not settings.signing_secret:
        raise SettingsError("--http needs SLACK_SIGNING_SECRET (Basic Information → App Credentials → Signing Secret)")
    if not http and not settings.app_token:
        raise SettingsError("Socket Mode needs SLACK_APP_TOKEN (an xapp-… app-level token with connections:write); "
                            "or run with --http")


def dashboard_for(store: Any) -> Any:
    """The maintainers' dashboard at /dashboard, when Sign in with Slack is set up (else None)."""
    from bot.dashboard.auth import SignInError
    from bot.dashboard.cli import for_bot

    try:
        return for_bot(store)
    except SignInError as err:
        raise SetupError(str(err)) from None


def listen(app: Any, settings: Settings, host: str, port: int, ready: Any, dashboard: Any = None) -> Any:
    """The HTTP server, bound: a port that cannot be had is the operator's to fix, in one line."""
    from bot.slack.http import make_server

    try:
        return make_server(app, signing_secret=settings.signing_secret, host=host, port=port, ready=ready,
                           per_client=settings.http_per_client,
                           dashboard=dashboard)
    except OSError as e:
        raise listen_error(e, host, port) from None


def serve_http(server: Any, *, stop: threading.Event, dashboard: bool = False) -> None:
    from bot.http.server import stop_server
    from bot.slack.http import DASHBOARD_PATH, EVENTS_PATH

    log.info("listening on http://%s:%s%s", server.effective_host, server.effective_port, EVENTS_PATH)
    if dashboard:
        log.info("dashboard on http://%s:%s%s/ (Sign in with Slack)", server.effective_host, server.effective_port,
                 DASHBOARD_PATH)
    runner = threading.Thread(target=server.run, name="waitress", daemon=True)
    runner.start()
    _wait(stop)
    log.info("stopping")
    stop_server(server)
    runner.join(10)


def serve_socket_mode(app: Any, app_token: str, *, stop: threading.Event) -> None:
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(app, app_token=app_token)
    handler.connect()
    log.info("connected to Slack in Socket Mode")
    _wait(stop)
    log.info("stopping")
    handler.close()


def _wait(stop: threading.Event) -> None:
    # Short waits keep the main thread responsive to signals.
    while not stop.wait(1.0):
        pass


def _stop_on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
