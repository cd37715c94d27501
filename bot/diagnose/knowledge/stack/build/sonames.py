"""Which wheel ships a shared library: `libcudart.so.12` → nvidia-cuda-runtime-cu12.

Read from the file list (the zip's central directory, the same names RECORD lists) of the newest
wheel of every nvidia-* package that a torch release pins or that the cuda-toolkit release it pins
pulls in, and of torch, triton and vLLM themselves (libc10_cuda.so, libtriton.so, vllm/_C.abi3.so).
"""

from __future__ import annotations

import platform
import posixpath
import re

from .packages import Packages, requirements

_LIB = re.compile(r"^lib[\w+.-]*\.so(?:\.\d+)*$|^_?\w+\.(?:abi3|cpython-[\w-]+)\.so$")
OWN = ("torch", "triton", "vllm")


def packages(torch: dict, pypi: Packages) -> list[str]:
    """nvidia-* packages torch pins, and those of the cuda-toolkit releases it pins (torch 2.11 on)."""
    names = set()
    toolkits = set()
    for rec in torch["releases"].values():
        for name, spec, _marker, _extra in rec["pins"]:
            if name.startswith("nvidia-"):
                names.add(name)
            if name == "cuda-toolkit" and spec.startswith("=="):
                toolkits.add(spec[2:])
    for version in toolkits:
        wheel = pypi.wheel("cuda-toolkit", version)
        if wheel is not None:
            names |= {r["name"] for r in requirements(pypi.metadata(wheel)) if r["name"].startswith("nvidia-")}
    return sorted(names)


def libraries(names: list[str]) -> list[str]:
    """The shared libraries among a wheel's file names (not those of its tests or examples)."""
    return [n for n in names if _LIB.match(posixpath.basename(n)) and "/test" not in n]


def newest_libraries(pypi: Packages, project: str) -> tuple[str, list[str]] | None:
    """(the newest release, the shared libraries of its Linux wheel) of a project."""
    releases = pypi.releases(project)
    if not releases:
        return None
    version = releases[-1]
    wheel = pypi.wheel(project, version, prefer=("manylinux", platform.machine()))
    if wheel is None:
        return None
    return version, pypi.memo("wheel-libraries", wheel["filename"], lambda: libraries(pypi.remote(wheel).namelist()))


def build(pypi: Packages, torch: dict) -> dict:
    """{"sonames": {soname: [[package, version, path in the wheel], ...]}, "source": [...]}"""
    block = {"sonames": {}, "source": "file lists of the newest Linux wheels of: "}
    add_projects(block, {project: found for project in [*packages(torch, pypi), *OWN]
                         if (found := newest_libraries(pypi, project))})
    return block


def add_projects(block: dict, found: dict[str, tuple[str, list[str]]]) -> None:
    """Projects' libraries (newest_libraries) added to a sonames block."""
    out = block["sonames"]
    for project, (version, names) in found.items():
        for path in names:
            out.setdefault(posixpath.basename(path), []).append([project, version, path])
    block["sonames"] = dict(sorted(out.items()))
    first = block["source"].endswith(": ")
    block["source"] += ("" if first else ", ") + ", ".join(f"{p}=={v}" for p, (v, _) in found.items())


def projects(block: dict) -> set[str]:
    """The projects a sonames block was read from (those without a library too: its source names them)."""
    return {entry[0] for entries in block["sonames"].values() for entry in entries} | \
        set(re.findall(r"([\w.-]+)==", block["source"]))
