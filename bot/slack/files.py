"""Fetching pasted log files from Slack.

A private file is served only with `Authorization: Bearer <bot token>`. Slack answers a request
it does not accept with a 200 and an HTML sign-in page, so the status alone proves nothing. The
token must never follow a redirect, and only go to the configured Slack file hosts.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

LOG_SUFFIXES = (".log", ".txt", ".out", ".err")
MAX_FILES_PER_MESSAGE = 3
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_HTML_STARTS = (b"<!doctype html", b"<html")


class FileRefused(Exception):
    """A file we will not or could not read; str() is a short reason for the user."""

    def __init__(self, why: str, name: str = "the file") -> None:
        super().__init__(why)
        self.name = name


class FileTooLarge(FileRefused):
    def __init__(self, name: str, size: int, limit: int) -> None:
        super().__init__(f"it is larger than {limit} bytes", name)
        self.size = size
        self.limit = limit


@dataclass
class FetchedFile:
    name: str
    data: bytes


def log_files(files: list[dict] | None) -> list[dict]:
    """The attachments that can hold a log: snippets, and .log/.txt (and kin) uploads."""
    chosen = []
    for f in files or []:
        name = (f.get("name") or f.get("title") or "").lower()
        if f.get("mode") == "snippet" or name.endswith(LOG_SUFFIXES) or f.get("filetype") in ("text", "log"):
            chosen.append(f)
    return chosen[:MAX_FILES_PER_MESSAGE]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # Returning None makes urllib raise HTTPError for the 3xx instead of following it.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def host_allowed(url: str, allowed_hosts: tuple[str, ...]) -> bool:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.lower().rsplit("@", 1)[-1]
    if parts.scheme != "https" and not (parts.scheme == "http" and host in _LOOPBACK):
        return False
    return netloc in allowed_hosts or (parts.port is None and host in allowed_hosts)


def fetch(file: dict, *, token: str, allowed_hosts: tuple[str, ...], max_bytes: int, timeout: float = 20.0) -> FetchedFile:
    name = file.get("name") or file.get("title") or file.get("id") or "file"
    size = file.get("size")
    if isinstance(size, int) and size > max_bytes:
        raise FileTooLarge(name, size, max_bytes)
    url = file.get("url_private_download") or file.get("url_private")
    if not url:
        raise FileRefused("Slack gave no download link for it", name)
    if not host_allowed(url, allowed_hosts):
        raise FileRefused(f"it is not on an allowed Slack file host ({urlsplit(url).netloc})", name)
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with _opener.open(request, timeout=timeout) as resp:
            content_type = resp.headers.get("Content-Type", "")
            data = resp.read(max_bytes + 1)
    except urllib.error.HTTPError as err:
        if 300 <= err.code < 400:
            raise FileRefused("Slack redirected the download, and the bot token never follows a redirect", name) from None
        raise FileRefused(f"Slack answered HTTP {err.code}", name) from None
    except (urllib.error.URLError, OSError) as err:
        raise FileRefused(f"the download failed ({getattr(err, 'reason', err)})", name) from None
    if len(data) > max_bytes:
        raise FileTooLarge(name, len(data), max_bytes)
    if "text/html" in content_type or data.lstrip()[:20].lower().startswith(_HTML_STARTS):
        raise FileRefused("Slack sent a sign-in page instead of the file (is the bot in this channel, "
                          "and does the app have the files:read scope?)", name)
    return FetchedFile(name=name, data=data)

