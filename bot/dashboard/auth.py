"""Sign in with Slack (OpenID Connect), limited to the bot's own workspace.

    GET {root}/auth/slack/start?next=…   → 303 to Slack's /openid/connect/authorize, with a fresh
                                            state and nonce kept in a short-lived signed cookie
    GET {root}/auth/slack/callback       ← Slack sends the person back with ?code=…&state=…
        state must equal the cookie's (else refused: a forged or replayed callback);
        the code is exchanged at openid.connect.token with the client secret;
        the id_token's audience, nonce and expiry are checked, and userInfo gives the workspace:
        a person of another workspace is refused;
        then a signed session cookie (HttpOnly, SameSite=Lax, Secure on https) is set.

The id_token comes straight from Slack's token endpoint over TLS, in exchange for our client
secret, so its signature is not checked again (OpenID Connect Core 3.1.3.7, item 6); its claims
are. Cookies are signed with itsdangerous (HMAC-SHA1 over a key derived from the secret) and
carry their own age, so a session ends after `SESSION_HOURS` whatever the browser keeps.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urljoin, urlsplit

from itsdangerous import BadSignature, URLSafeTimedSerializer

from .web import Request, Response, redirect

log = logging.getLogger(__name__)

SESSION_COOKIE = "vd_session"
SIGNIN_COOKIE = "vd_signin"
SESSION_HOURS = 12
SIGNIN_SECONDS = 10 * 60
SCOPES = ("openid", "profile")
TEAM_CLAIM = "https://slack.com/team_id"
USER_CLAIM = "https://slack.com/user_id"
CALLBACK_PATH = "/auth/slack/callback"


class SignInError(ValueError):
    """Sign-in is asked for but cannot work as configured; the message says which setting to set."""


class Refused(Exception):
    """A sign-in attempt that must not succeed; the message is shown to the person."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class SignInSettings:
    client_id: str
    client_secret: str
    public_url: str                 # where the dashboard is reached, e.g. https://host/dashboard
    team_id: str                    # the bot's workspace: nobody else may sign in
    api_url: str = "https://slack.com/api/"
    session_secret: str = ""

    @property
    def redirect_uri(self) -> str:
        return self.public_url.rstrip("/") + CALLBACK_PATH

    @property
    def authorize_url(self) -> str:
        # Slack's authorize page lives beside its Web API: https://slack.com/openid/connect/authorize.
        return urljoin(self.api_url, "/openid/connect/authorize")

    @property
    def secure(self) -> bool:
        return urlsplit(self.public_url).scheme == "https"

    @property
    def cookie_path(self) -> str:
        return urlsplit(self.public_url).path.rstrip("/") + "/"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, team_lookup=None) -> "SignInSettings | None":
        """None when sign-in is not configured (no SLACK_CLIENT_ID); SignInError when half of it is."""
        env = os.environ if env is None else env
        client_id = env.get("SLACK_CLIENT_ID", "").strip()
        client_secret = env.get("SLACK_CLIENT_SECRET", "").strip()
        public_url = env.get("DASHBOARD_URL", "").strip().rstrip("/")
        if not client_id:
            return None
        missing = [name for name, value in (("SLACK_CLIENT_SECRET", client_secret), ("DASHBOARD_URL", public_url))
                   if not value]
        if missing:
            raise SignInError(f"Sign in with Slack needs {' and '.join(missing)} as well as SLACK_CLIENT_ID")
        if urlsplit(public_url).scheme not in ("http", "https") or not urlsplit(public_url).netloc:
            raise SignInError(f"DASHBOARD_URL must be the page's full address, like https://host/dashboard; "
                              f"got {public_url!r}")
        api_url = env.get("SLACK_API_URL", "").strip() or "https://slack.com/api/"
        if not api_url.endswith("/"):
            api_url += "/"
        team_id = env.get("SLACK_TEAM_ID", "").strip()
        if not team_id:
            token = env.get("SLACK_BOT_TOKEN", "").strip()
            if not token:
                raise SignInError("Sign in with Slack is limited to the bot's workspace: set SLACK_TEAM_ID, "
                                  "or SLACK_BOT_TOKEN so it can be looked up")
            team_id = (team_lookup or workspace_of)(token, api_url)
        return cls(client_id=client_id, client_secret=client_secret, public_url=public_url,
                   team_id=team_id, api_url=api_url,
                   session_secret=env.get("DASHBOARD_SESSION_SECRET", "").strip())


