"""Which wheel ships a shared library: `libcudart.so.12` → nvidia-cuda-runtime-cu12.

Read from the file list (the zip's central directory, the same names RECORD lists) of the newest
wheel of every nvidia-* package that a torch release pins or that the cuda-toolkit release it pins
pulls in, and of torch, triton and vLLM themselves (libc10_cuda.so, libtriton.so, vllm/_C.abi3.so).
"""

from __future__ import annotations

import platform
import posixpath
import re

from .pypi import PyPI, requirements

_LIB = re.compile(r"^lib[\w+.-]*\.so(?:\.\d+)*$|^_?\w+\.(?:abi3|cpython-[\w-]+)\.so$")
OWN = ("torch", "triton", "vllm")


def packages(torch: dict, pypi: PyPI) -> list[str]:
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


def build(pypi: PyPI, torch: dict) -> dict:
    """{"sonames": {soname: [[package, version, path in the wheel], ...]}, "source": [...]}"""
    out: dict[str, list] = {}
    sources = []
    for project in [*packages(torch, pypi), *OWN]:
        releases = pypi.releases(project)
        if not releases:
            continue
        version = releases[-1]
        wheel = pypi.wheel(project, version, prefer=("manylinux", platform.machine()))
        if wheel is None:
            continue
        names = pypi.memo("wheel-libraries", wheel["filename"], lambda: libraries(pypi.remote(wheel).namelist()))
        for path in names:
            out.setdefault(posixpath.basename(path), []).append([project, version, path])
        sources.append(f"{project}=={version}")
    return {"sonames": dict(sorted(out.items())),
            "source": "file lists of the newest Linux wheels of: " + ", ".join(sources)}
