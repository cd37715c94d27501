"""Sign in with Slack against the fake Slack's OpenID endpoints, over real loopback HTTP: the whole
redirect dance, the cookies, and every way a sign-in must fail."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from bot.dashboard.auth import SESSION_COOKIE, SIGNIN_COOKIE, SignInError, SignInSettings, SlackSignIn
from bot.dashboard.web import Request
from tests.slack.fakeslack import BOT_TOKEN, TEAM_ID, FakeSlack
from tests.slack.fakeslack.openid import CLIENT_ID, CLIENT_SECRET, Person

from .conftest import serve
from .page import Browser

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def fake():
    with FakeSlack() as f:
        yield f


@pytest.fixture
def guarded(recorded, fake):
    """The dashboard behind Sign in with Slack, its redirect URL registered with the fake."""
    running = serve(recorded.store, rulebook=recorded.book)
    settings = SignInSettings(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, public_url=running.url,
                              team_id=TEAM_ID, api_url=fake.api_url)
    running.app.sign_in = SlackSignIn(settings)
    yield running
    running.close()


def sign_in(browser: Browser, url: str, target: str = "/rules"):
    """Walk the flow from the dashboard at `url` as a browser would, one redirect at a time;
    the callback's reply and the redirect to Slack."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    first = browser.get(url + target)
    assert first.status == 303
    login = browser.get(origin + first.header("Location"))
    assert login.status == 200 and "Sign in with Slack" in login.body
    start_path = login.body.split('class="button" href="')[1].split('"')[0].replace("&amp;", "&")
    to_slack = browser.get(origin + start_path)
    assert to_slack.status == 303
    back = browser.get(to_slack.header("Location"))          # the fake's authorize page
    assert back.status == 302
    return browser.get(back.header("Location")), to_slack


def test_pages_need_a_signed_in_member_of_the_bots_workspace(guarded, fake):
    browser = Browser()
    for path in ["/", "/rules", "/rules/cuda-oom", "/unanswered", "/releases", "/repro",
                 "/unanswered/draft.yaml?signature=x"]:
        reply = browser.get(guarded.url + path)
        assert reply.status == 303, path
        assert reply.header("Location").startswith("/dashboard/login?next=")
        assert "cuda-oom" not in reply.body
    assert browser.get(guarded.url + "/static/style.css").status == 200   # the login page needs it

    callback, to_slack = sign_in(browser, guarded.url)
    authorize = parse_qs(urlsplit(to_slack.header("Location")).query)
    assert authorize["team"] == [TEAM_ID] and authorize["scope"] == ["openid profile"]
    assert authorize["redirect_uri"] == [guarded.url + "/auth/slack/callback"]
    assert callback.status == 303 and callback.header("Location") == "/dashboard/rules"
    page = browser.get(guarded.url + "/rules")
    assert page.status == 200 and "Signed in as Ada Maintainer" in page.body and "cuda-oom" in page.body
    assert [c.method for c in fake.calls if c.method.startswith("openid")] == [
        "openid.authorize", "openid.connect.token", "openid.connect.userInfo"]


def test_cookies_are_signed_httponly_and_samesite(guarded):
    browser = Browser()
    callback, to_slack = sign_in(browser, guarded.url)
    [pending] = [c for c in to_slack.cookies() if c.startswith(SIGNIN_COOKIE + "=")]
    session = next(c for c in callback.cookies() if c.startswith(SESSION_COOKIE + "=") and "Max-Age=0" not in c)
    for cookie in (pending, session):
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/dashboard/" in cookie
        assert "Secure" not in cookie                      # http://127.0.0.1 here; see the https test
    assert "Max-Age=43200" in session
    assert any(c.startswith(SIGNIN_COOKIE + "=;") and "Max-Age=0" in c for c in callback.cookies())

    # a session cookie changed by hand is no session
    value = browser.cookie(SESSION_COOKIE)
    forged = Browser()
    forged.jar.set_cookie(_cookie(SESSION_COOKIE, value[:-2] + ("AA" if not value.endswith("AA") else "BB")))
    assert forged.get(guarded.url + "/rules").status == 303
    # nor is one signed with another key (another deployment's, or a guess)
    other = SlackSignIn(SignInSettings(CLIENT_ID, "another-secret", guarded.url, TEAM_ID))
    stolen = Browser()
    stolen.jar.set_cookie(_cookie(SESSION_COOKIE, other._dump({"u": "U1", "n": "x", "t": TEAM_ID}, "session")))
    assert stolen.get(guarded.url + "/rules").status == 303
    # the genuine cookie, carried to another browser, works (it is the key to the pages)...
    copied = Browser()
    copied.jar.set_cookie(_cookie(SESSION_COOKIE, value))
    assert copied.get(guarded.url + "/rules").status == 200
    # ...but the sign-in cookie is no session, though signed with the same key
    swapped = Browser()
    swapped.jar.set_cookie(_cookie(SESSION_COOKIE, pending.split(";")[0].split("=", 1)[1]))
    assert swapped.get(guarded.url + "/rules").status == 303


