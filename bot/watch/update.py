"""`vllm-doctor index update`: add to the index the vLLM releases it lacks, one wheel each.

The releases come from PyPI (pypi.py: only the Python sources of each wheel are downloaded) or,
with `--from DIR`, from the wheels in a folder (tests, air-gapped sites). Each new release is
scanned by the same scanners `index build` runs (whole when it is the last patch of its minor,
for its names otherwise) and merged into the index it lacked by extend.py, without any other
release's wheel. run() does it for the copy in the data folder, under its lock, and makes the
result the copy in use only once it is whole (installed.py); then the stack index's copy gets the
pins of the releases it lacks (stack_build.update).
"""

from __future__ import annotations

import logging
import re
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from bot.diagnose.knowledge.vllm import installed
from bot.diagnose.knowledge.vllm.build import extend, scan_knobs, wheels

from . import publish, pypi

log = logging.getLogger(__name__)
_WHEEL = re.compile(r"^vllm-([^-]+)-.*\.whl$")


def _sources(name: str) -> bool:
    return name.startswith("vllm/") and name.endswith(".py") and not name.startswith(wheels.VENDORED)


class FromPyPI:
    """Releases PyPI serves; each fetched as a small zip of the sources the scan reads (and METADATA)."""

    def __init__(self, cache: Path, transfer: pypi.Transfer | None = None):
        self.cache = cache
        self.pypi = pypi.PyPI(transfer)
        self.transfer = self.pypi.transfer
        self._wheels: dict[str, dict] | None = None

    def available(self) -> dict[str, str]:
        """{version: when PyPI got it}."""
        if self._wheels is None:
            # any x86_64 wheel: the sources are the same in each; the first by name says when PyPI got it
            found = {v: self.pypi.wheel("vllm", v, prefer=("x86_64",), python=None) for v in self.pypi.releases("vllm")}
            self._wheels = {v: w for v, w in found.items() if w is not None}
        return {v: w.get("upload-time") or "" for v, w in self._wheels.items()}

    def _path(self, version: str, kind: str) -> Path:
        return self.cache / self._wheels[version]["filename"].replace(".whl", f".{kind}.zip")

    def fetch(self, version: str, names_only: bool) -> Path:
        path = self._path(version, "names" if names_only else "sources")
        if not path.exists():               # else fetched before (a rescan, a run that stopped)
            wanted = wheels.names_module if names_only else _sources
            z = self.pypi.remote(self._wheels[version])
            z.copy([n for n in z.namelist() if wanted(n) or n.endswith(".dist-info/METADATA")], path)
        return path

    def knob_sources(self, version: str) -> dict[str, str]:
        """The release's modules scan_knobs reads, by range reads of its wheel (a few hundred KB)."""
        z = self.pypi.remote(self._wheels[version])
        names = [n for n in z.namelist() if scan_knobs.wanted(n)]
        z.prefetch(names)
        return z.texts(names)

    def metadata(self, version: str) -> str | None:
        """The release's METADATA: from its sources fetched before, else the file PyPI serves beside
        the wheel; None when PyPI serves no wheel of it."""
        if version not in self.available():
            return None
        for kind in ("sources", "names"):
            if self._path(version, kind).exists():
                return metadata(self._path(version, kind))
        return self.pypi.metadata(self._wheels[version])

    @property
    def bytes(self) -> int:
        return self.transfer.bytes


