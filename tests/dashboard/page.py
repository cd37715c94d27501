"""Reading the dashboard's HTML in tests: an HTTP client that keeps cookies and does not follow
redirects, and the text of elements found by their data-* attributes (what the pages mark for
machines and screen readers alike)."""

from __future__ import annotations

import http.cookiejar
import urllib.error
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser


@dataclass
class Reply:
    status: int
    headers: object
    body: str

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def cookies(self) -> list[str]:
        return self.headers.get_all("Set-Cookie") or []


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """urllib with a cookie jar; redirects are returned, not followed, unless follow=True."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self._plain = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect)
        self._following = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, url: str, *, follow: bool = False, method: str = "GET", data: bytes | None = None) -> Reply:
        request = urllib.request.Request(url, method=method, data=data)
        try:
            with (self._following if follow else self._plain).open(request, timeout=30) as resp:
                return Reply(resp.status, resp.headers, resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            return Reply(e.code, e.headers, e.read().decode("utf-8", "replace"))

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)


class _Marked(HTMLParser):
    """Collects the text of every element carrying `attr`, keyed by its value, inside rows that
    carry `row_attr` (when given)."""

    def __init__(self, attr: str, row_attr: str | None):
        super().__init__(convert_charrefs=True)
        self.attr, self.row_attr = attr, row_attr
        self.found: dict = {}
        self._row = None
        self._open: list[tuple[str, str, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.row_attr and self.row_attr in attrs:
            self._row = attrs[self.row_attr]
        if self.attr in attrs:
            self._open.append((tag, attrs[self.attr], []))

    def handle_endtag(self, tag):
        if self._open and self._open[-1][0] == tag:
            _, key, text = self._open.pop()
            value = " ".join("".join(text).split())
            if self.row_attr:
                self.found.setdefault(self._row, {})[key] = value
            else:
                self.found[key] = value

    def handle_data(self, data):
        for _, _, text in self._open:
            text.append(data)


def marked(html: str, attr: str, row_attr: str | None = None) -> dict:
    parser = _Marked(attr, row_attr)
    parser.feed(html)
    return parser.found


def row_order(html: str, row_attr: str) -> list[str]:
    parser = _Marked(row_attr, None)
    parser.feed(html)
    return list(parser.found)
