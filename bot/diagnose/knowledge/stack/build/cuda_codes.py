"""CUDA's error codes: the runtime's `cudaError` and the driver's `CUresult`.

From NVIDIA's CUDA runtime wheels (nvidia-cuda-runtime-cu12, and nvidia-cuda-runtime for CUDA 13):
the numbers and names from the enums in `include/driver_types.h` (cudaError) and `include/cuda.h`
(CUresult), and the one-line text each runtime code prints, asked from the wheel's own
`libcudart.so` with ctypes (cudaGetErrorName / cudaGetErrorString need no GPU and no driver).
The text is what a log shows ("CUDA error: CUDA driver version is insufficient for CUDA runtime
version"); the headers' doc comments are not kept, only whether one calls the code deprecated.

The driver's own texts come from cuGetErrorString in libcuda, which only the NVIDIA driver ships
(no wheel has it): a driver code carries the runtime code of the same number instead, whose text
the lookup shows (the numbers were made to agree in CUDA 10.1).

NVIDIA's headers are proprietary: only these derived facts are stored.
"""

from __future__ import annotations

import ctypes
import platform
import re
import tempfile
from pathlib import Path

from .packages import Packages

# (PyPI project, the folder inside its wheel, the runtime library's file name)
WHEELS = (
    ("nvidia-cuda-runtime-cu12", "nvidia/cuda_runtime", "libcudart.so.12"),
    ("nvidia-cuda-runtime", "nvidia/cu13", "libcudart.so.13"),
)

_ENUM = r"\benum\s+(?:__device_builtin__\s+)?{name}\s*\{{(?P<body>.*?)\}}"
_ITEM = re.compile(r"(?P<doc>/\*\*(?:(?!\*/).)*\*/)?\s*,?\s*(?P<name>\w+)\s*=\s*(?P<num>\d+)\s*,?", re.S)


def enum_items(header: str, enum_name: str) -> list[dict]:
    """[{name, number, deprecated}] of one C enum whose items carry /** doc */ comments."""
    m = re.search(_ENUM.format(name=re.escape(enum_name)), header, re.S)
    if not m:
        return []
    out = []
    for item in _ITEM.finditer(m.group("body")):
        doc = item.group("doc") or ""
        out.append({"name": item.group("name"), "number": int(item.group("num")),
                    "deprecated": "\\deprecated" in doc or "deprecated as of" in doc})
    return out


def runtime_texts(lib: Path, numbers: list[int]) -> dict[int, tuple[str, str]]:
    """{number: (name, text)} from libcudart's cudaGetErrorName and cudaGetErrorString."""
    cudart = ctypes.CDLL(str(lib))
    cudart.cudaGetErrorName.restype = ctypes.c_char_p
    cudart.cudaGetErrorString.restype = ctypes.c_char_p
    out = {}
    for n in numbers:
        out[n] = (cudart.cudaGetErrorName(n).decode(), cudart.cudaGetErrorString(n).decode())
    return out


def _one(pypi: Packages, project: str, folder: str, lib_name: str) -> dict | None:
    releases = pypi.releases(project)
    if not releases:
        return None
    version = releases[-1]
    wheel = pypi.wheel(project, version, prefer=("manylinux", platform.machine()))

    def make():
        z = pypi.remote(wheel)
        texts = z.texts([f"{folder}/include/driver_types.h", f"{folder}/include/cuda.h"])
        runtime = enum_items(texts[f"{folder}/include/driver_types.h"], "cudaError")
        driver = enum_items(texts[f"{folder}/include/cuda.h"], "cudaError_enum")
        with tempfile.TemporaryDirectory() as tmp:
            lib = pypi.download(wheel, f"{folder}/lib/{lib_name}", Path(tmp) / lib_name)
            said = runtime_texts(lib, [r["number"] for r in runtime])
        for r in runtime:
            name, text = said[r["number"]]
            # the library names the code as the header does; a text of "unrecognized error code"
            # means this library does not know it (a header ahead of its library never happened)
            r["text"] = text if name == r["name"] else None
        return {"runtime": runtime, "driver": driver}

    facts = pypi.memo("cuda-codes", wheel["filename"], make)
    cuda = ".".join(version.split(".")[:2])
    return {"cuda": cuda, "source": f"{project}=={version} ({folder}/include/driver_types.h, "
                                     f"{folder}/include/cuda.h, {folder}/lib/{lib_name})", **facts}


def build(pypi: Packages) -> dict:
    """{"runtime": [[number, name, text, deprecated, cuda releases]], "driver": [[number, name,
    deprecated, cuda releases]], "source": [...]}: the newest wheel of each CUDA major; a code
    known to both keeps the newest text, and lists the CUDA releases whose headers have it."""
    runtime: dict[str, list] = {}
    driver: dict[str, list] = {}
    sources = []
    for project, folder, lib in WHEELS:
        one = _one(pypi, project, folder, lib)
        if one is None:
            continue
        sources.append(one["source"])
        for r in one["runtime"]:
            row = runtime.setdefault(r["name"], [r["number"], r["name"], r["text"], r["deprecated"], []])
            row[2], row[3] = r["text"] or row[2], r["deprecated"]
            row[4].append(one["cuda"])
        for r in one["driver"]:
            row = driver.setdefault(r["name"], [r["number"], r["name"], r["deprecated"], []])
            row[2] = r["deprecated"]
            row[3].append(one["cuda"])
    return {"runtime": sorted(runtime.values()), "driver": sorted(driver.values()), "source": sources}
