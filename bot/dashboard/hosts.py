"""Which Host a request to the dashboard may name, and which Origin a POST may come from.

A dashboard on loopback is open to whoever reaches it there, and so to any web page a maintainer's
browser opens: DNS rebinding points a name the attacker controls (`evil.example.com`) at 127.0.0.1,
and the page's script then reads the dashboard as `evil.example.com`, same-origin. The one thing
such a request cannot hide is its Host header, so only the addresses the dashboard is configured
with are answered: the loopback names, the address it was bound to, and the host of DASHBOARD_URL
(what a reverse proxy passes on). The port is not compared: `ssh -L 9000:127.0.0.1:8090` makes the
browser say `localhost:9000`. A POST (sign-out) must also come from a page of one of those hosts.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
ANY_ADDRESS = frozenset({"", "0.0.0.0", "::"})


def hostname(authority: str) -> str:
    """`Example.COM:8090` → `example.com`, `[::1]:8090` → `::1`; '' when it cannot be read."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    if authority.count(":") > 1:          # a bare IPv6 address
        return authority
    return authority.split(":", 1)[0].rstrip(".")


def configured(bound: str | None = None, public_url: str | None = None, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names to answer: loopback's, the bound address (unless it is every address), the
    public URL's, and `extra`."""
    names = set(LOOPBACK_NAMES) | {hostname(h) for h in extra}
    if bound is not None and hostname(bound) not in ANY_ADDRESS:
        names.add(hostname(bound))
    if public_url:
        names.add(hostname(urlsplit(public_url).netloc))
    return frozenset(names)


def is_loopback(host: str) -> bool:
    name = hostname(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def refusal(environ: dict, allowed: frozenset[str]) -> tuple[int, str] | None:
    """(status, reason) when the request names a host, or comes from an origin, the dashboard is
    not served as; None when it may be answered. A request without a Host (HTTP/1.0) is no
    browser's and passes."""
    host = environ.get("HTTP_HOST")
    if host is not None and hostname(host) not in allowed:
        return 421, f"this dashboard is not served as {hostname(host)[:80] or 'an unreadable host'}"
    if environ.get("REQUEST_METHOD", "GET").upper() not in ("GET", "HEAD"):
        origin = environ.get("HTTP_ORIGIN")
        if origin is not None and (origin == "null" or hostname(urlsplit(origin).netloc) not in allowed):
            return 403, "the form was sent from another site's page"
    return None
