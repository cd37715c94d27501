"""`vllm-doctor index build-stack`: build the stack index from the packages on PyPI.

    vllm-doctor index build-stack [--out DIR] [--cache DIR] [--offline] [--rescan-sites | --rescan-transformers]

Reads what PyPI serves (release lists, METADATA, members of wheels through ranged requests; one
NCCL library is downloaded whole the first time, through pypi.py like every wheel), the build
machine's CPython, glibc and bash (errno, signals, limits, loader messages) and Debian's libstdc++
manual through apt. What is read from a file on PyPI is cached under --cache (default: the user
cache folder), so a rebuild asks PyPI only for its release lists and reads what a new release
brings; the same inputs give the same bytes. Prints counts, time, requests and bytes. The tables
are made by knowledge/stack/build/ (tables.py), from what `CachedPyPI` hands it.

--rescan-sites, after a fix to the raise scanner (knowledge/scan_raises.py, build/extract_sites.py):
scan the packages' sites again from the releases the --out folder's index already names, reading
only those wheels' Python files the scanner reads (82 MB, 720 requests with an empty cache: 36 MB of sources
and the wheels' tables of contents); every other table is written back as it was, byte for byte.
--rescan-transformers, after a fix to the transformers exports or attributes scanner (build/transformers_exports.py,
build/transformers_attributes.py): make those two tables again from the transformers releases the --out folder's
index names; the others stay as they are.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from bot.base.errors import Parser
from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import pins, sonames, tables

from . import publish, pypi

log = logging.getLogger(__name__)


class CachedPyPI(pypi.PyPI):
    """PyPI as the stack build reads it (knowledge/stack/build/packages.py, `Packages`). Files on PyPI
    never change, so what is read from one (METADATA, a wheel's facts) is cached by file name; the
    list of releases is asked for again on every build (a new release is the point of a rebuild)
    unless the build runs offline."""

    def __init__(self, cache: Path, offline: bool = False, transfer: pypi.Transfer | None = None,
                 url: str | None = None):
        super().__init__(transfer or pypi.Transfer(timeout=120.0, retries=3), url)
        self.cache, self.offline = cache, offline

    # --- cache ------------------------------------------------------------------------------------

    def _cached(self, kind: str, key: str) -> Path:
        return self.cache / kind / re.sub(r"[^\w.+-]", "_", key)

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)

    def memo(self, kind: str, key: str, make, compress: bool = False):
        """A JSON value cached by (kind, key): `make()` runs only when the cache lacks it. The value
        is always the one read back from the cache's text, so a first build and a rebuild from
        the cache give the same data, key order included. compress: gzip it (sources)."""
        path = self._cached(kind, key + (".json.gz" if compress else ".json"))
        if not path.exists():
            text = json.dumps(make(), sort_keys=True).encode()
            self._write(path, gzip.compress(text, mtime=0) if compress else text)
        raw = path.read_bytes()
        return json.loads(gzip.decompress(raw) if compress else raw)

    def prune(self, prefix: str, current: str) -> None:
        """Remove cached kinds of facts that older scanners made (`prefix*` other than `current`)."""
        if self.cache.is_dir():
            for d in self.cache.iterdir():
                if d.is_dir() and d.name.startswith(prefix) and d.name != current:
                    shutil.rmtree(d)

    # --- what PyPI serves, cached ----------------------------------------------------------------------

    def ask(self, name: str) -> dict:
        path = self._cached("simple", name + ".json")
        if self.offline and path.exists():
            return json.loads(path.read_text())
        data = super().ask(name)
        self._write(path, json.dumps(data).encode())
        return data

    def metadata(self, wheel: dict) -> str:
        path = self._cached("metadata", wheel["filename"] + ".METADATA")
        if not path.exists():
            self._write(path, super().metadata(wheel).encode())
        return path.read_text()

    def download(self, wheel: dict, member: str, dest: Path) -> Path:
        return self.remote(wheel).save(member, dest)

    # --- Debian's packages, through apt ----------------------------------------------------------------

    def apt_newest(self, pattern: str) -> tuple[str, str] | None:
        if not shutil.which("apt-cache") or not shutil.which("apt-get"):
            return None
        found = subprocess.run(["apt-cache", "search", "--names-only", pattern], capture_output=True,
                               text=True).stdout.split()
        names = sorted((n for n in found if re.match(pattern, n)), key=lambda n: int(re.search(r"\d+", n).group()))
        if not names:
            return None
        shown = subprocess.run(["apt-cache", "show", "--no-all-versions", names[-1]], capture_output=True,
                               text=True).stdout
        return names[-1], re.search(r"^Version:\s*(\S+)", shown, re.M).group(1)

    def apt_deb(self, package: str, version: str) -> bytes:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "-qq", f"{package}={version}"], cwd=tmp, check=True,
                           capture_output=True)
            return next(Path(tmp).glob("*.deb")).read_bytes()


def default_cache() -> Path:
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("vllm-doctor")) / "stack-build"


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="vllm-doctor index build-stack",
               description="Build the index of the stack beneath vLLM from the packages on PyPI.")
    p.add_argument("--out", default=str(tables.DATA_DIR), help="folder of the data files (default: %(default)s)")
    p.add_argument("--cache", default=None, help="cache of what was read from PyPI (default: the user cache folder)")
    p.add_argument("--offline", action="store_true",
                   help="use the cached release lists instead of asking PyPI (what is not cached still is fetched)")
    p.add_argument("--rescan-sites", action="store_true",
                   help="scan only the packages' raise sites again, from the releases the --out folder names "
                        "(after a fix to the raise scanner); the other tables stay as they are")
    p.add_argument("--rescan-transformers", action="store_true",
                   help="make only the transformers exports and attributes tables again, from the releases the --out "
                        "folder names (after a fix to their scanners); the other tables stay as they are")
    args = p.parse_args(argv)
    cache = Path(args.cache) if args.cache else default_cache()
    source = CachedPyPI(cache, offline=args.offline)
    transfer = source.transfer
    start = time.perf_counter()
    try:
        if args.rescan_sites:
            blocks = tables.rescan_sites(source, Path(args.out))
        elif args.rescan_transformers:
            blocks = tables.rescan_transformers(source, Path(args.out))
        else:
            blocks = tables.build(source, stats=lambda: (transfer.requests, transfer.bytes))
    except (pypi.Unavailable, tables.Unreadable) as e:
        print(f"vllm-doctor index build-stack: {e}; nothing written", file=sys.stderr)
        return 1
    size = tables.write(blocks, Path(args.out))
    print()
    for name, n in blocks["meta"]["counts"].items():
        print(f"  {name:34} {n:6}")
    print(f"{args.out}: {len(blocks)} files, {size / 1e6:.2f} MB; {time.perf_counter() - start:.1f} s; "
          f"{transfer.requests} requests, {transfer.bytes / 1e6:.1f} MB downloaded (cache: {cache})")
    return 0


# --- index update: the pins of vLLM's new releases -------------------------------------------------

@dataclass
class Added:
    """What an update added to the stack index's copy in the data folder."""
    vllm: list[str] = field(default_factory=list)         # vLLM releases whose pins it took
    torch: list[str] = field(default_factory=list)        # torch releases they pin, with their CUDA and pins
    libraries: list[str] = field(default_factory=list)    # projects whose shared libraries it lists now
    missed: list[str] = field(default_factory=list)       # what could not be read (tried again next time)
    path: Path | None = None                              # the new copy
    bytes: int = 0
    seconds: float = 0.0


def update(metadata_of, versions: list[str], cache: Path, transfer: pypi.Transfer | None = None) -> Added | None:
    """The stack index's copy in the data folder, given the pins of the vLLM releases of `versions`
    it lacks (metadata_of(version): that release's METADATA, None when there is none), the torch
    releases they pin exactly (their CUDA and pins, read from PyPI as the build reads them) and the
    shared libraries of the nvidia-* projects those pin that it does not list. Built on the copy in
    use when that was made from this package's data, else on the package's, as the vLLM index's
    update is; published whole, under the stack folder's lock. What cannot be read now is tried
    again by the next update (what the stack lacks is worked out afresh each time). None: nothing
    to add."""
    start = time.perf_counter()
    copies = stack_index.COPIES
    with publish.lock(copies=copies):
        path, kind, info = copies.choose()
        digest = copies.packaged_digest()
        base = path if kind == "data" and info and info.get("base") == digest else copies.packaged
        have = {name: tables.read_block(base, name) for name in ("vllm_pins", "torch")}
        if None in have.values():
            raise ValueError(f"the stack index's data ({base}) cannot be read")
        lacking = [v for v in versions if v not in have["vllm_pins"]["releases"]]
        if not lacking and pins.exact_pins(have["vllm_pins"], "torch") <= set(have["torch"]["releases"]):
            return None
        source = CachedPyPI(cache, transfer=transfer or pypi.Transfer())
        before = source.transfer.bytes
        blocks = tables.read(base)
        added = Added()
        metadata = _each("vLLM", lacking, metadata_of, added)
        pins.add_vllm_releases(blocks["vllm_pins"], metadata)
        # the torch releases some vLLM release pins exactly that the torch table lacks
        torch = sorted(pins.exact_pins(blocks["vllm_pins"], "torch") - set(blocks["torch"]["releases"]), key=Version)
        found = _each("torch", torch, lambda version: pins.torch_release(source, version), added)
        pins.add_torch_releases(blocks["torch"], found)
        libraries = _libraries(source, blocks, found, added)
        if libraries:
            sonames.add_projects(blocks["sonames"], libraries)
        added.vllm, added.torch, added.libraries = list(metadata), list(found), list(libraries)
        if not (added.vllm or added.torch or added.libraries):
            return None
        blocks["meta"] = tables.meta(blocks)
        newest = max(blocks["vllm_pins"]["releases"], key=stack_index.vkey)
        added.path = publish.publish_copy(copies, lambda tmp: tables.write(blocks, tmp), newest, digest,
                                          [*added.vllm, *(f"torch {v}" for v in added.torch)])
    added.bytes, added.seconds = source.transfer.bytes - before, time.perf_counter() - start
    return added


def _each(what: str, versions, read, added: Added) -> dict:
    """{version: read(version)} of the versions that can be read now; the others (None, or PyPI
    failing) are noted in added.missed, and the next update tries them again."""
    found = {}
    for version in versions:
        try:
            got = read(version)
        except pypi.Unavailable as e:
            log.warning("stack index: %s %s not read (%s); the next update tries again", what, version, e)
            got = None
        if got is None:
            added.missed.append(f"{what} {version}")
        else:
            found[version] = got
    return found


def _libraries(source: CachedPyPI, blocks: dict, torch: dict[str, dict], added: Added) -> dict:
    """{project: (version, its libraries)} of the nvidia-* projects these torch releases pin that
    the soname table does not list."""
    if not torch:
        return {}
    known = sonames.projects(blocks["sonames"])
    try:
        return {p: got for p in sonames.packages({"releases": torch}, source)
                if p not in known and (got := sonames.newest_libraries(source, p))}
    except pypi.Unavailable as e:
        log.warning("stack index: the libraries torch %s pins not read (%s)", ", ".join(torch), e)
        added.missed.append("libraries of " + ", ".join(f"torch {v}" for v in torch))
        return {}
