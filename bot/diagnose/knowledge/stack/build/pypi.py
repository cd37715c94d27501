"""What PyPI serves: a project's releases and files (the JSON simple API, PEP 691), a wheel's
METADATA (the `.metadata` file beside it, PEP 658, or the member of the wheel itself) and members
of a wheel read remotely (http.RemoteZip).

Files on PyPI never change, so what is read from one (METADATA, a wheel's facts) is cached under
the build's cache folder by file name; the list of releases is asked for again on every build
(a new release is the point of a rebuild) unless the build runs offline.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import struct
import zipfile
import zlib
from pathlib import Path

from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion, Version

from .remote_zip import Http, HttpError, RemoteZip

SIMPLE = "https://pypi.org/simple/{}/"
SIMPLE_JSON = {"Accept": "application/vnd.pypi.simple.v1+json"}


class PyPI:
    def __init__(self, cache: Path, offline: bool = False):
        self.cache, self.offline = cache, offline
        self.http = Http()
        self._projects: dict[str, dict] = {}

    # --- cache ------------------------------------------------------------------------------------

    def _cached(self, kind: str, key: str) -> Path:
        return self.cache / kind / re.sub(r"[^\w.+-]", "_", key)

    def _write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)

    def memo(self, kind: str, key: str, make, compress: bool = False):
        """A JSON value cached by (kind, key): `make()` runs only when the cache lacks it. The value
        is always the one read back from the cache's text, so a first build and a rebuild from
        the cache give the same data, key order included. compress: gzip it (sources)."""
        path = self._cached(kind, key + (".json.gz" if compress else ".json"))
        if not path.exists():
            text = json.dumps(make(), sort_keys=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_bytes(gzip.compress(text.encode(), mtime=0) if compress else text.encode())
            os.replace(tmp, path)
        raw = path.read_bytes()
        return json.loads(gzip.decompress(raw) if compress else raw)

    def prune(self, prefix: str, current: str) -> None:
        """Remove cached kinds of facts that older scanners made (`prefix*` other than `current`)."""
        import shutil
        if self.cache.is_dir():
            for d in self.cache.iterdir():
                if d.is_dir() and d.name.startswith(prefix) and d.name != current:
                    shutil.rmtree(d)

    # --- projects ---------------------------------------------------------------------------------

    def project(self, name: str) -> dict:
        """{"versions": [...], "files": [{filename, url, size, ...}]} of a project."""
        if name not in self._projects:
            path = self._cached("simple", name + ".json")
            if self.offline and path.exists():
                data = json.loads(path.read_text())
            else:
                data = self.http.json(SIMPLE.format(name), SIMPLE_JSON)
                self._write(path, json.dumps(data))
            self._projects[name] = data
        return self._projects[name]

    def releases(self, name: str, since: str | None = None, until: str | None = None) -> list[str]:
        """Final releases (no pre-release or dev) with at least one file not yanked, ascending."""
        data = self.project(name)
        live = set()
        for f in data["files"]:
            if not f.get("yanked"):
                v = file_version(f["filename"])
                if v is not None:
                    live.add(v)
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

    def wheel(self, name: str, version: str, prefer=("manylinux", "x86_64"), smallest: bool = False) -> dict | None:
        """One wheel of a release: a Linux x86_64 one when there is (its METADATA is the one a
        GPU server installs), else any; with smallest, the smallest file (its Python files are
        the same on every platform)."""
        wheels = [f for f in self.project(name)["files"]
                  if f["filename"].endswith(".whl") and not f.get("yanked") and file_version(f["filename"]) == Version(version)]
        if not wheels:
            return None
        if smallest:
            return min(wheels, key=lambda f: (f["size"], f["filename"]))
        # a CPython 3.11 wheel when there are several (torch has one per Python)
        return min(wheels, key=lambda f: (not all(p in f["filename"] for p in prefer), "cp311" not in f["filename"],
                                          f["filename"]))

    # --- files ------------------------------------------------------------------------------------

    def metadata(self, wheel: dict) -> str:
        """The wheel's METADATA: the `.metadata` file PyPI serves beside it, else read from the wheel."""
        path = self._cached("metadata", wheel["filename"] + ".METADATA")
        if path.exists():
            return path.read_text()
        try:
            text = self.http.fetch(wheel["url"] + ".metadata").decode("utf-8", "replace")
        except HttpError:
            z = self.remote(wheel)
            name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            text = z.texts([name])[name]
        self._write(path, text)
        return text

    def remote(self, wheel: dict) -> RemoteZip:
        return RemoteZip(self.http, wheel["url"], wheel["size"])

    def download(self, wheel: dict, member: str, dest: Path) -> Path:
        """One member of a wheel written to dest (a shared library to load with ctypes), streamed
        and inflated as it arrives: a library can be larger than what one wants in memory."""
        z = self.remote(wheel)
        info = z.getinfo(member)
        z.remote.seek(info.header_offset)
        header = z.remote.read(30)
        # the local header: 30 fixed bytes, then the name and an extra field of their own lengths
        start = info.header_offset + 30 + struct.unpack("<H", header[26:28])[0] + struct.unpack("<H", header[28:30])[0]
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "wb") as out:
            if info.compress_type == zipfile.ZIP_STORED:
                self.http.stream(wheel["url"], start, start + info.compress_size - 1, out.write)
            else:
                inflate = zlib.decompressobj(-15)
                self.http.stream(wheel["url"], start, start + info.compress_size - 1,
                                 lambda chunk: out.write(inflate.decompress(chunk)))
                out.write(inflate.flush())
        if dest.stat().st_size != info.file_size:
            raise OSError(f"{member} of {wheel['filename']}: {dest.stat().st_size} bytes, not {info.file_size}")
        return dest


def file_version(filename: str) -> Version | None:
    """The version of a wheel or sdist file name."""
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        m = re.match(r"^(.+?)-(\d[^-]*)\.(?:tar\.gz|zip|tar\.bz2)$", filename)
        return Version(m.group(2)) if m else None
    except (InvalidVersion, ValueError):
        return None


def requirements(metadata: str) -> list[dict]:
    """Requires-Dist lines of a METADATA: [{name (normalised), specifier, marker, extra}]."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    out = []
    for line in re.findall(r"^Requires-Dist:\s*(.+)$", metadata, re.M):
        try:
            req = Requirement(line.strip())
        except InvalidRequirement:
            continue
        marker = str(req.marker) if req.marker else None
        extra = None
        if marker:
            m = re.search(r'extra\s*==\s*"([^"]+)"', marker)
            extra = m.group(1) if m else None
        out.append({"name": canonicalize_name(req.name), "specifier": str(req.specifier), "marker": marker,
                    "extra": extra})
    return out
