"""What a package index serves, read for the two indexes' builds and updates: a project's releases
and files (the JSON form of the simple API, PEP 691 and 700, as pip reads it), a wheel's METADATA
(the `.metadata` file beside it, PEP 658) and members of a wheel, never the whole wheel.

A wheel is a zip whose table of contents is at its end, and PyPI's file host answers HTTP range
requests (pip's lazy wheels rely on the same): `RemoteZip` is a zipfile.ZipFile over such a file.
It reads the table, then only the members it is asked for, in a few large ranges rather than one
request each, and keeps what it fetched. Every member is checked against its CRC: zipfile checks
one read whole, `save` one streamed to disk (a shared library of hundreds of MB). A server that
ignores `Range` sends the whole file, which works too, only slower: it is spooled to a temporary
file, never held in memory.

`Transfer` makes the requests: one kept-alive connection per host (http.client), through the
proxy $https_proxy / $http_proxy name (as urllib reads them, $no_proxy too), redirects followed,
every request and byte counted (the figures the commands print), and every way a server can fail
turned into `Unavailable`, said in one line. With `retries` a request is tried again after a
connection error or a 5xx (the stack's build makes thousands); the bot's watch asks once and tries
again next hour. Standard library and packaging only; nothing here runs at diagnosis.

    VLLM_DOCTOR_PYPI_URL   the package index, its simple API as pip's --index-url takes it (default
                           https://pypi.org/simple; the tests point it at loopback). A URL whose
                           last part is /pypi, the JSON API's base asked before, means its /simple.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import re
import struct
import tempfile
import time
import urllib.request
import zipfile
import zlib
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion, Version

PYPI_URL_ENV = "VLLM_DOCTOR_PYPI_URL"
DEFAULT_PYPI_URL = "https://pypi.org/simple"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
USER_AGENT = "vllm-doctor (index update, index build-stack)"
TIMEOUT_S = 60.0
TAIL = 64 << 10           # read from a wheel's end first: the end record, often the whole table of contents
READ_AHEAD = 64 << 10     # the least a range request fetches: zipfile reads in small pieces
GAP = 64 << 10            # wanted members closer than this are fetched in one range
CHUNK = 1 << 20


class Unavailable(Exception):
    """The index (or its file host) could not be reached or answered badly; str() says how, in one
    line. `status`: the HTTP status it answered with, if it answered."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def base_url() -> str:
    url = (os.environ.get(PYPI_URL_ENV) or DEFAULT_PYPI_URL).rstrip("/")
    return url[: -len("/pypi")] + "/simple" if url.endswith("/pypi") else url


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


# --- requests --------------------------------------------------------------------------------------

class Response:
    """An answer being read: `status`, `headers` (lower-case names), read(n) counted as it comes."""

    def __init__(self, transfer: "Transfer", resp: http.client.HTTPResponse, url: str):
        self.transfer, self._resp, self.url = transfer, resp, url
        self.status, self.reason = resp.status, resp.reason
        self.headers = {k.lower(): v for k, v in resp.getheaders()}

    def read(self, n: int | None = None) -> bytes:
        try:
            data = self._resp.read(n) if n is not None else self._resp.read()
        except (http.client.HTTPException, OSError) as e:
            raise Unavailable(f"{_host(self.url)} broke off an answer ({e})") from None
        self.transfer.bytes += len(data)
        return data

    def chunks(self):
        while chunk := self.read(CHUNK):
            yield chunk


