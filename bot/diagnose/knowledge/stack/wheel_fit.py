"""Whether a vLLM release has a wheel for a machine, by the stack index's table of vLLM's files on
PyPI (`ix.wheel_release`), and why not: pip's own checks in its order (Requires-Python, then the
wheel's tags: platform, Python, glibc). A machine is what the paste shows of it; what it does not
show is never assumed: a check that needs an unknown fact is not made.

    host = Host(python="3.13", os="linux", arch="x86_64", glibc=None)
    misfit(release, host) -> Misfit | None      # None: a wheel fits, or the facts do not tell
    newest_fit(releases, host) -> WheelRelease | None
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.base.versions import in_range
from bot.diagnose.reading.facts.pip_uv import platform_arch, platform_os  # noqa: F401 (the tag's words, read with the paste's)

# manylinux1 and manylinux2010/2014 are the PEP 600 names of glibc 2.5, 2.12 and 2.17
_LEGACY_GLIBC = {"manylinux1": "2.5", "manylinux2010": "2.12", "manylinux2014": "2.17"}


@dataclass(frozen=True)
class Host:
    python: str | None = None       # "3.13"
    os: str | None = None           # linux | windows | macos
    arch: str | None = None         # x86_64 | aarch64 | ...
    glibc: str | None = None        # "2.28"


@dataclass(frozen=True)
class Misfit:
    kind: str                       # none | python | os | arch | abi | glibc
    host_value: str                 # what the host has: "3.13", "Windows", "Linux aarch64", "2.28"
    needs: str = ""                 # what the wheels need: the Requires-Python, the least glibc


@dataclass(frozen=True)
class Tag:
    python: str                     # "cp38"
    abi: str                        # "abi3", "cp38", "none"
    platform: str                   # "manylinux1_x86_64"

    @property
    def os(self) -> str:
        return platform_os(self.platform)

    @property
    def arch(self) -> str | None:
        return platform_arch(self.platform)

    @property
    def glibc(self) -> str | None:
        """The least glibc a manylinux wheel needs: manylinux_2_31 → 2.31, manylinux2014 → 2.17."""
        m = re.match(r"manylinux_(\d+)_(\d+)_", self.platform)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
        return next((g for k, g in _LEGACY_GLIBC.items() if self.platform.startswith(k + "_")), None)

    def takes_python(self, python: str) -> bool:
        """cp38-abi3: any CPython from 3.8 on; cp311-cp311: 3.11 alone; py3-none: any."""
        m = re.match(r"cp3(\d+)$", self.python)
        if not m:
            return self.python.startswith("py3")
        minor = int(python.split(".")[1])
        return minor >= int(m.group(1)) if self.abi == "abi3" else minor == int(m.group(1))


def tag(text: str) -> Tag:
    python, abi, platform = text.split("-")
    return Tag(python, abi, platform)


def os_words(os_name: str) -> str:
    return {"linux": "Linux", "windows": "Windows", "macos": "macOS"}.get(os_name, os_name)


def minor(python: str | None) -> str | None:
    """"3.13" of "3.13.0"; None of anything that is not a CPython 3 version."""
    m = re.match(r"^3\.(\d+)", python or "")
    return f"3.{m.group(1)}" if m else None


def misfit(release, host: Host) -> Misfit | None:
    """Why no wheel of `release` fits `host`, as pip finds it: None when one fits, or when the facts
    the check needs are not known."""
    if not release.tags:
        return Misfit("none", "")
    python = minor(host.python)
    if python and release.requires_python and not in_range(python, release.requires_python):
        return Misfit("python", python, release.requires_python)
    tags = [tag(t) for t in release.tags]
    if host.os and host.os != "linux" and not any(t.os in (host.os, "any") for t in tags):
        return Misfit("os", os_words(host.os))
    if host.os == "linux" and host.arch and not any(t.arch == host.arch for t in tags):
        return Misfit("arch", f"Linux {host.arch}")
    if host.os == "linux" and host.arch:        # what follows is about the wheels of this machine's kind
        tags = [t for t in tags if t.arch == host.arch]
    if python and host.os in (None, "linux") and not any(t.takes_python(python) for t in tags):
        return Misfit("abi", python)
    if host.glibc and host.os == "linux" and host.arch:
        needs = [t.glibc for t in tags if t.glibc]
        if needs and all(_vkey(g) > _vkey(host.glibc) for g in needs):
            return Misfit("glibc", host.glibc, min(needs, key=_vkey))
    return None


def glibc_misfit(tags: list[str], host: Host) -> str | None:
    """The least glibc the manylinux wheels for the host's CPU among `tags` need, when every one needs a newer
    glibc than the host's; None when one fits, or the host's CPU or glibc is not known."""
    if not (host.arch and host.glibc):
        return None
    needs = [t.glibc for t in (tag(f"py3-none-{p}") for p in tags) if t.os == "linux" and t.arch == host.arch and t.glibc]
    if not needs or any(_vkey(g) <= _vkey(host.glibc) for g in needs):
        return None
    return min(needs, key=_vkey)


def fits(release, host: Host) -> bool:
    """Whether a wheel of `release` fits every fact known of the host (an unknown one is not checked)."""
    return not release.yanked and misfit(release, host) is None


def newest_fit(releases, host: Host):
    """The newest release (not yanked) with a wheel for what the host is known to be."""
    return next((r for r in reversed(list(releases)) if fits(r, host)), None)


def platforms(release) -> str:
    """"Linux x86_64", "Linux x86_64, Linux aarch64": where the release's wheels install."""
    seen = []
    for t in map(tag, release.tags):
        words = f"{os_words(t.os)} {t.arch}" if t.arch else os_words(t.os)
        if words not in seen:
            seen.append(words)
    return ", ".join(seen)


def pythons(release) -> str:
    """"CPython ≥ 3.8" (an abi3 wheel), "CPython 3.8, 3.9, 3.10, 3.11" (one wheel per Python)."""
    stable = sorted({int(m.group(1)) for t in map(tag, release.tags) if t.abi == "abi3"
                     for m in [re.match(r"cp3(\d+)$", t.python)] if m})
    if stable:
        return f"CPython ≥ 3.{stable[0]}"
    each = sorted({int(m.group(1)) for t in map(tag, release.tags) for m in [re.match(r"cp3(\d+)$", t.python)] if m})
    return "CPython " + ", ".join(f"3.{n}" for n in each)


def python_range(requires_python: str) -> str:
    """">=3.9,<3.13" → "3.9 – 3.12"; ">=3.8" → "3.8 or later"; "" when it bounds nothing."""
    low = re.search(r">=\s*3\.(\d+)", requires_python)
    high = re.search(r"<\s*3\.(\d+)(?!\.\d*[1-9])", requires_python)
    if low and high:
        return f"3.{low.group(1)} – 3.{int(high.group(1)) - 1}"
    if low:
        return f"≥ 3.{low.group(1)}"
    return f"< 3.{high.group(1)}" if high else ""


def ordered_spec(requires_python: str) -> str:
    """"<3.13,>=3.9" → ">=3.9,<3.13": the lower bound first, as people read a range."""
    return ",".join(sorted((c.strip() for c in requires_python.split(",") if c.strip()), key=lambda c: not c.startswith(">")))


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))

