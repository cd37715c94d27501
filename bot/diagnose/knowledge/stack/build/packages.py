"""What the stack build is handed: `Packages`, the packages it reads its tables from, and the
requirements of a METADATA.

The build reaches no network itself: bot/watch/stack_build.py reads what PyPI serves (through
bot/watch/pypi.py, the one reader of wheels), caches it, and hands it over as a `Packages`; each
table's module derives its rows from the texts and files it gets. `memo` is how a table's facts are
kept between builds: a rebuild from the cache asks PyPI only for its release lists.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterable, Protocol


class Wheel(Protocol):
    """One wheel's members, read on demand."""

    def namelist(self) -> list[str]: ...

    def texts(self, names: Iterable[str]) -> dict[str, str]: ...


class Packages(Protocol):
    def project(self, name: str) -> dict:
        """{"versions": [...], "files": [{filename, url, size, yanked, ...}]}."""

    def releases(self, name: str, since: str | None = None, until: str | None = None) -> list[str]:
        """Final releases with a file not yanked, ascending."""

    def wheel(self, name: str, version: str, prefer: tuple = ("manylinux", "x86_64"),
              smallest: bool = False) -> dict | None:
        """One wheel of a release (a file of project()): a Linux x86_64 one; the smallest one."""

    def metadata(self, wheel: dict) -> str: ...

    def remote(self, wheel: dict) -> Wheel: ...

    def download(self, wheel: dict, member: str, dest: Path) -> Path:
        """One member of a wheel as a file (a shared library to load with ctypes)."""

    def memo(self, kind: str, key: str, make: Callable[[], object], compress: bool = False):
        """A JSON value kept by (kind, key): make() runs only when it is not kept yet; the value is
        the one read back, so a first build and a rebuild give the same data."""

    def prune(self, prefix: str, current: str) -> None:
        """Forget the kinds `prefix*` other than `current` (what older scanners made)."""

    def apt_newest(self, pattern: str) -> tuple[str, str] | None:
        """(package, version) of the newest Debian package apt knows whose name matches, by the
        number in it; None without apt."""

    def apt_deb(self, package: str, version: str) -> bytes:
        """That package's .deb."""


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
