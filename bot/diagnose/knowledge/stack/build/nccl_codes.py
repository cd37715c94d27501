"""NCCL's result codes: number, name, the text ncclGetErrorString gives, and the line torch adds.

From NVIDIA's NCCL wheel (nvidia-nccl-cu12): the `ncclResult_t` enum of `include/nccl.h`, and the
text of each code asked from the wheel's own `libnccl.so.2` with ctypes (ncclGetErrorString needs
no GPU). The library is most of the wheel (hundreds of MB), so its texts are cached by the enum
they answer for: a new NCCL release with the same codes reuses them, and only a release that adds
a code downloads a library again.

torch prints one more line under NCCL's text, its own reading of the code ("ncclSystemError:
System call (e.g. socket, malloc) or external library call failed or device error."). It lives in
torch's C++ (torch/csrc/distributed/c10d/NCCLUtils.cpp, getNcclErrorDetailStr), compiled into
libtorch_cuda.so, which no small wheel carries: TORCH_DETAIL is written by hand from that file.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import platform
import re
import tempfile
from pathlib import Path

from .packages import Packages

PROJECT = "nvidia-nccl-cu12"
HEADER = "nvidia/nccl/include/nccl.h"
LIBRARY = "nvidia/nccl/lib/libnccl.so.2"

# pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp, getNcclErrorDetailStr (BSD-3): the line torch
# prints under "NCCL error ...: <NCCL's text>, NCCL version X". Releases built without
# NCCL_REMOTE_ERROR append "It can be also caused by unexpected exit of a remote peer." to
# ncclSystemError's; codes it does not name print "Unknown NCCL error!".
TORCH_DETAIL = {
    "ncclUnhandledCudaError": "ncclUnhandledCudaError: Call to CUDA function failed.",
    "ncclSystemError": "ncclSystemError: System call (e.g. socket, malloc) or external library call failed "
                       "or device error.",
    "ncclInternalError": "ncclInternalError: Internal check failed.",
    "ncclInvalidArgument": "ncclInvalidArgument: Invalid value for an argument.",
    "ncclInvalidUsage": "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "ncclRemoteError": "ncclRemoteError: A call failed possibly due to a network error or a remote process "
                       "exiting prematurely.",
}
TORCH_DETAIL_SOURCE = "pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp (getNcclErrorDetailStr), by hand"

_ENUM = re.compile(r"typedef\s+enum\s*\{(?P<body>[^}]*)\}\s*ncclResult_t\s*;", re.S)
_ITEM = re.compile(r"(\w+)\s*=\s*(\d+)")


def enum_items(header: str) -> list[tuple[str, int]]:
    """[(name, number)] of ncclResult_t, without the ncclNumResults count."""
    m = _ENUM.search(header)
    items = [(name, int(num)) for name, num in _ITEM.findall(m.group("body"))] if m else []
    return [(n, v) for n, v in items if n != "ncclNumResults"]


def library_texts(lib: Path, numbers: list[int]) -> dict[int, str]:
    nccl = ctypes.CDLL(str(lib))
    nccl.ncclGetErrorString.restype = ctypes.c_char_p
    nccl.ncclGetErrorString.argtypes = [ctypes.c_int]
    return {n: nccl.ncclGetErrorString(n).decode() for n in numbers}


def build(pypi: Packages) -> dict:
    """{"codes": [[number, name, text, torch's line]], "source": [...]}"""
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version, prefer=("manylinux", platform.machine()))
    header = pypi.memo("nccl-header", wheel["filename"], lambda: pypi.remote(wheel).texts([HEADER])[HEADER])
    items = enum_items(header)
    key = hashlib.sha1(json.dumps(items).encode()).hexdigest()[:16]

    def make():
        with tempfile.TemporaryDirectory() as tmp:
            lib = pypi.download(wheel, LIBRARY, Path(tmp) / "libnccl.so.2")
            texts = library_texts(lib, [n for _, n in items])
        return {"texts": {str(k): v for k, v in texts.items()}, "from": f"{PROJECT}=={version}"}

    said = pypi.memo("nccl-texts", key, make)
    codes = [[num, name, said["texts"][str(num)], TORCH_DETAIL.get(name)] for name, num in items]
    return {"codes": codes, "source": [f"{PROJECT}=={version} ({HEADER})",
                                       f"{said['from']} ({LIBRARY}, ncclGetErrorString)", TORCH_DETAIL_SOURCE]}