def test_sign_out_ends_the_session(guarded):
    browser = Browser()
    sign_in(browser, guarded.url)
    assert browser.get(guarded.url + "/rules").status == 200
    out = browser.get(guarded.url + "/logout", method="POST", data=b"")
    assert out.status == 303 and any("Max-Age=0" in c for c in out.cookies())
    assert browser.get(guarded.url + "/rules").status == 303


def test_a_member_of_another_workspace_is_refused(guarded, fake):
    fake.openid.person = Person("U0STRANGER", "T0OTHERWS", "Eve Elsewhere")
    browser = Browser()
    callback, _ = sign_in(browser, guarded.url)
    assert callback.status == 403 and "only for members of the bot" in callback.body
    assert browser.cookie(SESSION_COOKIE) is None
    assert browser.get(guarded.url + "/rules").status == 303


def test_a_forged_or_missing_state_is_refused(guarded, fake):
    browser = Browser()
    browser.get(guarded.url + "/rules")
    to_slack = browser.get(guarded.url + "/auth/slack/start?next=%2Fdashboard%2Frules")
    back = browser.get(to_slack.header("Location")).header("Location")
    code = parse_qs(urlsplit(back).query)["code"][0]
    callback = guarded.url + "/auth/slack/callback"

    forged = browser.get(f"{callback}?code={code}&state=not-the-one-we-sent")
    assert forged.status == 400 and "state does not match" in forged.body
    missing = browser.get(f"{callback}?code={code}")
    assert missing.status == 400
    # the right state but in a browser that never started a sign-in (a login CSRF): refused
    state = parse_qs(urlsplit(back).query)["state"][0]
    stranger = Browser()
    assert stranger.get(f"{callback}?code={code}&state={state}").status == 400
    assert browser.cookie(SESSION_COOKIE) is None and stranger.cookie(SESSION_COOKIE) is None
    assert fake.calls_to("openid.connect.token") == []    # no code was ever exchanged


def test_a_used_code_and_a_cancelled_sign_in_are_refused(guarded, fake):
    browser = Browser()
    callback, to_slack = sign_in(browser, guarded.url)
    assert callback.status == 303
    # the code again, after a fresh start in another browser (its own state): Slack refuses it
    code = fake.calls_to("openid.connect.token")[0].params["code"]
    again = Browser()
    state = parse_qs(urlsplit(again.get(guarded.url + "/auth/slack/start").header("Location")).query)["state"][0]
    reply = again.get(f"{guarded.url}/auth/slack/callback?code={code}&state={state}")
    assert reply.status == 502 and "invalid_code" in reply.body and again.cookie(SESSION_COOKIE) is None

    fake.openid.person = None                                  # the person presses Cancel at Slack
    cancelled, _ = sign_in(Browser(), guarded.url)
    assert cancelled.status == 403 and "access_denied" in cancelled.body


def test_after_sign_in_only_a_path_of_this_dashboard_is_followed(guarded):
    browser = Browser()
    browser.get(guarded.url + "/")
    for target in ["https://evil.example/", "//evil.example/x", "/elsewhere"]:
        to_slack = browser.get(guarded.url + "/auth/slack/start?next=" + quote(target, safe=""))
        back = browser.get(to_slack.header("Location")).header("Location")
        assert browser.get(back).header("Location") == "/dashboard/", target


def test_cookies_are_secure_behind_https():
    settings = SignInSettings(CLIENT_ID, CLIENT_SECRET, "https://doctor.example.com/dashboard", TEAM_ID)
    reply = SlackSignIn(settings).start(Request({"PATH_INFO": "/auth/slack/start", "SCRIPT_NAME": "/dashboard",
                                                 "QUERY_STRING": ""}))
    cookie = dict(reply.headers)["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert settings.redirect_uri == "https://doctor.example.com/dashboard/auth/slack/callback"


def test_settings_find_the_bots_workspace_and_say_what_is_missing(fake):
    env = {"SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
           "DASHBOARD_URL": "https://doctor.example.com/dashboard/", "SLACK_BOT_TOKEN": BOT_TOKEN,
           "SLACK_API_URL": fake.api_url}
    settings = SignInSettings.from_env(env)
    assert settings.team_id == TEAM_ID and settings.public_url == "https://doctor.example.com/dashboard"
    assert fake.calls_to("auth.test")
    assert SignInSettings.from_env({}) is None
    with pytest.raises(SignInError, match="SLACK_CLIENT_SECRET and DASHBOARD_URL"):
        SignInSettings.from_env({"SLACK_CLIENT_ID": CLIENT_ID})
    with pytest.raises(SignInError, match="SLACK_TEAM_ID"):
        SignInSettings.from_env({k: v for k, v in env.items() if k != "SLACK_BOT_TOKEN"})
    with pytest.raises(SignInError, match="invalid_auth"):
        SignInSettings.from_env({**env, "SLACK_BOT_TOKEN": "xoxb-wrong"})


def _cookie(name: str, value: str):
    import http.cookiejar

    return http.cookiejar.Cookie(0, name, value, None, False, "127.0.0.1", False, False, "/dashboard/", True,
                                 False, None, False, None, None, {"HttpOnly": None})
