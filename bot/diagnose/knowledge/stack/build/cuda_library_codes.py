"""The status codes of CUDA's math libraries: cuBLAS (and cuBLASLt, which shares its statuses),
cuDNN, cuSOLVER, cuSPARSE, cuRAND and cuFFT.

torch prints a failing call's status by its name ("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when
calling `cublasGemmEx(...)`", "cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "cuFFT error:
CUFFT_INTERNAL_ERROR"), so the name is the key; the number and a short text say what it means.

From NVIDIA's wheels on PyPI: each library's status enum in its header (numbers, aliases, and the
one-line doc comment cuDNN 9 and cuRAND give each item), read from the newest wheel of each CUDA
major (and cuDNN's last 8.x, whose numbers cuDNN 9 changed: torch < 2.4 ships it). cuBLAS's headers
say nothing of a status: its text is asked from the wheel's own libcublas with ctypes
(cublasGetStatusString needs no GPU), cached by the enum it answers for, as NCCL's are (nccl_codes.py):
the libraries are most of the wheel (hundreds of MB), downloaded again only when the enum changes.

NVIDIA's headers are proprietary: only these derived facts are stored.
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

# (key, the name a log's reader knows it by, the enum, [(PyPI project, header file name, releases:
# "newest" or a prefix of the version whose newest release is read)])
LIBRARIES = (
    ("cublas", "cuBLAS", "cublasStatus_t", [("nvidia-cublas-cu12", "cublas_api.h", ""),
                                            ("nvidia-cublas", "cublas_api.h", "")]),
    ("cudnn", "cuDNN", "cudnnStatus_t", [("nvidia-cudnn-cu12", "cudnn_ops_infer.h", "8."),
                                         ("nvidia-cudnn-cu12", "cudnn_graph.h", ""),
                                         ("nvidia-cudnn-cu13", "cudnn_graph.h", "")]),
    ("cusolver", "cuSOLVER", "cusolverStatus_t", [("nvidia-cusolver-cu12", "cusolver_common.h", "")]),
    ("cusparse", "cuSPARSE", "cusparseStatus_t", [("nvidia-cusparse-cu12", "cusparse.h", "")]),
    ("curand", "cuRAND", "curandStatus", [("nvidia-curand-cu12", "curand.h", "")]),
    ("cufft", "cuFFT", "cufftResult", [("nvidia-cufft-cu12", "cufft.h", "")]),
)

# cuBLAS's texts: libcublas needs libcublasLt beside it (loaded first, globally), and nothing else
CUBLAS_LIBRARIES = ("libcublasLt.so", "libcublas.so")

# `typedef enum [tag] { ... } Name;` or `enum Name { ... };`
_TYPEDEF = r"typedef\s+enum\s*\w*\s*\{{(?P<body>[^}}]*)\}}\s*{name}\s*;"
_PLAIN = r"\benum\s+{name}\s*\{{(?P<body>[^}}]*)\}}"
# NAME [DEPRECATION_MACRO] = value; the value a number or an earlier item's name
_ITEM = re.compile(r"\b(?P<name>[A-Z][A-Z0-9_]+)(?P<macro>\s+[A-Z][A-Z0-9_]*)?\s*=\s*"
                   r"(?P<value>0[xX][0-9a-fA-F]+|\d+|[A-Z][A-Z0-9_]+)")
_DOC = re.compile(r"/\*\*<(?P<block>.*?)\*/|///<(?P<line>[^\n]*)", re.S)
_COMMENT = re.compile(r"/\*(?!\*<).*?\*/|//(?!/<)[^\n]*", re.S)


def enum_items(header: str, enum_name: str) -> list[dict]:
    """[{name, number, text, deprecated}] of a status enum: an alias (= another item) takes that
    item's number, and its text when it has none of its own; a doc comment's tags (@since,
    @deprecated) are not text."""
    m = re.search(_TYPEDEF.format(name=re.escape(enum_name)), header, re.S) or \
        re.search(_PLAIN.format(name=re.escape(enum_name)), header, re.S)
    if not m:
        return []
    body = m.group("body")
    found = list(_ITEM.finditer(body))
    numbers: dict[str, int] = {}
    texts: dict[str, str | None] = {}
    out = []
    for i, item in enumerate(found):
        tail = body[item.end(): found[i + 1].start() if i + 1 < len(found) else len(body)]
        doc = _DOC.search(tail)
        said = (doc.group("block") or doc.group("line") or "") if doc else ""
        value = item.group("value")
        if value[0].isdigit():
            number = int(value, 16) if value[:2].lower() == "0x" else int(value)
        elif value in numbers:
            number = numbers[value]
        else:
            continue                      # an alias of a name this enum does not define
        name = item.group("name")
        deprecated = bool(item.group("macro") and "DEPRECATED" in item.group("macro")) or "@deprecated" in said
        text = _doc_text(said)
        if text is None and not value[0].isdigit():
            text = texts.get(value)
        numbers[name], texts[name] = number, text
        out.append({"name": name, "number": number, "text": text, "deprecated": deprecated})
    return out


def _doc_text(doc: str) -> str | None:
    """The sentence of a doc comment, without its tags: "cuDNN library not initialized"."""
    text = re.split(r"@\w+", doc, maxsplit=1)[0] if "@" in doc else doc
    text = " ".join(_COMMENT.sub(" ", text).split()).strip(" .")
    return text or None


def library_texts(folder: Path, names: dict[int, str]) -> dict[int, str]:
    """{number: text} from cuBLAS's cublasGetStatusString (libcublasLt loaded first: libcublas needs
    it), for the numbers the library names as the header does ("unrecognized status" otherwise)."""
    lt, blas = (next(folder.glob(f"{name}.*")) for name in CUBLAS_LIBRARIES)
    ctypes.CDLL(str(lt), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(blas))
    lib.cublasGetStatusString.restype = ctypes.c_char_p
    lib.cublasGetStatusString.argtypes = [ctypes.c_int]
    lib.cublasGetStatusName.restype = ctypes.c_char_p
    lib.cublasGetStatusName.argtypes = [ctypes.c_int]
    out = {}
    for n, name in names.items():
        if (lib.cublasGetStatusName(n) or b"").decode() == name:
            out[n] = lib.cublasGetStatusString(n).decode()
    return out


def _newest(pypi: Packages, project: str, prefix: str) -> str | None:
    releases = [r for r in pypi.releases(project) if r.startswith(prefix)]
    return releases[-1] if releases else None


def _member(names: list[str], base: str) -> str | None:
    """The wheel's member of that file name under an include/ (or lib/) folder."""
    return next((n for n in names if n.endswith("/" + base)), None)