class FromFolder:
    """The vllm-X-*.whl files of a folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.bytes = 0
        self.transfer = None

    def available(self) -> dict[str, str]:
        out = {}
        for p in sorted(self.folder.glob("vllm-*.whl")):
            m = _WHEEL.match(p.name)
            if m:
                out.setdefault(m.group(1), "")
        return out

    def fetch(self, version: str, names_only: bool) -> Path:
        return wheels.wheel_for(version, self.folder)

    def knob_sources(self, version: str) -> dict[str, str]:
        with zipfile.ZipFile(wheels.wheel_for(version, self.folder)) as z:
            return {n: z.read(n).decode("utf-8", "replace") for n in z.namelist() if scan_knobs.wanted(n)}

    def metadata(self, version: str) -> str | None:
        wheel = wheels.wheel_for(version, self.folder)
        return metadata(wheel) if wheel else None


def metadata(wheel: Path) -> str:
    """The METADATA of a wheel (or of the small zip of its sources)."""
    with zipfile.ZipFile(wheel) as z:
        name = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        return z.read(name).decode("utf-8", "replace") if name else ""


@dataclass
class Result:
    added: list[str] = field(default_factory=list)        # versions new to the index
    rescanned: list[str] = field(default_factory=list)
    whole: list[str] = field(default_factory=list)        # of those, scanned whole
    stack: object = None                                  # what run() added to the stack index (stack_build.Added)
    stack_error: str | None = None                        # why run() could not update the stack index
    data: dict | None = None                              # the new index (merge's shape); None: unchanged
    path: Path | None = None                              # where run() published it
    bytes: int = 0
    seconds: float = 0.0


def lacking(versions: list[str], available: dict[str, str]) -> list[str]:
    """The final releases a source has that the index lacks, from the index's oldest on (the
    index starts where `index build` started it; older releases are not wanted)."""
    oldest = Version(versions[0])
    have = {Version(v) for v in versions}
    out = []
    for v in available:
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        if parsed >= oldest and parsed not in have and not (parsed.is_prerelease or parsed.is_devrelease):
            out.append(v)
    return sorted(out, key=Version)


def update(data: dict, source, cache: Path, rescan: list[str] = ()) -> Result:
    """The index `data` (extend.read) with the releases `source` has that it lacks added, and the
    releases in `rescan` scanned again. Result.data is None when there was nothing to do."""
    start = time.perf_counter()
    available = source.available()
    new = lacking(data["versions"], available)
    unknown = [v for v in rescan if v not in data["versions"]]
    if unknown:
        raise ValueError(f"--rescan: the index has no vLLM {', '.join(unknown)}")
    result = Result(added=new, rescanned=[v for v in rescan if v not in new])
    whole = extend.whole_releases([*data["versions"], *new])
    facts = []
    for version in [*new, *result.rescanned]:
        names_only = version not in whole
        wheel = source.fetch(version, names_only)
        if wheel is None:
            raise ValueError(f"no wheel for vLLM {version}")
        t = time.perf_counter()
        facts.append(wheels.extract_cached(wheel, cache, names_only=names_only))
        log.info("vLLM %s scanned (%s) in %.1f s", version, "names" if names_only else "whole",
                 time.perf_counter() - t)
        if not names_only:
            result.whole.append(version)
    dates = {**data.get("uploaded", {}), **{v: d for v, d in available.items() if d}}
    if facts:
        result.data = extend.extend(data, facts)
    elif any(v in dates and v not in data.get("uploaded", {}) for v in data["versions"]):
        result.data = dict(data)            # nothing new but when the releases reached PyPI
    if result.data is not None and dates:
        result.data["uploaded"] = {v: dates[v] for v in result.data["versions"] if v in dates}
    result.bytes = source.bytes
    result.seconds = time.perf_counter() - start
    return result


def rescan_knobs(data: dict, source) -> dict:
    """The index with every version's knobs (scan_knobs.py) scanned again from its knob modules
    alone: what a change to that scanner needs, without the rest of any wheel."""
    source.available()
    records = extend.unmerge(data)
    for rec in records:
        t = time.perf_counter()
        rec["knobs"] = scan_knobs.scan(source.knob_sources(rec["release"]))
        log.info("vLLM %s: knobs scanned in %.1f s", rec["release"], time.perf_counter() - t)
        if "raises" not in rec:
            rec["names_only"] = True
    return extend.extend(data, records)


def run(source, cache: Path, rescan: list[str] = (), blocking: bool = True) -> Result | None:
    """update() of the data folder's copy, under its lock, the result published as the copy in
    use. None when `blocking` is False and another update holds the lock."""
    with publish.lock(blocking) as had:
        if not had:
            return None
        path, kind, info = installed.choose()
        digest = installed.packaged_digest()
        # a copy made from another package's index (vllm-doctor was upgraded since) is not built
        # on: the update starts again from the package's own, which may know more of the old ones
        base = path if kind == "data" and info and info.get("base") == digest else installed.COPIES.packaged
        data = extend.read(base)
        result = update(data, source, cache, rescan)
        if isinstance(source, FromPyPI):
            publish.note_checked(sorted(source.available(), key=Version))
        if result.data is not None:
            result.path = publish.publish(result.data, digest, result.added)
    # after the lock: the stack's copy has a lock of its own, and a stack that fails leaves the
    # vLLM index's copy published (the next update gives the stack what it lacks)
    try:
        result.stack = update_stack(source, (result.data or data)["versions"], cache)
    except (pypi.Unavailable, ValueError, OSError) as e:
        log.warning("stack index: not updated (%s)", e)
        result.stack_error = str(e)
    return result


def update_stack(source, versions: list[str], cache: Path):
    """The stack index's copy in the data folder with the pins of the vLLM releases it lacks, and the
    torch releases they pin (stack_build.update). What it added, or None."""
    from . import stack_build
    return stack_build.update(source.metadata, versions, cache / "stack", source.transfer)
