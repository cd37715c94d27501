"""Which distribution a Python import name comes from, for every distribution a vLLM release requires,
and the platforms each version a vLLM release pins exactly has wheels for.

`No module named 'cv2'` names an import name; pip installs distributions (`opencv-python-headless`).
The answer needs both, and whether the vLLM that ran requires that distribution, in which extra and
under which environment marker (`triton; platform_machine == "x86_64"`: an aarch64 machine never gets
it). Read from PyPI, nothing installed:

- every Requires-Dist of every vLLM release from 0.5.0 on (the Linux x86_64 wheel's METADATA, the
  one pins.py reads), extras and markers included;
- each required distribution's import names: the top-level packages and modules of the newest
  release's wheel (its member list, one ranged request for the zip's central directory). A folder
  without `__init__.py` is a namespace shared by several distributions (`google`, `nvidia`): its
  sub-packages are the names (`google.protobuf`);
- the platforms of each version a vLLM release pins with `==` (xformers, torch, flashinfer), and of
  each distribution's newest release, from the file names PyPI lists.

Block `modules`: {"imports": {name: [distribution, ...]}, "rows": [[distribution, specifier, marker,
extra], ...], "requires": {vllm version: [row index, ...]}, "wheels": {distribution: {version:
[platform, ...]}}, "newest": {distribution: version}, "via": {distribution: [required distribution
that needs it, ...]} (one level further: the distributions vLLM's requirements need), "through":
{distribution: {parent: {parent version: [specifier, marker]}}} (the exact pins of the versions vLLM
pins exactly: torch 2.4.0's triton==3.0.0), "source": ...}. A platform is `linux_x86_64`,
`linux_aarch64`, `macos_arm64`, `windows_x86_64`, ...; `any` for a pure-Python wheel; `sdist` when the
release has a source archive too.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from .packages import Packages, requirements

SINCE = "0.5.0"
SOURCE = ("vLLM's wheels on PyPI (METADATA Requires-Dist, Linux x86_64 wheel, every release from 0.5.0); "
          "each required distribution's newest wheel's members (top-level packages); file names of the "
          "releases pinned with == and of the newest")
# Folders a careless wheel installs at the top level: they are not what a program means by
# `import tests`, and naming one distribution for them would be a guess.
GENERIC = {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "scripts", "bin",
           "build", "src", "tools", "utils", "data", "include", "samples", "__pycache__"}
# Folders several distributions install into (nvidia-cublas-cu12 and nvidia-nccl-cu12 both fill
# `nvidia/`): only their sub-packages name one.
SHARED = {"nvidia", "google", "opentelemetry", "mpl_toolkits", "azure", "backports", "jaxlib"}
_MODULE_FILE = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?:\.[\w-]+)*\.(?:py|so|pyd)$")
_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "arm64", "ppc64le": "ppc64le",
         "s390x": "s390x", "i686": "x86", "win32": "x86", "armv7l": "armv7l"}


def import_names(members: list[str]) -> list[str]:
    """The names a wheel's files can be imported by: its top-level packages and modules, the
    sub-packages of a top-level folder without `__init__.py` (a namespace package)."""
    tops: dict[str, set[str]] = {}
    files: set[str] = set()
    for member in members:
        parts = member.split("/")
        head = parts[0]
        if head.endswith((".dist-info", ".data")) or not head:
            continue
        if len(parts) == 1:
            m = _MODULE_FILE.match(head)
            if m:
                files.add(m.group("name"))
            continue
        if re.fullmatch(r"[A-Za-z_]\w*", head):
            tops.setdefault(head, set()).add("/".join(parts[1:]))
    out = {f for f in files if f not in GENERIC and f != "__init__"}
    for head, inner in tops.items():
        if head in GENERIC:
            continue
        if head not in SHARED and any(_MODULE_FILE.match(p) for p in inner if "/" not in p):
            out.add(head)           # a package (its __init__.py), or a folder of modules
            continue
        subs = {p.split("/")[0] for p in inner if "/" in p and re.fullmatch(r"[A-Za-z_]\w*", p.split("/")[0])}
        out.update(f"{head}.{s}" for s in subs if s not in GENERIC and s != "__pycache__")
    return sorted(out)


def platform_of(tag: str) -> list[str]:
    """The platforms one wheel tag's platform part runs on (`manylinux_2_28_aarch64` → linux_aarch64,
    `macosx_11_0_universal2` → macos_arm64 and macos_x86_64, `any` → any)."""
    out = []
    for plat in tag.split("."):
        plat = plat.lower()
        if plat == "any":
            out.append("any")
        elif plat.startswith(("manylinux", "musllinux", "linux")):
            arch = next((a for k, a in _ARCH.items() if plat.endswith(k)), None)
            if arch:
                out.append(("musllinux_" if plat.startswith("musllinux") else "linux_") + arch)
        elif plat.startswith("macosx"):
            if plat.endswith(("universal2", "universal")):
                out += ["macos_arm64", "macos_x86_64"]
            elif plat.endswith(("arm64", "x86_64")):
                out.append("macos_" + ("arm64" if plat.endswith("arm64") else "x86_64"))
        elif plat.startswith("win"):
            out.append("windows_" + _ARCH.get(plat.split("_", 1)[-1] if "_" in plat else plat, "x86"))
    return out


_WHEEL = re.compile(r"^[^-]+-(?P<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-(?P<plat>[^-]+)\.whl$")
_SDIST = re.compile(r"^.+?-(?P<version>\d[^-]*)\.(?:tar\.gz|zip|tar\.bz2)$")


def platforms(files: list[dict]) -> dict[str, list[str]]:
    """{version: [platform, ...]} of a project's files, not yanked ones."""
    out: dict[str, set[str]] = {}
    for f in files:
        if f.get("yanked"):
            continue
        name = f.get("filename") or ""
        m = _WHEEL.match(name)
        if m:
            out.setdefault(_plain(m.group("version")), set()).update(platform_of(m.group("plat")))
            continue
        m = _SDIST.match(name)
        if m:
            out.setdefault(_plain(m.group("version")), set()).add("sdist")
    return {v: sorted(p) for v, p in out.items()}


