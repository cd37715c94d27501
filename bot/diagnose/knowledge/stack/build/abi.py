"""ABI tables: the GCC release that introduced each libstdc++ symbol version, and what each
manylinux policy allows.

- GLIBCXX_3.4.N / CXXABI_1.3.N → GCC release: the libstdc++ manual's "ABI Policy and Guidelines"
  (abi.xml in gcc's source, abi.html in Debian's libstdc++-N-doc package), its list of symbol
  version labels per GCC release. The build asks apt for the newest libstdc++-N-doc it knows and
  reads abi.html from the package; releases newer than that manual lists are in LATER, by hand.
- manylinux policies: auditwheel's manylinux-policy.json (PyPI's auditwheel wheel): per policy the
  highest GLIBC, GLIBCXX, CXXABI and GCC symbol versions a wheel of that policy may require.
"""

from __future__ import annotations

import html
import io
import json
import lzma
import re
import tarfile

from .packages import Packages

# GCC releases after the manual Debian ships (bookworm's GCC 12 manual stops at GCC 11.1), from
# the libstdc++ manual of GCC 15 (doc/xml/manual/abi.xml, "Symbol versioning on the libstdc++.so
# binary"), by hand.
LATER = {
    "12.1.0": ["GLIBCXX_3.4.30", "CXXABI_1.3.13"],
    "13.1.0": ["GLIBCXX_3.4.31", "CXXABI_1.3.14"],
    "13.2.0": ["GLIBCXX_3.4.32", "CXXABI_1.3.14"],
    "14.1.0": ["GLIBCXX_3.4.33", "CXXABI_1.3.15"],
    "15.1.0": ["GLIBCXX_3.4.34", "CXXABI_1.3.16"],
}
LATER_SOURCE = "libstdc++ manual of GCC 15 (abi.xml), GCC 12.1-15.1, by hand"

_LABELS = re.compile(r"GCC (\d+\.\d+\.\d+): ((?:(?:GLIBCXX|CXXABI|GLIBCPP)_[\d.]+(?:, )?)+)")


def labels_by_release(text: str) -> dict[str, list[str]]:
    """{GCC release: [symbol version labels]} from the manual's list, as plain text."""
    out: dict[str, list[str]] = {}
    for release, labels in _LABELS.findall(text):
        out.setdefault(release, [label.strip() for label in labels.split(",") if label.strip()])
    return out


def introduced(by_release: dict[str, list[str]]) -> dict[str, str]:
    """{label: the first GCC release that has it}: the manual lists the highest label of each
    kind per release, and a release that keeps the previous one introduces nothing."""
    key = lambda v: tuple(int(x) for x in v.split("."))
    out: dict[str, str] = {}
    for release in sorted(by_release, key=key):
        for label in by_release[release]:
            out.setdefault(label, release)
    return out


def _deb_member(deb: bytes, suffix: str) -> str | None:
    """A file of a .deb (an ar archive holding data.tar.*), read with the standard library."""
    data = deb
    pos = 8                                             # "!<arch>\n"
    while pos < len(data):
        name = data[pos:pos + 16].decode().strip().rstrip("/")
        size = int(data[pos + 48:pos + 58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
        if name.startswith("data.tar"):
            raw = lzma.decompress(body) if name.endswith(".xz") else body
            mode = "r:gz" if name.endswith(".gz") else "r:"
            with tarfile.open(fileobj=io.BytesIO(raw), mode=mode) as tar:
                for member in tar.getmembers():
                    if member.name.endswith(suffix):
                        return tar.extractfile(member).read().decode("utf-8", "replace")
    return None


def debian_manual(pypi: Packages) -> tuple[dict[str, list[str]], str] | None:
    """The manual's list from the newest libstdc++-N-doc apt knows, or None without apt."""
    found = pypi.apt_newest(r"^libstdc\+\+-[0-9]+-doc$")
    if found is None:
        return None
    package, version = found

    def make():
        page = _deb_member(pypi.apt_deb(package, version), "/manual/abi.html")
        text = html.unescape(re.sub(r"<[^>]+>", "", page or ""))
        return labels_by_release(text)

    return pypi.memo("libstdcxx-manual", f"{package}_{version}", make), f"Debian {package} {version} (manual/abi.html)"


def gcc_table(pypi: Packages) -> dict:
    """{"introduced": {label: GCC release}, "source": [...]}"""
    by_release: dict[str, list[str]] = {}
    sources = []
    manual = debian_manual(pypi)
    if manual:
        by_release.update(manual[0])
        sources.append(manual[1])
    newest = max((tuple(int(x) for x in r.split(".")) for r in by_release), default=(0,))
    later = {r: labels for r, labels in LATER.items() if tuple(int(x) for x in r.split(".")) > newest}
    by_release.update(later)
    if later:
        sources.append(LATER_SOURCE)
    return {"introduced": introduced(by_release), "source": sources}


def _max_version(values: list[str]) -> str | None:
    nums = [v for v in values if re.fullmatch(r"\d+(?:\.\d+)*", v)]
    return max(nums, key=lambda v: tuple(int(x) for x in v.split(".")), default=None)


def manylinux(pypi: Packages) -> dict:
    """{"policies": {name: {"aliases", "priority", "max": {arch: {GLIBC: "2.28", ...}}}}, "source"}"""
    version = pypi.releases("auditwheel")[-1]
    wheel = pypi.wheel("auditwheel", version)
    member = "auditwheel/policy/manylinux-policy.json"

    def make():
        policies = json.loads(pypi.remote(wheel).texts([member])[member])
        out = {}
        for p in policies:
            if not p["symbol_versions"]:
                continue
            out[p["name"]] = {"aliases": p.get("aliases", []), "priority": p["priority"],
                              "max": {arch: {kind: _max_version(v) for kind, v in kinds.items() if _max_version(v)}
                                      for arch, kinds in p["symbol_versions"].items()}}
        return out

    return {"policies": pypi.memo("manylinux", wheel["filename"], make), "source": f"auditwheel=={version} ({member})"}
