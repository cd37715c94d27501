"""The releases of vLLM that PyPI serves, and the Python sources of one release's wheel.

PyPI's JSON API (`/pypi/vllm/json`) lists every release with its files, sizes and upload times.
A vLLM wheel is a few hundred MB, almost all compiled kernels; the index reads only its
`vllm/**/*.py` files and METADATA (about 6 % of it). A wheel is a zip whose table of contents is at
its end, and PyPI's file host answers HTTP range requests, so `fetch_sources` reads the table,
then only the byte ranges of the members it wants, and writes them as a small wheel of their
own (each member checked against its CRC by zipfile). A server that ignores `Range` sends the
whole file, which works too, only slower. Standard library only; nothing here runs at diagnosis.

    VLLM_DOCTOR_PYPI_URL   the JSON API's base (default https://pypi.org/pypi; tests point it at loopback)
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin, urlsplit

from packaging.version import InvalidVersion, Version

PYPI_URL_ENV = "VLLM_DOCTOR_PYPI_URL"
DEFAULT_PYPI_URL = "https://pypi.org/pypi"
TIMEOUT_S = 60.0
TAIL = 1 << 20            # bytes read from a wheel's end first: its table of contents is usually inside
GAP = 64 << 10            # members closer than this are read in one request (fewer round trips)
_EOCD = b"PK\x05\x06"


class Unavailable(Exception):
    """PyPI (or the file host) could not be reached or answered badly; str() says how, in one line."""


@dataclass(frozen=True)
class Release:
    version: str
    url: str              # the wheel
    filename: str
    size: int
    uploaded: str         # ISO 8601, from PyPI


def base_url() -> str:
    return (os.environ.get(PYPI_URL_ENV) or DEFAULT_PYPI_URL).rstrip("/")


class Transfer:
    """HTTP GETs that count the bytes received (the figures `index update` prints) and turn every
    way a server can fail into Unavailable."""

    def __init__(self, timeout: float = TIMEOUT_S):
        self.timeout = timeout
        self.bytes = 0
        self.requests = 0

    def get(self, url: str, start: int | None = None, end: int | None = None, into=None) -> tuple[int, bytes]:
        """(status, body) of a GET, of bytes start..end (inclusive) when given. With `into` (a
        file) a body that is not the range asked for (status 200: the whole file) is copied
        there in pieces instead of being returned."""
        headers = {"User-Agent": "vllm-doctor (index update)"}
        if start is not None:
            headers["Range"] = f"bytes={start}-{end}"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=self.timeout) as r:
                self.requests += 1
                if into is not None and r.status != 206:
                    while chunk := r.read(1 << 20):
                        self.bytes += len(chunk)
                        into.write(chunk)
                    return r.status, b""
                body = r.read()
                self.bytes += len(body)
                return r.status, body
        except urllib.error.HTTPError as e:
            raise Unavailable(f"{_host(url)} answered {e.code} {e.reason}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise Unavailable(f"{_host(url)} could not be reached ({getattr(e, 'reason', e)})") from None


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def releases(transfer: Transfer, project: str = "vllm") -> list[Release]:
    """Every final release of the project PyPI serves with a wheel, oldest first (pre-releases,
    dev releases and yanked ones are left out, as `pip index versions` leaves them out)."""
    url = f"{base_url()}/{project}/json"
    _, body = transfer.get(url)
    try:
        data = json.loads(body)
        files_by_version = data["releases"]
    except (ValueError, KeyError, TypeError):
        raise Unavailable(f"{base_url()} did not answer with PyPI's JSON") from None
    out = []
    for version, files in files_by_version.items():
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        if parsed.is_prerelease or parsed.is_devrelease:
            continue
        wheels = [f for f in files if f.get("packagetype") == "bdist_wheel" and not f.get("yanked")
                  and f.get("filename", "").endswith(".whl")]
        if not wheels:
            continue
        # The Python sources are the same in every platform's wheel; x86_64 is the one always there.
        f = min(wheels, key=lambda f: ("x86_64" not in f["filename"], f["filename"]))
        out.append(Release(version, urljoin(url, f["url"]), f["filename"], int(f.get("size") or 0),
                           f.get("upload_time_iso_8601") or f.get("upload_time") or ""))
    return sorted(out, key=lambda r: Version(r.version))


def fetch_sources(release: Release, out: Path, wanted: Callable[[str], bool], transfer: Transfer) -> Path:
    """`out`: a small zip of the members of the release's wheel that `wanted` accepts (and its
    METADATA), read with range requests; written whole or not at all."""
    keep = lambda name: wanted(name) or name.endswith(".dist-info/METADATA")    # noqa: E731
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        sparse, small = Path(tmp) / "wheel", Path(tmp) / "sources.zip"
        with open(sparse, "wb") as f:
            _fill(release, f, keep, transfer)
        try:
            with zipfile.ZipFile(sparse) as z, zipfile.ZipFile(small, "w", zipfile.ZIP_DEFLATED) as o:
                for info in z.infolist():
                    if keep(info.filename):
                        o.writestr(info, z.read(info))      # zipfile checks each member's CRC
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise Unavailable(f"{release.filename} came back damaged ({e})") from None
        os.replace(small, out)
    return out


def _fill(release: Release, f, keep: Callable[[str], bool], transfer: Transfer) -> None:
    """Write the wheel's table of contents and the wanted members at their offsets in `f` (a
    sparse file of the wheel's size: the holes are never read), or the whole wheel when the
    server does not answer ranges."""
    size = release.size
    if not size:                        # PyPI always says; without it, read it all
        transfer.get(release.url, into=f)
        return
    start = max(0, size - TAIL)
    status, tail = transfer.get(release.url, start, size - 1, into=f)
    if status != 206:                   # the server ignored the range: `f` holds the whole wheel
        return
    f.truncate(size)
    f.seek(start)
    f.write(tail)
    at = tail.rfind(_EOCD)
    if at < 0 or at + 22 > len(tail):
        raise Unavailable(f"{release.filename} has no zip directory at its end")
    cd_offset = struct.unpack("<L", tail[at + 16: at + 20])[0]
    if cd_offset < start:               # a table longer than the tail read
        _, head = transfer.get(release.url, cd_offset, start - 1)
        f.seek(cd_offset)
        f.write(head)
    f.flush()
    try:
        with zipfile.ZipFile(f.name) as z:
            infos = sorted(z.infolist(), key=lambda i: i.header_offset)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise Unavailable(f"{release.filename}'s zip directory cannot be read ({e})") from None
    # each member's bytes run from its local header to the next member's (or the table)
    spans = []
    for info, nxt in zip(infos, [*infos[1:], None]):
        if keep(info.filename):
            end = nxt.header_offset if nxt else cd_offset
            if spans and info.header_offset - spans[-1][1] <= GAP:
                spans[-1][1] = end
            else:
                spans.append([info.header_offset, end])
    for a, b in spans:
        status, body = transfer.get(release.url, a, b - 1)
        if status != 206 or len(body) != b - a:
            raise Unavailable(f"{_host(release.url)} did not send bytes {a}-{b - 1} of {release.filename}")
        f.seek(a)
        f.write(body)
