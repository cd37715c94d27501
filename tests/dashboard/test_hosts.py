"""DNS rebinding: the dashboard answers only as the hosts it is configured with, and takes a POST
only from its own pages. Real HTTP to the dashboard on loopback, the real store behind it."""

from __future__ import annotations

import http.client
import logging

import pytest

from bot.dashboard.auth import SignInSettings, SlackSignIn
from bot.dashboard.hosts import configured, hostname
from tests.slack.fakeslack import TEAM_ID
from tests.slack.fakeslack.openid import CLIENT_ID, CLIENT_SECRET

from .conftest import serve

pytestmark = pytest.mark.timeout(120)


def request(running, path: str, host: str | None, method: str = "GET",
            headers: dict | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", running.server.effective_port, timeout=30)
    try:
        conn.putrequest(method, "/dashboard" + path, skip_host=True)
        if host is not None:
            conn.putheader("Host", host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        reply = conn.getresponse()
        return reply.status, reply.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/", "/unanswered", "/rules", "/static/style.css"])
def test_a_rebinding_host_gets_421_and_nothing_of_the_store(open_dashboard, recorded, caplog, path):
    caplog.set_level(logging.INFO)
    port = open_dashboard.server.effective_port
    status, body = request(open_dashboard, path, f"evil.example.com:{port}")
    assert status == 421
    assert body == "this dashboard is not served as evil.example.com\n"
    assert "refused GET" in caplog.text and not [r for r in caplog.records if r.exc_info]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "localhost:9000", "[::1]:{port}",
                                  "LOCALHOST.", None])
def test_loopback_names_on_any_port_are_answered(open_dashboard, recorded, host):
    # ssh -L 9000:127.0.0.1:8090 makes the browser say localhost:9000; HTTP/1.0 sends no Host.
    port = open_dashboard.server.effective_port
    status, body = request(open_dashboard, "/unanswered", host and host.format(port=port))
    assert status == 200 and "Unanswered" in body


def test_a_dashboard_behind_sign_in_answers_as_its_public_address_too(recorded, fake_slack_url):
    running = serve(recorded.store, rulebook=recorded.book)
    try:
        running.app.sign_in = SlackSignIn(SignInSettings(CLIENT_ID, CLIENT_SECRET, "https://doctor.example.org/dashboard",
                                                         TEAM_ID, api_url=fake_slack_url))
        assert request(running, "/rules", "doctor.example.org")[0] == 303          # on to sign in
        assert request(running, "/rules", "127.0.0.1")[0] == 303
        assert request(running, "/rules", "doctor.example.org.evil.example.com")[0] == 421
    finally:
        running.close()


def test_a_post_from_another_sites_page_is_refused(open_dashboard):
    port = open_dashboard.server.effective_port
    here = f"127.0.0.1:{port}"
    assert request(open_dashboard, "/logout", here, "POST", {"Origin": "https://evil.example.com"})[0] == 403
    assert request(open_dashboard, "/logout", here, "POST", {"Origin": "null"})[0] == 403
    assert request(open_dashboard, "/logout", here, "POST", {"Origin": f"http://{here}"})[0] == 303
    assert request(open_dashboard, "/logout", here, "POST")[0] == 303        # no Origin: no browser's form


def test_host_names_are_read_as_browsers_send_them():
    assert hostname("Example.COM:8090") == "example.com"
    assert hostname("[::1]:8090") == "::1" and hostname("::1") == "::1"
    assert hostname("localhost.") == "localhost"
    assert configured(bound="0.0.0.0") == configured() == {"localhost", "127.0.0.1", "::1"}
    assert configured(bound="10.0.0.7", public_url="https://doctor.example.org/dashboard") == {
        "localhost", "127.0.0.1", "::1", "10.0.0.7", "doctor.example.org"}


@pytest.fixture
def fake_slack_url():
    from tests.slack.fakeslack import FakeSlack

    with FakeSlack() as fake:
        yield fake.api_url
