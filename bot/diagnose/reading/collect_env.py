"""The environment report a paste carries: `python collect_env.py` (vLLM's bug template asks for it)
or PyTorch's `python -m torch.utils.collect_env`, read into fields, packages and env vars.

Two layouts print the same keys:

    PyTorch's, and vLLM's up to 0.8:        vLLM's from 0.9:
        PyTorch version: 2.3.0+cu121            ==============================
        Is debug build: False                          PyTorch Info
        CUDA used to build PyTorch: 12.1        ==============================
        ...                                     PyTorch version              : 2.7.0+cu126
        Versions of relevant libraries:         Is debug build               : False
        [pip3] torch==2.3.0                     ...
        [conda] torch  2.3.0  pypi_0  pypi      [pip3] torch==2.7.0
        vLLM Version: 0.4.2                     vLLM Version                 : 0.9.0

A key's value may run on below it ("GPU models and configuration:" then "GPU 0: ..." lines;
"cuDNN version: Probably one of the following:" then paths). The placeholders collect_env prints
for what it could not read ("Could not collect", "N/A", "No CUDA", "None") are no value.

Only the report's own region is read (from its first key, a bounded window on), and only when a
line of it is there: a paste without one costs two `str.find`.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

# Lines only a collect_env report prints: every layout has "Is debug build" (PyTorch's part) or vLLM's
# own "vLLM Version" line, or the package list's heading.
MARKERS = ("Is debug build", "vLLM Version", "Versions of relevant libraries")
WINDOW = 48 * 1024            # the longest reports seen (CPU flags, pip lists, topology) are ~30 KB

_KEY_VALUE = LazyRe(r"^(?P<key>[A-Za-z][\w .()/+-]{1,60}?)[ \t]*:[ \t]*(?P<value>.*?)[ \t]*$")
_PACKAGE = LazyRe(r"^\[(?P<mgr>pip3?|conda)\][ \t]+(?P<name>[A-Za-z0-9][\w.-]*)(?:==|[ \t]+)(?P<version>\d[^\s=]*)")
_ENV_LINE = LazyRe(r"^(?P<name>[A-Z_][A-Z0-9_]{1,80})=(?P<value>.*)$")
_BANNER = LazyRe(r"^={8,}$")
_GPU_LINE = LazyRe(r"GPU \d+:")
_NONE = {"could not collect", "n/a", "none", "no cuda", "not set", "", "unknown"}

# The keys a diagnosis reads, by the names the facts give them.
KEYS = {
    "pytorch version": "torch_version",
    "is debug build": "torch_debug",
    "cuda used to build pytorch": "torch_cuda",
    "rocm used to build pytorch": "torch_rocm",
    "os": "os",
    "gcc version": "gcc",
    "libc version": "libc",
    "python version": "python",
    "python platform": "python_platform",
    "is cuda available": "cuda_available",
    "cuda runtime version": "cuda_runtime",
    "gpu models and configuration": "gpus",
    "nvidia driver version": "driver_version",
    "cudnn version": "cudnn",
    "hip runtime version": "hip_runtime",
    "rocm version": "rocm",
    "vllm version": "vllm_version",
    "neuron sdk version": "neuron",
}


def find(text: str) -> int:
    """The offset of the report's first line in the text, or -1."""
    hits = [i for i in (text.find(m) for m in MARKERS) if i >= 0]
    if not hits:
        return -1
    first = min(hits)
    # start a little above it: the report's own header and the System Info lines come first
    start = text.rfind("Collecting environment information", max(0, first - 4096), first)
    if start < 0:
        start = max(0, first - 2048)
    return text.rfind("\n", 0, start) + 1


