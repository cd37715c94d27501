"""The dashboard inside `serve --http` at /dashboard, beside /slack/events and /healthz; and the
command line refusing to open it beyond localhost without sign-in."""

from __future__ import annotations

import threading

import pytest

from bot.dashboard.app import Dashboard
from bot.dashboard.auth import SignInSettings, SlackSignIn
from bot.dashboard.cli import main as dashboard_main
from tests.slack.conftest import bot_settings, fixture_log, make_store
from tests.slack.fakeslack import CHANNEL, TEAM_ID, FakeSlack, SlackDriver
from tests.slack.fakeslack.openid import CLIENT_ID, CLIENT_SECRET

from .page import Browser
from .test_signin import sign_in

pytestmark = pytest.mark.timeout(120)


def test_serve_http_mounts_the_dashboard_behind_sign_in(sqlite_url, tmp_path):
    from bot.slack.app import build_app
    from bot.http.server import stop_server
    from bot.slack.http import make_server

    with FakeSlack() as fake:
        settings = bot_settings(fake, sqlite_url)
        store = make_store(sqlite_url, tmp_path / "spool.jsonl")
        app = build_app(settings, store=store)
        dashboard = Dashboard(store)
        server = make_server(app, signing_secret=settings.signing_secret, host="127.0.0.1", port=0, threads=4,
                             dashboard=dashboard)
        base = f"http://127.0.0.1:{server.effective_port}"
        dashboard.sign_in = SlackSignIn(SignInSettings(CLIENT_ID, CLIENT_SECRET, base + "/dashboard", TEAM_ID,
                                                       api_url=fake.api_url))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            driver = SlackDriver(base, fake)
            assert driver.get("/healthz").status == 200
            reply, _ = driver.send_event(driver.message_event(fixture_log("cuda-oom")))
            assert reply.status == 200
            fake.wait_calls("chat.postMessage")           # the bot answered the paste

            browser = Browser()
            assert browser.get(base + "/dashboard/rules").status == 303
            assert browser.get(base + "/dashboard").status == 303
            callback, _ = sign_in(browser, base + "/dashboard")
            assert callback.status == 303
            page = browser.get(base + "/dashboard/rules")
            assert page.status == 200 and 'data-rule="cuda-oom"' in page.body
            assert browser.get(base + "/elsewhere").status == 404       # still bolt's answer outside
        finally:
            stop_server(server)
            thread.join(10)
            app.listener_runner.listener_executor.shutdown(wait=True)
            store.dispose()


def test_the_command_refuses_to_open_the_page_beyond_localhost(sqlite_url, monkeypatch, capsys):
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "DASHBOARD_URL"):
        monkeypatch.delenv(name, raising=False)
    assert dashboard_main(["--host", "0.0.0.0", "--db", sqlite_url]) == 2
    assert "requires Sign in with Slack" in capsys.readouterr().err
    monkeypatch.setenv("SLACK_CLIENT_ID", CLIENT_ID)
    assert dashboard_main(["--host", "127.0.0.1", "--db", sqlite_url]) == 2
    assert "SLACK_CLIENT_SECRET and DASHBOARD_URL" in capsys.readouterr().err


def test_the_command_says_when_the_database_was_never_migrated(sqlite_url, monkeypatch, capsys):
    monkeypatch.delenv("SLACK_CLIENT_ID", raising=False)
    assert dashboard_main(["--db", sqlite_url]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("vllm-doctor dashboard: ") and "vllm-doctor db upgrade" in line