def workspace_of(bot_token: str, api_url: str) -> str:
    """The workspace the bot token belongs to (auth.test)."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    try:
        team = WebClient(token=bot_token, base_url=api_url, timeout=10).auth_test().get("team_id")
    except SlackApiError as e:
        raise SignInError(f"cannot find the bot's workspace with SLACK_BOT_TOKEN: {e.response.get('error')}") from e
    if not team:
        raise SignInError("auth.test did not say which workspace the bot is in; set SLACK_TEAM_ID")
    return team


@dataclass(frozen=True)
class User:
    id: str
    name: str
    team_id: str


class SlackSignIn:
    def __init__(self, settings: SignInSettings, *, clock=time.time):
        self.settings = settings
        self.clock = clock
        # Without a secret of its own, the key is derived from the client secret: rotating that
        # ends every session, which is what one wants after a leak.
        key = settings.session_secret or hmac.new(settings.client_secret.encode(), b"vllm-doctor dashboard sessions",
                                                  hashlib.sha256).hexdigest()
        self._serializer = URLSafeTimedSerializer(key, salt="vllm-doctor-dashboard")

    # -- sessions ---------------------------------------------------------------------------

    def user(self, request: Request) -> User | None:
        data = self._load(request.cookies.get(SESSION_COOKIE), SESSION_HOURS * 3600, "session")
        if not data or data.get("t") != self.settings.team_id:
            return None
        return User(id=str(data.get("u")), name=str(data.get("n") or data.get("u")), team_id=data["t"])

    def sign_out(self, request: Request) -> Response:
        response = redirect(request.url("/login"))
        response.delete_cookie(SESSION_COOKIE, path=self.settings.cookie_path, secure=self.settings.secure)
        return response

    # -- the flow ---------------------------------------------------------------------------

    def start(self, request: Request) -> Response:
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        query = urlencode({"response_type": "code", "scope": " ".join(SCOPES), "client_id": self.settings.client_id,
                           "state": state, "nonce": nonce, "team": self.settings.team_id,
                           "redirect_uri": self.settings.redirect_uri})
        response = redirect(f"{self.settings.authorize_url}?{query}")
        cookie = self._dump({"s": state, "nonce": nonce, "next": safe_next(request, request.arg("next"))}, "signin")
        response.set_cookie(SIGNIN_COOKIE, cookie, path=self.settings.cookie_path, max_age=SIGNIN_SECONDS,
                            secure=self.settings.secure)
        return response

    def callback(self, request: Request) -> Response:
        """The person back from Slack: a session and a redirect to where they were going, or Refused."""
        pending = self._load(request.cookies.get(SIGNIN_COOKIE), SIGNIN_SECONDS, "signin")
        if request.arg("error"):
            raise Refused(f"Slack did not sign you in: {request.arg('error')}.")
        state = request.arg("state")
        if not pending or not state or not hmac.compare_digest(str(pending.get("s")), state):
            raise Refused("This sign-in link is not the one this browser started (its state does not match). "
                          "Start again from the sign-in page.", status=400)
        code = request.arg("code")
        if not code:
            raise Refused("Slack sent no sign-in code.", status=400)
        user = self._exchange(code, pending["nonce"])
        log.info("dashboard: %s (%s) signed in", user.id, user.name)
        response = redirect(pending.get("next") or request.url("/"))
        response.delete_cookie(SIGNIN_COOKIE, path=self.settings.cookie_path, secure=self.settings.secure)
        response.set_cookie(SESSION_COOKIE, self._dump({"u": user.id, "n": user.name, "t": user.team_id}, "session"),
                            path=self.settings.cookie_path, max_age=SESSION_HOURS * 3600, secure=self.settings.secure)
        return response

    def _exchange(self, code: str, nonce: str) -> User:
        from slack_sdk import WebClient
        from slack_sdk.errors import SlackApiError

        s = self.settings
        try:
            tokens = WebClient(base_url=s.api_url, timeout=10).openid_connect_token(
                client_id=s.client_id, client_secret=s.client_secret, code=code, redirect_uri=s.redirect_uri,
                grant_type="authorization_code")
            claims = _claims(tokens.get("id_token"))
            info = WebClient(token=tokens["access_token"], base_url=s.api_url, timeout=10).openid_connect_userInfo()
        except SlackApiError as e:
            log.warning("dashboard sign-in: Slack answered %s", e.response.get("error"))
            raise Refused(f"Slack refused the sign-in ({e.response.get('error')}). Start again.", status=502) from e
        if claims.get("aud") != s.client_id or not hmac.compare_digest(str(claims.get("nonce", "")), nonce):
            raise Refused("Slack's answer was not made for this sign-in (audience or nonce differ).", status=400)
        if float(claims.get("exp") or 0) < self.clock():
            raise Refused("Slack's answer has expired. Start again.", status=400)
        team = info.get(TEAM_CLAIM)
        if team != s.team_id or claims.get(TEAM_CLAIM) != team:
            log.warning("dashboard sign-in refused: %s is in workspace %s, not %s", info.get("sub"), team, s.team_id)
            raise Refused("This dashboard is only for members of the bot's own Slack workspace.")
        user_id = info.get(USER_CLAIM) or info.get("sub")
        if not user_id or user_id != claims.get("sub"):
            raise Refused("Slack's answer names no person, or two different ones.", status=400)
        return User(id=str(user_id), name=str(info.get("name") or user_id), team_id=team)

    # -- signed cookies ---------------------------------------------------------------------

    def _dump(self, data: dict, kind: str) -> str:
        return self._serializer.dumps({**data, "k": kind})

    def _load(self, value: str | None, max_age: int, kind: str) -> dict | None:
        if not value:
            return None
        try:
            data = self._serializer.loads(value, max_age=max_age)
        except BadSignature:          # also SignatureExpired
            return None
        return data if isinstance(data, dict) and data.get("k") == kind else None


def safe_next(request: Request, target: str) -> str:
    """Where to go after signing in: a path on this dashboard only, never another site."""
    root = request.url("/")
    if target.startswith(root) and not target.startswith("//") and "\\" not in target:
        return target
    return root


def _claims(id_token: str | None) -> dict:
    try:
        payload = (id_token or "").split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, binascii.Error):
        claims = None
    if not isinstance(claims, dict):
        raise Refused("Slack's answer held no readable id_token.", status=502)
    return claims
