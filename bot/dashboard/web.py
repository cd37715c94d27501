"""The little of HTTP the dashboard needs, on plain WSGI: a request, a response, a mount.

Everything the pages send goes through `Response`, which adds the security headers: a Content
Security Policy that allows nothing but this site's own stylesheet and forms (no script at all:
the pages work without JavaScript, and an injected <script> would not run), no framing, no
sniffing, no referrer (a sign-in callback URL carries a code), and no caching of pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, quote

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]

SECURITY_HEADERS = [
    ("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                "base-uri 'none'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
]
MAX_QUERY_CHARS = 8192


class Request:
    def __init__(self, environ: dict):
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET").upper()
        # PATH_INFO is latin-1-decoded bytes (PEP 3333); re-decode as UTF-8 for rule ids and the like.
        raw = environ.get("PATH_INFO", "") or "/"
        self.path = raw.encode("latin-1", "replace").decode("utf-8", "replace")
        self.root = environ.get("SCRIPT_NAME", "").rstrip("/")
        query = environ.get("QUERY_STRING", "")[:MAX_QUERY_CHARS]
        self.query = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        self.cookies = _cookies(environ.get("HTTP_COOKIE", ""))

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, default)

    def url(self, path: str = "/") -> str:
        """An absolute path under this app's mount point."""
        return self.root + path

    @property
    def full_path(self) -> str:
        query = self.environ.get("QUERY_STRING", "")
        return quote(self.root + self.path, safe="/") + ("?" + query if query else "")


@dataclass
class Response:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    cache: str = "no-store"

    def set_cookie(self, name: str, value: str, *, path: str, max_age: int | None = None, secure: bool = False) -> None:
        """A cookie scripts cannot read (HttpOnly) and other sites' pages do not send (SameSite=Lax:
        it still comes with the top-level redirect back from Slack's sign-in)."""
        parts = [f"{name}={value}", f"Path={path or '/'}", "HttpOnly", "SameSite=Lax"]
        if max_age is not None:
            parts.append(f"Max-Age={max_age}")
        if secure:
            parts.append("Secure")
        self.headers.append(("Set-Cookie", "; ".join(parts)))

    def delete_cookie(self, name: str, *, path: str, secure: bool = False) -> None:
        self.set_cookie(name, "", path=path, max_age=0, secure=secure)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        body = self.body.encode("utf-8") if isinstance(self.body, str) else self.body
        headers = [("Content-Type", self.content_type), ("Content-Length", str(len(body))),
                   ("Cache-Control", self.cache), *SECURITY_HEADERS, *self.headers]
        start_response(f"{self.status} {HTTPStatus(self.status).phrase}", headers)
        return [b"" if environ.get("REQUEST_METHOD") == "HEAD" else body]


def redirect(location: str, status: int = 303) -> Response:
    return Response(b"", status=status, content_type="text/plain; charset=utf-8", headers=[("Location", location)])


def mount(prefix: str, app: WSGIApp, fallback: WSGIApp) -> WSGIApp:
    """Serve `app` under `prefix` (moved from PATH_INFO to SCRIPT_NAME, as WSGI mounts do), and
    everything else with `fallback`."""
    prefix = prefix.rstrip("/")

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == prefix or path.startswith(prefix + "/"):
            environ = {**environ, "SCRIPT_NAME": environ.get("SCRIPT_NAME", "") + prefix,
                       "PATH_INFO": path[len(prefix):]}
            return app(environ, start_response)
        return fallback(environ, start_response)

    return application


def _cookies(header: str) -> dict[str, str]:
    cookie = SimpleCookie()
    try:
        cookie.load(header)
    except CookieError:
        return {}
    return {k: m.value for k, m in cookie.items()}