def parse(text: str) -> dict | None:
    """{"fields": {key: value} (every key as printed, lower case), "packages": {name: version},
    "env": {VAR: value}, "facts": the keys of KEYS that had a value} of the report in the text,
    or None when the paste has none."""
    start = find(text)
    if start < 0:
        return None
    lines = [piece for line in text[start:start + WINDOW].split("\n") for piece in _unflatten(line)]
    fields: dict[str, str] = {}
    packages: dict[str, str] = {}
    env: dict[str, str] = {}
    section = ""
    open_key = None                     # a key whose value runs on below it
    for i, raw in enumerate(lines):
        line = raw.strip()
        if _BANNER.match(line):
            if i + 2 < len(lines) and _BANNER.match(lines[i + 2].strip()):
                section = lines[i + 1].strip().lower()
            open_key = None
            continue
        if not line:
            open_key = None
            continue
        pkg = _PACKAGE.match(line)
        if pkg:
            packages.setdefault(pkg.group("name").lower().replace("_", "-"), pkg.group("version"))
            open_key = None
            continue
        # env vars: vLLM's own section, or (older reports) the lines after its vLLM fields
        if section.startswith("environment variables") or "vllm version" in fields:
            m = _ENV_LINE.match(line)
            if m:
                env.setdefault(m.group("name"), m.group("value"))
                continue
        m = _KEY_VALUE.match(line)
        if m and not line.startswith(("/", "[")) and not _GPU_LINE.match(line):
            key = " ".join(m.group("key").lower().split())
            value = m.group("value")
            if key not in fields:
                fields[key] = value
            open_key = key if not value or value.endswith("following:") else None
            continue
        if open_key is not None:
            joined = fields[open_key]
            fields[open_key] = f"{joined}\n{line}" if joined and not joined.endswith("following:") else \
                (line if not joined else f"{joined}\n{line}")
    if not fields and not packages:
        return None
    return {"fields": fields, "packages": packages, "env": env, "facts": _facts(fields)}


# A report pasted into a form that kept no line breaks: one line of "PyTorch version: 2.3.1+cu121 Is
# debug build: False CUDA used to build PyTorch: 12.1 ...". Cut again at the labels collect_env prints.
LABELS = ("PyTorch version", "Is debug build", "CUDA used to build PyTorch", "ROCM used to build PyTorch",
          "XPU used to build PyTorch", "OS", "GCC version", "Clang version", "CMake version", "Libc version",
          "Python version", "Python platform", "Is CUDA available", "CUDA runtime version",
          "CUDA_MODULE_LOADING set to", "GPU models and configuration", "Nvidia driver version",
          "cuDNN version", "HIP runtime version", "MIOpen runtime version", "Is XNNPACK available",
          "Is XPU available", "Caching allocator config", "CPU", "Versions of relevant libraries",
          "ROCM Version", "Neuron SDK Version", "vLLM Version", "vLLM Build Flags", "GPU Topology")
_LABEL_AT = LazyRe(r"(?:(?<=\s)|^)(?:%s)[ \t]*:|\[(?:pip3?|conda)\][ \t]" % "|".join(
    re.escape(label) for label in sorted(LABELS, key=len, reverse=True)))
_GPU_AT = LazyRe(r"(?<=\s)GPU \d+: ")


def _unflatten(line: str) -> list[str]:
    if len(line) < 160:
        return [line]
    cuts = [m.start() for m in _LABEL_AT.finditer(line)]
    if len(cuts) < 3:
        return [line]
    pieces = [line[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(line)])]
    out = []
    for piece in pieces:          # "GPU models and configuration: GPU 0: A GPU 1: B" → one GPU a line
        gpus = [m.start() for m in _GPU_AT.finditer(piece)]
        if piece.startswith("GPU models") and gpus:
            out.append(piece[:gpus[0]].strip())
            out.extend(piece[a:b].strip() for a, b in zip(gpus, [*gpus[1:], len(piece)]))
        else:
            out.append(piece)
    return [p for p in out if p]


def _value(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return None if value.lower() in _NONE else value


def _facts(fields: dict) -> dict:
    out = {}
    for key, name in KEYS.items():
        value = _value(fields.get(key))
        if value is not None:
            out[name] = value
    # the numbers a diagnosis compares, out of their prose
    if "python" in out:
        m = re.match(r"(\d+\.\d+(?:\.\d+)?)", out["python"])
        out["python"] = m.group(1) if m else out.pop("python")
    if "libc" in out:
        m = re.search(r"glibc-(\d+\.\d+)", out["libc"])
        if m:
            out["glibc"] = m.group(1)
    if "gcc" in out:
        m = re.search(r"\)\s*(\d+\.\d+(?:\.\d+)?)\s*$|(\d+\.\d+\.\d+)", out["gcc"])
        if m:
            out["gcc"] = m.group(1) or m.group(2)
    if "gpus" in out:
        names = re.findall(r"GPU \d+:\s*([^\n(]+?)\s*(?:\(UUID[^)]*\))?\s*(?:\n|$)", out["gpus"])
        out["gpus"] = names or [out["gpus"].split("\n")[0]]
    if "cudnn" in out:
        m = re.search(r"libcudnn\w*\.so\.(\d+\.\d+\.\d+)|^(\d+(?:\.\d+)*)$", out["cudnn"], re.M)
        out["cudnn"] = (m.group(1) or m.group(2)) if m else out["cudnn"].split("\n")[0]
    for key in ("torch_debug", "cuda_available"):
        if key in out:
            out[key] = out[key].lower() == "true"
    return out
