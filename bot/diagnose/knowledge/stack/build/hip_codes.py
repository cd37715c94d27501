"""ROCm's error codes: HIP's `hipError_t` and the HSA runtime's `hsa_status_t`.

From the ROCm headers the triton wheel carries for its AMD backend (triton/backends/amd/include/:
hip/hip_runtime_api.h, hsa/hsa.h, hsa/hsa_ext_amd.h, hip/hip_version.h), the newest release on PyPI:
the numbers and names of both enums, and the one-line doc comment each code has there. AMD's own
statuses (HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, the GPU's page fault that ROCm prints as it
aborts) are added to hsa_status_t in hsa_ext_amd.h, by an enum of their own. An alias the header calls
deprecated ("hipErrorMemoryAllocation = 2") names the same code as the one before it.

The text a log shows is hipGetErrorString's ("HIP error: invalid device ordinal"), compiled into
libamdhip64.so, which only ROCm itself and torch's ROCm wheels (gigabytes) carry: RUNTIME_TEXT is
written by hand for the codes vLLM users paste, each as a public log shows it. The headers are MIT
licensed; only these derived facts are stored.
"""

from __future__ import annotations

import re

from .packages import Packages

PROJECT = "triton"
FOLDER = "triton/backends/amd/include"
HIP_HEADER = f"{FOLDER}/hip/hip_runtime_api.h"
HSA_HEADER = f"{FOLDER}/hsa/hsa.h"
VERSION_HEADER = f"{FOLDER}/hip/hip_version.h"
HSA_EXT_HEADER = f"{FOLDER}/hsa/hsa_ext_amd.h"

# ROCm clr hipamd/src/hip_error.cpp (ihipGetErrorString), as torch prints it after "HIP error: "; by
# hand, from public logs (the same words as CUDA's code of the same number, which HIP mirrors).
RUNTIME_TEXT = {
    1: "invalid argument",
    2: "out of memory",
    3: "initialization error",
    98: "invalid device function",
    100: "no ROCm-capable device is detected",
    101: "invalid device ordinal",
    # hipModuleLoad*/the fat binary's code object could not be loaded (torch#111601, #119637; flash-attn#1652)
    303: "shared object initialization failed",
    401: "the operation cannot be performed in the present state",
    700: "an illegal memory access was encountered",
    719: "unspecified launch failure",
}
RUNTIME_TEXT_SOURCE = "ROCm clr hipamd/src/hip_error.cpp (hipGetErrorString) as logs print it, by hand"

_HIP_ENUM = re.compile(r"typedef\s+enum\s+(?:\w+\s+)*hipError_t\s*\{(?P<body>.*?)\}\s*hipError_t\s*;", re.S)
_HIP_ITEM = re.compile(r"(?P<dep>//\s*Deprecated\s*\n\s*)?(?P<name>hip\w+)\s*=\s*(?P<num>\d+)\s*,?[ \t]*"
                       r"(?P<doc>(?:///<[^\n]*\n\s*)*)")
_HSA_ENUM = re.compile(r"typedef\s+enum\s*\{(?P<body>(?:(?!\}).)*?HSA_STATUS_SUCCESS.*?)\}\s*hsa_status_t\s*;", re.S)
# hsa_ext_amd.h: "enum { /** doc */ HSA_STATUS_ERROR_INVALID_MEMORY_POOL = 40, ... };" (no typedef name)
_HSA_EXT_ENUM = re.compile(r"\benum\s*\{(?P<body>(?:(?!\}).)*?HSA_STATUS_\w+\s*=.*?)\}\s*;", re.S)
_HSA_ITEM = re.compile(r"/\*\*(?P<doc>(?:(?!\*/).)*)\*/\s*(?P<name>HSA_STATUS_\w+)\s*=\s*(?P<num>0x[0-9A-Fa-f]+|\d+)", re.S)


def _doc(text: str) -> str:
    words = re.sub(r"\s*(?:///<|\*)\s*", " ", text).split()
    return " ".join(words).rstrip(".")


def hip_items(header: str) -> list[list]:
    """[[number, name, doc, deprecated]] of hipError_t, in the header's order."""
    m = _HIP_ENUM.search(header)
    if not m:
        return []
    return [[int(i.group("num")), i.group("name"), _doc(i.group("doc")) or None, bool(i.group("dep"))]
            for i in _HIP_ITEM.finditer(m.group("body"))]


def hsa_items(header: str) -> list[list]:
    """[[number, name, doc]] of hsa_status_t."""
    m = _HSA_ENUM.search(header)
    if not m:
        return []
    return [[int(i.group("num"), 0), i.group("name"), _doc(i.group("doc"))] for i in _HSA_ITEM.finditer(m.group("body"))]


def hsa_ext_items(header: str) -> list[list]:
    """[[number, name, doc]] of the statuses hsa_ext_amd.h adds to hsa_status_t."""
    m = _HSA_EXT_ENUM.search(header)
    if not m:
        return []
    return [[int(i.group("num"), 0), i.group("name"), _doc(i.group("doc"))] for i in _HSA_ITEM.finditer(m.group("body"))]


def hip_version(header: str) -> str | None:
    parts = [re.search(rf"#define\s+HIP_VERSION_{p}\s+(\d+)", header) for p in ("MAJOR", "MINOR")]
    return ".".join(p.group(1) for p in parts) if all(parts) else None


def build(pypi: Packages) -> dict:
    """{"hip": [[number, name, text, doc, deprecated]], "hsa": [[number, name, doc]], "rocm", "source"}"""
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)

    def make():
        texts = pypi.remote(wheel).texts([HIP_HEADER, HSA_HEADER, VERSION_HEADER])
        return {"hip": hip_items(texts[HIP_HEADER]), "hsa": hsa_items(texts[HSA_HEADER]),
                "rocm": hip_version(texts[VERSION_HEADER])}

    facts = pypi.memo("hip-codes", wheel["filename"], make)
    ext = pypi.memo("hsa-ext-codes", wheel["filename"],
                    lambda: hsa_ext_items(pypi.remote(wheel).texts([HSA_EXT_HEADER])[HSA_EXT_HEADER]))
    known = {n for n, _, _ in facts["hsa"]}
    hsa = sorted(facts["hsa"] + [row for row in ext if row[0] not in known])
    hip = [[n, name, None if dep else RUNTIME_TEXT.get(n), doc, dep] for n, name, doc, dep in facts["hip"]]
    return {"hip": hip, "hsa": hsa, "rocm": facts["rocm"],
            "source": [f"{PROJECT}=={version} ({HIP_HEADER}, {HSA_HEADER}, {HSA_EXT_HEADER}; HIP {facts['rocm']})",
                       RUNTIME_TEXT_SOURCE]}
