"""Sign in with Slack (OpenID Connect), as Slack serves it, for the fake on loopback.

    GET  /openid/connect/authorize   the consent page: the fake "clicks Allow" as `person`
                                     and redirects to redirect_uri with ?code=…&state=…
    POST /api/openid.connect.token   code → access_token + id_token (client id and secret in HTTP
                                     Basic auth, as slack_sdk sends them, or in the form)
    GET|POST /api/openid.connect.userInfo   Bearer access token → the person's claims

Codes are single-use and short-lived and bound to their redirect_uri, like Slack's. The id_token
is a JWT signed HS256 with the client secret (Slack signs RS256; the bot does not check it, see
bot/dashboard/auth.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

CLIENT_ID = "1111111111.2222222222"
CLIENT_SECRET = "fake-client-secret-0123456789"
CODE_TTL_S = 600
TEAM_CLAIM = "https://slack.com/team_id"
USER_CLAIM = "https://slack.com/user_id"


@dataclass
class Person:
    user_id: str
    team_id: str
    name: str = "Ada Maintainer"


@dataclass
class _Code:
    person: Person
    client_id: str
    redirect_uri: str
    nonce: str | None
    issued: float
    used: bool = False


@dataclass
class FakeOpenID:
    team_id: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    person: Person | None = None          # who signs in at the authorize page; None: they press Cancel
    clock: callable = time.time
    authorize_requests: list[dict] = field(default_factory=list)
    _codes: dict[str, _Code] = field(default_factory=dict)
    _tokens: dict[str, Person] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        if self.person is None:
            self.person = Person("U0HUMAN01", self.team_id)

    def authorize(self, query: str) -> tuple[int, dict[str, str], bytes]:
        q = dict(parse_qsl(query))
        self.authorize_requests.append(q)
        redirect_uri = q.get("redirect_uri", "")
        if q.get("client_id") != self.client_id or not urlsplit(redirect_uri).scheme:
            return 400, {"Content-Type": "text/plain"}, b"invalid client_id or redirect_uri"
        if q.get("response_type") != "code" or "openid" not in q.get("scope", "").replace(",", " ").split():
            return 400, {"Content-Type": "text/plain"}, b"invalid response_type or scope"
        back = {"state": q["state"]} if "state" in q else {}
        if self.person is None:
            back["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(16)
            with self._lock:
                self._codes[code] = _Code(self.person, q["client_id"], redirect_uri, q.get("nonce"), self.clock())
            back["code"] = code
        sep = "&" if "?" in redirect_uri else "?"
        return 302, {"Location": redirect_uri + sep + urlencode(back), "Content-Type": "text/plain"}, b""

    def token(self, params: dict, headers: dict[str, str]) -> dict:
        client_id, client_secret = _basic(headers.get("authorization", "")) or (
            params.get("client_id"), params.get("client_secret"))
        if client_id != self.client_id or not hmac.compare_digest(str(client_secret or ""), self.client_secret):
            return {"ok": False, "error": "invalid_client_id" if client_id != self.client_id else "bad_client_secret"}
        with self._lock:
            grant = self._codes.get(params.get("code", ""))
            if grant is None or grant.used or self.clock() - grant.issued > CODE_TTL_S:
                return {"ok": False, "error": "invalid_code"}
            grant.used = True
        if params.get("redirect_uri") != grant.redirect_uri:
            return {"ok": False, "error": "bad_redirect_uri"}
        access = "xoxp-fake-" + secrets.token_hex(8)
        with self._lock:
            self._tokens[access] = grant.person
        now = int(self.clock())
        claims = {"iss": "https://slack.com", "sub": grant.person.user_id, "aud": self.client_id,
                  "exp": now + 3600, "iat": now, "auth_time": now, "nonce": grant.nonce,
                  TEAM_CLAIM: grant.person.team_id, USER_CLAIM: grant.person.user_id, "name": grant.person.name}
        return {"ok": True, "access_token": access, "token_type": "Bearer", "id_token": self.jwt(claims)}

    def userinfo(self, token: str | None) -> dict:
        person = self._tokens.get(token or "")
        if person is None:
            return {"ok": False, "error": "invalid_auth"}
        return {"ok": True, "sub": person.user_id, USER_CLAIM: person.user_id, TEAM_CLAIM: person.team_id,
                "name": person.name, "https://slack.com/team_name": "Fake " + person.team_id}

    def jwt(self, claims: dict) -> str:
        def part(obj) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

        head = part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims)
        sig = hmac.new(self.client_secret.encode(), head.encode(), hashlib.sha256).digest()
        return head + "." + base64.urlsafe_b64encode(sig).rstrip(b"=").decode()


def _basic(header: str) -> tuple[str, str] | None:
    if not header.lower().startswith("basic "):
        return None
    try:
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    except ValueError:
        return None
    return user, password
