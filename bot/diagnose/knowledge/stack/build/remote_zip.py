"""HTTP for the build: PyPI's index, `.metadata` files, and byte ranges of wheels.

A wheel is a zip whose members can be read without downloading it: the central directory sits at
the end, and each member's offset and size are in it. files.pythonhosted.org answers HTTP Range
requests (pip's lazy wheels rely on the same), so reading `nvidia/nccl/include/nccl.h` out of a
350 MB wheel costs a few kilobytes. `RemoteZip` is a zipfile.ZipFile over such a file; `prefetch`
reads the members wanted in a few large ranges instead of one request each.

Every request is counted (`Http.stats`): the build reports how many it made and how many bytes.
Standard library only: one kept-alive connection per host (http.client).
"""

from __future__ import annotations

import http.client
import io
import json
import time
import urllib.parse
import zipfile

USER_AGENT = "vllm-doctor-stack-index (+https://pypi.org)"
RETRIES = 4
READ_AHEAD = 64 * 1024          # the least a range request fetches: zipfile reads in small pieces
MERGE_GAP = 512 * 1024          # wanted members closer than this are fetched in one range
TAIL = 64 * 1024                # the end of a wheel fetched first: the end record, often the whole central directory


class HttpError(OSError):
    def __init__(self, url: str, status: int):
        super().__init__(f"HTTP {status} for {url}")
        self.url, self.status = url, status


class Http:
    def __init__(self):
        self._conns: dict[str, http.client.HTTPSConnection] = {}
        self.stats = {"requests": 0, "bytes": 0}

    def get(self, url: str, headers: dict | None = None, byte_range: tuple[int, int] | None = None
            ) -> tuple[int, dict, bytes]:
        """(status, headers, body) of a GET; byte_range is (first, last), inclusive."""
        parts = urllib.parse.urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
        if byte_range:
            hdrs["Range"] = f"bytes={byte_range[0]}-{byte_range[1]}"
        for attempt in range(RETRIES):
            conn = self._conns.get(parts.netloc)
            if conn is None:
                conn = self._conns[parts.netloc] = http.client.HTTPSConnection(parts.netloc, timeout=120)
            try:
                conn.request("GET", path, headers=hdrs)
                resp = conn.getresponse()
                body = resp.read()
            except (http.client.HTTPException, OSError):
                conn.close()
                del self._conns[parts.netloc]
                if attempt == RETRIES - 1:
                    raise
                time.sleep(1 + attempt)
                continue
            self.stats["requests"] += 1
            self.stats["bytes"] += len(body)
            if resp.status in (301, 302, 303, 307, 308):
                return self.get(urllib.parse.urljoin(url, resp.getheader("Location")), headers, byte_range)
            if resp.status >= 500 and attempt < RETRIES - 1:
                time.sleep(1 + attempt)
                continue
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body
        raise HttpError(url, 0)

    def stream(self, url: str, first: int, last: int, sink) -> int:
        """Bytes first..last (inclusive) of a file, passed to sink(chunk) as they arrive, without
        holding them (a shared library of hundreds of MB); returns the bytes read."""
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPSConnection(parts.netloc, timeout=300)
        try:
            conn.request("GET", parts.path, headers={"User-Agent": USER_AGENT, "Range": f"bytes={first}-{last}"})
            resp = conn.getresponse()
            if resp.status != 206:
                raise HttpError(url, resp.status)
            n = 0
            while chunk := resp.read(1 << 20):
                sink(chunk)
                n += len(chunk)
        finally:
            conn.close()
        self.stats["requests"] += 1
        self.stats["bytes"] += n
        return n

    def fetch(self, url: str, headers: dict | None = None) -> bytes:
        status, _, body = self.get(url, headers)
        if status != 200:
            raise HttpError(url, status)
        return body

    def json(self, url: str, headers: dict | None = None):
        return json.loads(self.fetch(url, headers))


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over HTTP Range requests; what it fetched it keeps."""

    def __init__(self, http: Http, url: str, size: int):
        self.http, self.url, self.size = http, url, size
        self.pos = 0
        self._chunks: list[tuple[int, bytes]] = []         # (start, data), fetched ranges

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def fetch(self, first: int, last: int) -> None:
        """Fetch bytes first..last (inclusive) into the kept chunks."""
        first, last = max(0, first), min(self.size - 1, last)
        status, _, body = self.http.get(self.url, byte_range=(first, last))
        if status == 200:                   # the server ignored the range: it sent the whole file
            self._chunks = [(0, body)]
        elif status == 206:
            self._chunks.append((first, body))
        else:
            raise HttpError(self.url, status)

    def _held(self, pos: int, n: int) -> bytes | None:
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
        data = self._held(self.pos, n)
        if data is None:
            self.fetch(self.pos, self.pos + max(n, READ_AHEAD) - 1)
            data = self._held(self.pos, n)
        self.pos += len(data)
        return data

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


class RemoteZip(zipfile.ZipFile):
    """A wheel on PyPI read as a zip, member by member, without downloading the rest."""

    def __init__(self, http: Http, url: str, size: int):
        self.remote = RangeFile(http, url, size)
        # The central directory (and the end record) in one request: it is the last few percent.
        self.remote.fetch(max(0, size - TAIL), size - 1)
        super().__init__(self.remote)

    def prefetch(self, names) -> None:
        """Fetch the wanted members in as few ranges as their places in the file allow."""
        spans = []
        for name in names:
            info = self.getinfo(name)
            # local header: 30 bytes, the name, an extra field of unknown length (a little slack)
            spans.append((info.header_offset, info.header_offset + 30 + len(info.filename) + 1024 + info.compress_size))
        spans.sort()
        merged: list[list[int]] = []
        for first, last in spans:
            if merged and first - merged[-1][1] <= MERGE_GAP:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        for first, last in merged:
            if self.remote._held(first, min(last, self.remote.size - 1) - first + 1) is None:
                self.remote.fetch(first, last)

    def texts(self, names) -> dict[str, str]:
        """{name: text} of the members, fetched together."""
        names = list(names)
        self.prefetch(names)
        return {n: self.read(n).decode("utf-8", "replace") for n in names}