class Transfer:
    """HTTP GETs over kept-alive connections, counted, every failure an Unavailable."""

    def __init__(self, timeout: float = TIMEOUT_S, retries: int = 0, pause_s: float = 1.0):
        """retries: how many times a request is tried again, pause_s × its number seconds later."""
        self.timeout, self.retries, self.pause_s = timeout, retries, pause_s
        self.bytes = 0
        self.requests = 0
        self._conns: dict[tuple[str, str], tuple[http.client.HTTPConnection, bool, dict]] = {}

    def _connection(self, scheme: str, netloc: str) -> tuple[http.client.HTTPConnection, bool, dict]:
        """(a connection to the host; whether a request on it names the whole URL, as a plain proxy
        wants; the headers the proxy wants)."""
        key = (scheme, netloc)
        if key in self._conns:
            return self._conns[key]
        host = urlsplit(f"//{netloc}").hostname or netloc
        proxy = urllib.request.getproxies().get(scheme)
        if proxy and urllib.request.proxy_bypass(host):
            proxy = None
        kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        if not proxy:
            made = kind(netloc, timeout=self.timeout), False, {}
        else:
            p = urlsplit(proxy if "//" in proxy else f"http://{proxy}")
            auth = {}
            if p.username:
                login = f"{unquote(p.username)}:{unquote(p.password or '')}".encode()
                auth = {"Proxy-Authorization": "Basic " + base64.b64encode(login).decode()}
            conn = kind(p.hostname, p.port or 80, timeout=self.timeout)
            if scheme == "https":       # a CONNECT tunnel through the proxy, TLS with the host itself
                conn.set_tunnel(netloc, headers=auth)
                made = conn, False, {}
            else:
                made = conn, True, auth
        self._conns[key] = made
        return made

    def _drop(self, scheme: str, netloc: str) -> None:
        made = self._conns.pop((scheme, netloc), None)
        if made is not None:
            made[0].close()

    def _answer(self, url: str, headers: dict) -> Response:
        """The response to one GET, tried again after a connection error or a 5xx `retries` times,
        and once more on a new connection when a kept-alive one turns out closed."""
        parts = urlsplit(url)
        attempt = 0
        while True:
            fresh = (parts.scheme, parts.netloc) not in self._conns
            conn, whole_url, proxy_headers = self._connection(parts.scheme, parts.netloc)
            target = url if whole_url else (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            try:
                conn.request("GET", target, headers={**headers, **proxy_headers})
                resp = conn.getresponse()
            except (http.client.HTTPException, OSError) as e:
                self._drop(parts.scheme, parts.netloc)
                if not fresh:               # the host closed a kept-alive connection: not a failure
                    continue
                if attempt < self.retries:
                    attempt += 1
                    time.sleep(self.pause_s * attempt)
                    continue
                raise Unavailable(f"{_host(url)} could not be reached ({getattr(e, 'reason', None) or e})") from None
            self.requests += 1
            answer = Response(self, resp, url)
            if resp.status >= 500 and attempt < self.retries:
                answer.read()
                attempt += 1
                time.sleep(self.pause_s * attempt)
                continue
            return answer

    @contextlib.contextmanager
    def open(self, url: str, headers: dict | None = None, byte_range: tuple[int, int] | None = None,
             hops: int = 5):
        """A Response to a GET (of bytes first..last, inclusive, when given), redirects followed;
        an answer of 400 or more raises Unavailable."""
        hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
        if byte_range:
            hdrs["Range"] = f"bytes={byte_range[0]}-{byte_range[1]}"
        answer = self._answer(url, hdrs)
        location = answer.headers.get("location")
        if answer.status in (301, 302, 303, 307, 308) and location and hops:
            answer.read()
            with self.open(urljoin(url, location), headers, byte_range, hops - 1) as r:
                yield r
            return
        if answer.status >= 400:
            answer.read()
            raise Unavailable(f"{_host(url)} answered {answer.status} {answer.reason}", answer.status)
        try:
            yield answer
            answer.read()               # what the reader left: the connection serves the next request
        except BaseException:
            parts = urlsplit(url)
            self._drop(parts.scheme, parts.netloc)
            raise

    def get(self, url: str, headers: dict | None = None, byte_range: tuple[int, int] | None = None
            ) -> tuple[int, bytes]:
        """(status, body) of a GET."""
        with self.open(url, headers, byte_range) as r:
            return r.status, r.read()

    def json(self, url: str, accept: str = "application/json"):
        _, body = self.get(url, {"Accept": accept})
        try:
            return json.loads(body)
        except ValueError:
            raise Unavailable(f"{_host(url)} did not answer {url} with JSON") from None


# --- a wheel's members, through ranges ---------------------------------------------------------------

class RangeFile:
    """A read-only, seekable file over HTTP range requests (what zipfile needs); what it fetched it
    keeps. A server that answers a range with the whole file: the file is spooled to disk and read
    from there."""

    def __init__(self, transfer: Transfer, url: str, size: int):
        self.transfer, self.url, self.size = transfer, url, size
        self.pos = 0
        self.whole = None                                   # the spooled file, once the server sent it all
        self._chunks: list[tuple[int, bytes]] = []          # (start, data): the ranges fetched

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def spool(self, response: Response) -> None:
        """Keep a whole file the server sent."""
        self.whole = tempfile.TemporaryFile()
        for chunk in response.chunks():
            self.whole.write(chunk)
        self.size = self.whole.tell()
        self._chunks = []

    def fetch(self, first: int, last: int) -> None:
        """Fetch bytes first..last (inclusive), unless the whole file is here already."""
        if self.whole is not None:
            return
        first, last = max(0, first), min(self.size - 1, last)
        with self.transfer.open(self.url, byte_range=(first, last)) as r:
            if r.status != 206:                 # the range was ignored: this is the whole file
                self.spool(r)
                return
            body = r.read()
        if len(body) != last - first + 1:
            raise Unavailable(f"{_host(self.url)} did not send bytes {first}-{last} of {self.url.rsplit('/', 1)[-1]}")
        self._chunks.append((first, body))

    def held(self, pos: int, n: int) -> bytes | None:
        if self.whole is not None:
            self.whole.seek(pos)
            return self.whole.read(n)
        for start, data in self._chunks:
            if start <= pos and pos + n <= start + len(data):
                return data[pos - start: pos - start + n]
        return None

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.size - self.pos
        n = min(n, self.size - self.pos)
        if n <= 0:
            return b""
        data = self.held(self.pos, n)
        if data is None:
            self.fetch(self.pos, self.pos + max(n, READ_AHEAD) - 1)
            data = self.held(self.pos, n)
        self.pos += len(data)
        return data


class RemoteZip(zipfile.ZipFile):
    """A wheel on an index read as a zip, member by member, without downloading the rest. A member
    that comes back damaged (its CRC, its header) raises Unavailable, as a failing server does."""

    def __init__(self, transfer: Transfer, url: str, size: int, filename: str | None = None):
        self.filename_on_index = filename or url.rsplit("/", 1)[-1]
        self.remote = RangeFile(transfer, url, size)
        if size:
            self.remote.fetch(max(0, size - TAIL), size - 1)
        else:                                   # no size given: the whole file
            with transfer.open(url) as r:
                self.remote.spool(r)
        try:
            super().__init__(self.remote)
        except (zipfile.BadZipFile, OSError, EOFError, struct.error) as e:
            raise Unavailable(f"{self.filename_on_index}'s zip directory cannot be read ({e})") from None

    def _damaged(self, e: Exception) -> Unavailable:
        return Unavailable(f"{self.filename_on_index} came back damaged ({e})")

    def prefetch(self, names) -> None:
        """Fetch the wanted members in as few ranges as their places in the file allow: a member
        runs from its local header to the next member's (or the table of contents)."""
        wanted = set(names)
        infos = sorted(self.infolist(), key=lambda i: i.header_offset)
        spans: list[list[int]] = []
        for info, nxt in zip(infos, [*infos[1:], None]):
            if info.filename not in wanted:
                continue
            end = nxt.header_offset if nxt else self.start_dir
            if spans and info.header_offset - spans[-1][1] <= GAP:
                spans[-1][1] = end
            else:
                spans.append([info.header_offset, end])
        for first, end in spans:
            if end > first and self.remote.held(first, end - first) is None:
                self.remote.fetch(first, end - 1)

    def read(self, name, pwd=None) -> bytes:
        try:
            return super().read(name, pwd)
        except (zipfile.BadZipFile, zlib.error, EOFError) as e:
            raise self._damaged(e) from None

    def texts(self, names) -> dict[str, str]:
        """{name: text} of the members, fetched together."""
        names = list(names)
        self.prefetch(names)
        return {n: self.read(n).decode("utf-8", "replace") for n in names}

    def copy(self, names, out: Path) -> Path:
        """A small zip of these members at `out` (the members as they are, each checked), written
        whole or not at all."""
        names = list(names)
        self.prefetch(names)
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            small = Path(tmp) / out.name
            with zipfile.ZipFile(small, "w", zipfile.ZIP_DEFLATED) as o:
                for name in names:
                    o.writestr(self.getinfo(name), self.read(name))
            os.replace(small, out)
        return out

    def save(self, name: str, dest: Path) -> Path:
        """One member written to `dest`, streamed and inflated as it arrives (a library can be larger
        than one wants in memory), checked against its size and CRC."""
        info = self.getinfo(name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if self.remote.whole is None:
            self.remote.seek(info.header_offset)
            header = self.remote.read(30)
            if header[:4] != b"PK\x03\x04":
                raise self._damaged(f"no local header for {name}")
            # the local header: 30 fixed bytes, then the name and an extra field of their own lengths
            start = info.header_offset + 30 + struct.unpack("<H", header[26:28])[0] + struct.unpack("<H", header[28:30])[0]
            with self.remote.transfer.open(self.remote.url, byte_range=(start, start + info.compress_size - 1)) as r:
                if r.status == 206:
                    return self._inflate(info, r.chunks(), dest)
                self.remote.spool(r)
        with self.open(info) as member:       # the whole file is here: zipfile reads and checks it
            try:
                return self._inflate(info, iter(lambda: member.read(CHUNK), b""), dest, inflated=True)
            except (zipfile.BadZipFile, zlib.error, EOFError) as e:
                raise self._damaged(e) from None

    def _inflate(self, info: zipfile.ZipInfo, chunks, dest: Path, inflated: bool = False) -> Path:
        inflate = None if inflated or info.compress_type == zipfile.ZIP_STORED else zlib.decompressobj(-15)
        crc = size = 0
        with open(dest, "wb") as out:
            for chunk in chunks:
                data = inflate.decompress(chunk) if inflate else chunk
                out.write(data)
                crc, size = zlib.crc32(data, crc), size + len(data)
            if inflate:
                data = inflate.flush()
                out.write(data)
                crc, size = zlib.crc32(data, crc), size + len(data)
        if (size, crc) != (info.file_size, info.CRC):
            dest.unlink()
            raise self._damaged(f"{info.filename}: {size} bytes of {info.file_size}, CRC {crc:08x} not {info.CRC:08x}")
        return dest


# --- what the index lists ---------------------------------------------------------------------------

def file_version(filename: str) -> Version | None:
    """The version of a wheel or sdist file name."""
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        m = re.match(r"^(.+?)-(\d[^-]*)\.(?:tar\.gz|zip|tar\.bz2)$", filename)
        return Version(m.group(2)) if m else None
    except (InvalidVersion, ValueError):
        return None


class PyPI:
    """A package index's projects (the JSON simple API), a release's wheels and what is in them."""

    def __init__(self, transfer: Transfer | None = None, url: str | None = None):
        self.transfer = transfer or Transfer()
        self.url = (url or base_url()).rstrip("/")
        self._projects: dict[str, dict] = {}

    def page(self, name: str) -> str:
        return f"{self.url}/{name}/"

    def ask(self, name: str) -> dict:
        """The index's answer for a project, as it sent it."""
        data = self.transfer.json(self.page(name), SIMPLE_JSON)
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise Unavailable(f"{_host(self.url)} did not answer with the simple API's JSON for {name}")
        return data

    def project(self, name: str) -> dict:
        """{"versions": [...], "files": [{filename, url, size, upload-time, yanked, ...}]} of a project,
        asked once per PyPI; relative URLs made absolute."""
        if name not in self._projects:
            data = self.ask(name)
            page = self.page(name)
            files = [{**f, "url": urljoin(page, f["url"])} for f in data["files"] if f.get("filename") and f.get("url")]
            versions = data.get("versions") or sorted({str(v) for f in files if (v := file_version(f["filename"]))})
            self._projects[name] = {**data, "versions": versions, "files": files}
        return self._projects[name]

    def releases(self, name: str, since: str | None = None, until: str | None = None) -> list[str]:
        """Final releases (no pre-release or dev) with at least one file not yanked, ascending, as
        `pip index versions` lists them."""
        data = self.project(name)
        live = {file_version(f["filename"]) for f in data["files"] if not f.get("yanked")}
        out = []
        for v in data["versions"]:
            try:
                pv = Version(v)
            except InvalidVersion:
                continue
            if pv.is_prerelease or pv.is_devrelease or pv not in live:
                continue
            if since and pv < Version(since) or until and pv > Version(until):
                continue
            out.append(v)
        return sorted(out, key=Version)

    def wheel(self, name: str, version: str, prefer=("manylinux", "x86_64"), smallest: bool = False,
              python: str | None = "cp311") -> dict | None:
        """One wheel of a release: a Linux x86_64 one when there is (its METADATA is the one a GPU
        server installs; the Python sources are the same in every platform's wheel), a `python`
        one among several (torch has one per Python), else any, by file name; with smallest, the
        smallest file."""
        wheels = [f for f in self.project(name)["files"]
                  if f["filename"].endswith(".whl") and not f.get("yanked") and file_version(f["filename"]) == Version(version)]
        if not wheels:
            return None
        if smallest:
            return min(wheels, key=lambda f: (f.get("size") or 0, f["filename"]))
        return min(wheels, key=lambda f: (not all(p in f["filename"] for p in prefer),
                                          python is not None and python not in f["filename"], f["filename"]))

    def remote(self, wheel: dict) -> RemoteZip:
        return RemoteZip(self.transfer, wheel["url"], int(wheel.get("size") or 0), wheel["filename"])

    def metadata(self, wheel: dict) -> str:
        """The wheel's METADATA: the `.metadata` file the index serves beside it, else read from the wheel."""
        try:
            return self.transfer.get(wheel["url"] + ".metadata")[1].decode("utf-8", "replace")
        except Unavailable as e:
            if e.status is None:
                raise
        z = self.remote(wheel)
        name = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        return z.texts([name])[name] if name else ""