def _one(pypi: Packages, key: str, enum: str, project: str, header: str, prefix: str) -> dict | None:
    version = _newest(pypi, project, prefix)
    if version is None:
        return None
    wheel = pypi.wheel(project, version, prefer=("manylinux", platform.machine()))
    if wheel is None:
        return None

    def make():
        z = pypi.remote(wheel)
        path = _member(z.namelist(), header)
        return {"path": path, "items": enum_items(z.texts([path])[path], enum) if path else []}

    facts = pypi.memo("library-codes", f"{wheel['filename']}:{header}", make)
    if key == "cublas" and facts["items"]:
        said = _cublas_texts(pypi, wheel, project, version, facts["items"])
        for item in facts["items"]:
            item["text"] = said["texts"].get(str(item["number"])) or item["text"]
        facts["texts_from"] = said["from"]
    release = ".".join(version.split(".")[:2])
    return {"release": release, "source": f"{project}=={version} ({facts['path']})", **facts}


def _cublas_texts(pypi: Packages, wheel: dict, project: str, version: str, items: list[dict]) -> dict:
    """cublasGetStatusString's texts, kept by the enum they answer for."""
    key = hashlib.sha1(json.dumps(sorted((i["name"], i["number"]) for i in items)).encode()).hexdigest()[:16]

    def make():
        names = pypi.remote(wheel).namelist()
        with tempfile.TemporaryDirectory() as tmp:
            for lib in CUBLAS_LIBRARIES:
                member = next((n for n in names if re.search(rf"/lib/{re.escape(lib)}\.\d+$", n)), None)
                if member is None:
                    return {"texts": {}, "from": None}
                pypi.download(wheel, member, Path(tmp) / member.rsplit("/", 1)[-1])
            texts = library_texts(Path(tmp), {i["number"]: i["name"] for i in items if not i["deprecated"]})
        return {"texts": {str(k): v for k, v in texts.items()},
                "from": f"{project}=={version} (libcublas, cublasGetStatusString)"}

    return pypi.memo("cublas-texts", key, make)


def build(pypi: Packages) -> dict:
    """{"libraries": {key: {"label", "codes": [[name, text, deprecated, [[release, number], ...]]], "source"}},
    "source": [...]}: a name's text is the newest release's that has one; its numbers are listed per
    release (cuDNN 9 renumbered cuDNN 8's)."""
    libraries: dict[str, dict] = {}
    sources: list[str] = []
    for key, label, enum, wheels in LIBRARIES:
        rows: dict[str, list] = {}
        said_by: list[str] = []
        for project, header, prefix in wheels:
            one = _one(pypi, key, enum, project, header, prefix)
            if one is None or not one["items"]:
                continue
            for said in (one["source"], one.get("texts_from")):
                if said and said not in said_by:
                    said_by.append(said)
            for item in one["items"]:
                row = rows.setdefault(item["name"], [item["name"], None, False, []])
                row[1] = item["text"] or row[1]
                row[2] = item["deprecated"]
                if [one["release"], item["number"]] not in row[3]:     # cuDNN 9 for CUDA 12 and 13
                    row[3].append([one["release"], item["number"]])
        if rows:
            libraries[key] = {"label": label, "codes": sorted(rows.values(), key=lambda r: (r[3][-1][1], r[0])),
                              "source": said_by}
            sources += said_by
    return {"libraries": libraries, "source": sources}