def _plain(version: str) -> str:
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def exact(spec: str) -> str | None:
    """The version of an `==X` specifier (no wildcard), else None."""
    m = re.fullmatch(r"==\s*([\w.+!-]+)", spec.strip())
    return _plain(m.group(1)) if m and "*" not in m.group(1) else None


def build(pypi: Packages, log=print) -> dict:
    rows: list[list] = []
    index: dict[tuple, int] = {}
    requires: dict[str, list[int]] = {}
    for version in pypi.releases("vllm", since=SINCE):
        wheel = pypi.wheel("vllm", version)
        if wheel is None:
            continue
        ids = []
        for r in requirements(pypi.metadata(wheel)):
            key = (r["name"], r["specifier"], r["marker"], r["extra"])
            if key not in index:
                index[key] = len(rows)
                rows.append(list(key))
            ids.append(index[key])
        requires[version] = ids
    pinned: dict[str, set[str]] = {}
    for name, spec, _marker, _extra in rows:
        v = exact(spec)
        pinned.setdefault(name, set())
        if v:
            pinned[name].add(v)
    imports: dict[str, set[str]] = {}
    wheels: dict[str, dict] = {}
    newest: dict[str, str] = {}
    via: dict[str, set[str]] = {}
    for name in sorted(pinned):
        try:
            files = pypi.project(name)["files"]
            releases = pypi.releases(name)
        except Exception as e:              # a project gone from the index: its requirement stays
            log(f"modules: {name}: {e}")
            continue
        if not releases:
            continue
        newest[name] = releases[-1]
        plats = platforms(files)
        wheels[name] = {v: plats[v] for v in sorted({*pinned[name], releases[-1]}, key=Version) if v in plats}
        for imp in _wheel_imports(pypi, name, releases[-1]):
            imports.setdefault(imp, set()).add(name)
        for dep in _needs(pypi, name, releases[-1]):
            if dep not in pinned:
                via.setdefault(dep, set()).add(name)
    through = _through(pypi, pinned)
    # one level further, cheaply: what the newest release of a required distribution needs itself
    # (triton through torch, pandas through datasets); their import names and newest wheels only
    for name in sorted(via):
        try:
            releases = pypi.releases(name)
        except Exception as e:
            log(f"modules: {name}: {e}")
            continue
        if not releases:
            continue
        newest[name] = releases[-1]
        plats = platforms(pypi.project(name)["files"])
        held = {releases[-1], *(v for by in through.get(name, {}).values() for spec, _m in by.values()
                                if (v := exact(spec)))}
        wheels[name] = {v: plats[v] for v in sorted(held, key=Version) if v in plats}
        for imp in _wheel_imports(pypi, name, releases[-1]):
            imports.setdefault(imp, set()).add(name)
    return {"imports": {k: sorted(v) for k, v in sorted(imports.items())}, "rows": rows, "requires": requires,
            "via": {k: sorted(v) for k, v in sorted(via.items())}, "through": through, "wheels": wheels, "newest": newest,
            "source": SOURCE}


def _through(pypi: Packages, pinned: dict[str, set[str]]) -> dict:
    """{distribution: {parent: {parent version: [specifier, marker]}}}: what each version a vLLM
    release pins exactly (torch==2.4.0) requires exactly in turn, without an extra (triton==3.0.0,
    only where `platform_machine == "x86_64"`): the dependency an aarch64 machine never gets."""
    out: dict[str, dict] = {}
    for parent in sorted(pinned):
        for version in sorted(pinned[parent], key=Version):
            wheel = pypi.wheel(parent, version)
            if wheel is None:
                continue
            for r in requirements(pypi.metadata(wheel)):
                if r["extra"] is None and exact(r["specifier"]) and r["name"] not in pinned:
                    out.setdefault(r["name"], {}).setdefault(parent, {})[version] = [r["specifier"], r["marker"]]
    return {k: out[k] for k in sorted(out)}


def _needs(pypi: Packages, name: str, version: str) -> list[str]:
    """The distributions a release requires without an extra (its Linux x86_64 wheel's METADATA)."""
    wheel = pypi.wheel(name, version)
    if wheel is None:
        return []
    return sorted({r["name"] for r in requirements(pypi.metadata(wheel)) if r["extra"] is None})


def _wheel_imports(pypi: Packages, name: str, version: str) -> list[str]:
    wheel = pypi.wheel(name, version, smallest=True)
    if wheel is None:
        return []
    # kept: the members cut to three parts (all import_names reads), so a change to it needs no re-read
    members = pypi.memo("modules-members", wheel["filename"],
                        lambda: sorted({"/".join(m.split("/")[:3]) for m in pypi.remote(wheel).namelist()}))
    return import_names(members)
