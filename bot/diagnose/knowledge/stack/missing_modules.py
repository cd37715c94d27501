"""`No module named 'X'` against the stack index's table of import names (build/distributions.py):
the distribution that installs X, whether the log's vLLM requires it (the specifier, the extra, the
environment marker), the platforms its wheels are for, and the command that installs it.

describe() gives the `mm_*` values vllm-optional-package-missing is filled with (advice.py's deriver);
{} when the table does not know X (the user's own module, a package no vLLM release needs): then the
answer says only what vLLM's source says.
"""

from __future__ import annotations

import re

from .stack_index import vkey

_OS_WORDS = {"linux": "Linux", "musllinux": "Linux (musl)", "macos": "macOS", "windows": "Windows"}
# The servers vLLM runs on: a distribution with wheels for both says nothing about the platform.
_SERVERS = ("linux_x86_64", "linux_aarch64")


def describe(ix, module: str, facts: dict) -> dict:
    found = ix.distributions_of(module) if ix is not None else None
    if not found:
        return {}
    name, dists = found
    version = facts.get("vllm_version")
    release = ix.pins_release(str(version)) if version else None
    required = {d: ix.requirements_of(release, d) for d in dists} if release else {}
    dist = next((d for d in dists if required.get(d)), dists[0])
    out: dict = {"mm_name": name, "mm_dist": dist}
    if re.sub(r"[-_.]+", "-", name).lower() != dist:
        out["mm_named"] = "yes"           # cv2 is opencv-python-headless: worth saying
    if len(dists) > 1:
        out["mm_dists"] = ", ".join(f"`{d}`" for d in dists)
    if release:
        out["mm_release"] = release
        pins = required.get(dist) or []
        through = None if pins else ix.required_through(release, dist)
        if through:
            parent, parent_version, pin = through
            out["mm_through"] = f"{parent} {parent_version}"
            pins = [pin]
        out.update(_requirement(dist, pins, release))
        if not pins:
            out.update(_elsewhere(ix, dist, release))
    parents = ix.needed_by(dist)
    if parents and not out.get("mm_req"):
        out["mm_via"] = ", ".join(f"`{p}`" for p in parents[:3])
    out.update(_wheels(ix, dist, out.get("mm_exact")))
    out.update(_host_without_wheel(ix, dists, facts))
    spec = out.get("mm_spec")
    if dist in _TORCH_CPU_INDEX and facts.get("vllm_cpu_wheel"):
        out.update(_cpu_wheel(ix, dist, spec, release, facts))
    out.setdefault("mm_fix", f'pip install "{dist}{spec}"' if spec else f"pip install {dist}")
    return out


# torch's own packages, which vLLM's CPU build takes from PyTorch's CPU index: PyPI's are CUDA builds that do not
# load beside a `+cpu` torch ("operator torchvision::nms does not exist")
_TORCH_CPU_INDEX = ("torch", "torchvision", "torchaudio")


def _cpu_wheel(ix, dist: str, spec: str | None, release: str | None, facts: dict) -> dict:
    """On vLLM's CPU build the wheel comes from PyTorch's CPU index, and reinstalling `vllm` would bring the CUDA
    build. The table's pins are the CUDA wheel's: they name the right release only where the log's torch is the
    one that wheel pins too (the CPU build pins its own `+cpu` torch)."""
    torch = (facts.get("torch_version") or "").split("+")[0]
    pinned = next((p.specifier[2:].strip() for p in (ix.requirements_of(release, "torch") if release else ())
                   if p.specifier.startswith("==") and not p.extra), None)
    paired = spec if spec and dist != "torch" and torch and torch == pinned else None
    wanted = f'"{dist}{paired}"' if paired else dist
    return {"mm_cpu_wheel": "yes", "mm_required": None, "mm_cpu_pair": f"{dist}{paired}" if paired else None,
            "mm_fix": f"pip install {wanted} --index-url https://download.pytorch.org/whl/cpu"}


def _requirement(dist: str, pins: list, release: str) -> dict:
    """How the release requires it: without an extra first (an install that lacks it is incomplete),
    else the extra that brings it."""
    plain = [p for p in pins if not p.extra]
    if plain:
        p = plain[0]
        out = {"mm_req": f"{dist}{p.specifier}", "mm_spec": p.specifier}
        marker = _marker(p.marker)
        if marker:
            out["mm_marker"] = marker
        else:
            out["mm_required"] = "yes"
        if p.specifier.startswith("==") and "*" not in p.specifier and "," not in p.specifier:
            out["mm_exact"] = p.specifier[2:].strip()
        return out
    if pins:
        p = pins[0]
        out = {"mm_req": f"{dist}{p.specifier}", "mm_extra": p.extra,
               "mm_fix": f'pip install "vllm[{p.extra}]=={release}"'}
        marker = _marker(p.marker)
        if marker:
            out["mm_marker"] = marker
        return out
    return {"mm_not_required": "yes"}


def _marker(marker: str | None) -> str | None:
    """The environment clauses of a requirement's marker, the extra taken out."""
    if not marker:
        return None
    text = re.sub(r'\s*(?:and\s+)?extra\s*==\s*"[^"]+"\s*(?:and\s+)?', " ", marker).strip()
    text = re.sub(r"^\((.*)\)$", r"\1", text).strip()
    return text or None


def _elsewhere(ix, dist: str, release: str) -> dict:
    """The vLLM releases that do require it, when the log's does not."""
    having = ix.requiring_releases(dist)
    if not having:
        return {}
    key = vkey(release)
    before = [v for v in having if vkey(v) < key]
    after = [v for v in having if vkey(v) > key]
    out = {}
    if before:
        out["mm_until"] = before[-1]
    if after:
        out["mm_from"] = after[0]
    return out


def _wheels(ix, dist: str, version: str | None) -> dict:
    found = ix.wheel_platforms(dist, version)
    if not found:
        return {}
    v, plats = found
    wheels = [p for p in plats if p != "sdist"]
    out = {"mm_wheel_version": v}
    if not wheels:
        out["mm_sdist_only"] = "yes"
    elif "any" not in wheels and not all(p in wheels for p in _SERVERS):
        out["mm_platforms"] = ", ".join(_platform_words(p) for p in wheels)
    return out


# The OS a paste shows it ran on (facts.host's os_hint) as the wheel table names it; WSL runs Linux wheels
_HOST_OS = {"macos": "macos", "windows": "windows"}


def _host_without_wheel(ix, dists: list, facts: dict) -> dict:
    """The paste ran on macOS or native Windows and no distribution of the module ships a wheel for it there
    (triton on a Mac): no `pip install` brings it, whatever the step above says. Nothing when a distribution's
    wheels are unknown, universal, or built from a source archive."""
    host = _HOST_OS.get(str(facts.get("os_hint") or ""))
    if not host:
        return {}
    shown = None
    for d in dists:
        found = ix.wheel_platforms(d)
        if not found:
            return {}
        plats = found[1]
        if any(p in ("any", "sdist") or p.partition("_")[0] == host for p in plats):
            return {}
        shown = shown or (d, found)
    d, (version, plats) = shown
    return {"mm_host": _OS_WORDS[host], "mm_wheel_version": version, "mm_host_dist": d,
            "mm_platforms": ", ".join(_platform_words(p) for p in plats)}


def _platform_words(platform: str) -> str:
    os_name, _, arch = platform.partition("_")
    return f"{_OS_WORDS.get(os_name, os_name)} {arch}".strip()
