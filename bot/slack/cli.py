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

from bot.cli import packs_option
from bot.slack.settings import Settings, SettingsError

log = logging.getLogger("vllm_doctor.serve")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="vllm-doctor serve", parents=[packs_option()],
        description="Run the Slack bot: Socket Mode by default (needs SLACK_APP_TOKEN), "
                    "or the Events API over HTTP with --http (needs SLACK_SIGNING_SECRET).")
    parser.add_argument("--http", action="store_true", help="serve the Events API over HTTP instead of Socket Mode")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 3000),
                        help="HTTP port (default: $PORT or 3000)")
    parser.add_argument("--host", default=os.environ.get("HOST") or "0.0.0.0", help="HTTP bind address (default 0.0.0.0)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
        settings = replace(settings, rule_packs=settings.rule_packs + tuple(args.rules))
        check_mode(settings, http=args.http)
    except SettingsError as err:
        print(f"vllm-doctor serve: {err}", file=sys.stderr)
        return 2

    from bot.slack.app import build_app
    from bot.slack.repro import ReproPoster
    from bot.store import Store

    store = Store.from_env(settings.database_url)
    dashboard = None
    if args.http:
        from bot.dashboard.auth import SignInError
        from bot.dashboard.cli import for_bot

        try:
            dashboard = for_bot(store)
        except SignInError as err:
            print(f"vllm-doctor serve: {err}", file=sys.stderr)
            return 2
    app = build_app(settings, store=store)
    poster = ReproPoster(app.client, store, interval_s=settings.repro_poll_s).start()
    stop = threading.Event()
    _stop_on_signals(stop)
    try:
        if args.http:
            serve_http(app, host=args.host, port=args.port, stop=stop, dashboard=dashboard)
        else:
            serve_socket_mode(app, settings.app_token, stop=stop)
    finally:
        poster.stop()
        # Answers already being worked on are finished before the process exits.
        app.listener_runner.listener_executor.shutdown(wait=True)
        store.dispose()
    return 0


def check_mode(settings: Settings, *, http: bool) -> None:
    if http and not settings.signing_secret:
        raise SettingsError("--http needs SLACK_SIGNING_SECRET (Basic Information → App Credentials → Signing Secret)")
    if not http and not settings.app_token:
        raise SettingsError("Socket Mode needs SLACK_APP_TOKEN (an xapp-… app-level token with connections:write); "
                            "or run with --http")


def serve_http(app: Any, *, host: str, port: int, stop: threading.Event, dashboard=None) -> None:
    from bot.slack.http import DASHBOARD_PATH, EVENTS_PATH, make_server, stop_server

    server = make_server(app, host=host, port=port, dashboard=dashboard)
    log.info("listening on http://%s:%s%s", host, server.effective_port, EVENTS_PATH)
    if dashboard is not None:
        log.info("dashboard on http://%s:%s%s/ (Sign in with Slack)", host, server.effective_port, DASHBOARD_PATH)
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
