"""environment(): the facts of the stack beneath vLLM, keyed as the stack index reads them (issue 21): torch's CUDA, the
CUDA runtime, the CUDA the driver supports, Python, glibc, the user, limits, the host, pip's conflicts, the Hub, and
a collect_env report's fields when the paste has one.
"""

from __future__ import annotations

import re

from .containers import container_gpu_command, container_gpu_request, container_image
from .hub import hf_endpoint, hub_client_error, hub_http_error, hub_offline, modelscope
from .machine import host, loader_libraries, pids_limit, rlimits
from .patterns import _P, _first
from .pip_uv import (
    _UV_TAG_LIST, index_failure, pip_conflicts, pip_installing_full, pip_python_ignored, shadowing,
    transformers_installed, uv_unchecked_index, uv_wheels_shipped, wheel_platform,
)


# The CUDA a torch build uses, by what the paste says about torch (its +cuXXX tag, collect_env's line).
_TORCH_CUDA = [
    _P(r"CUDA used to build PyTorch\s*:\s*(\d+\.\d+)"),
    _P(r"torch(?:==|[ :]+| version:? ?)\d+\.\d+(?:\.\d+)?\+cu(\d{2,3})\b", literals=("+cu",)),
    # collect_env's and issue forms' "PyTorch version: 2.5.1+cu124", "- PyTorch: 2.3.0+cu121", "PyTorch 版本: 2.8.0+cu128"
    _P(r"\bPy[Tt]orch(?: [Vv]ersion| ?版本)?(?: \(GPU\?\))?\s*[:：]?\s*[vV]?\d+\.\d+(?:\.\d+)?\+cu(\d{2,3})\b",
       literals=("+cu",)),
    _P(r"torch\.version\.cuda\s*(?:=|:|->)?\s*'?(\d+\.\d+)", literals=("torch.version.cuda",)),
]
# The CUDA runtime library the process loaded (collect_env; nvcc when it is the toolkit in use).
_CUDA_RUNTIME = [
    _P(r"CUDA runtime version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"Cuda compilation tools, release (\d+\.\d+)"),
]
# The newest CUDA the driver supports: nvidia-smi's header, and torch's "found version 11040".
_DRIVER_CUDA = [
    _P(r"Driver Version:\s*\d[\d.]*\s+(?:\|\s*)?CUDA Version:\s*(\d+\.\d+)", literals=("Driver Version:",)),
    _P(r"driver on your system is too old \(found version (\d+)\)"),
    _P(r"CUDA driver version[^\n]{0,40}?(?:is|:)\s*(\d{4,5})\b", literals=("CUDA driver version",)),
    # nvidia-smi -q, its fields aligned ("CUDA Version                              : 12.4"), and
    # nvidia-container-cli info ("NVRM version:   550.54.15" above "CUDA version:   12.4")
    _P(r"^\s*CUDA Version {2,}: (\d+\.\d+)\s*$", re.M, literals=("CUDA Version  ",)),
    _P(r"NVRM version:\s+\d[\d.]*\s+CUDA version:\s+(\d+\.\d+)", literals=("NVRM version:",), span=80),
]
_PYTHON = [
    _P(r"Python version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    # the Python a pip or uv command chose wheels for, not the one it runs on: `pip download --python-version 3.13`,
    # `uv pip compile --python-version 3.9` (uv's lower bound)
    _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--python-version[ =](3)\.?(\d{1,2})\b",
       literals=("--python-version",)),
    # pip -v on a file whose Requires-Python excludes the running Python: "Link requires a different
    # Python (3.13.0 not in: '>=3.9,<3.13')" names that Python
    _P(r"Link requires a different Python \((3\.\d{1,2})(?:\.\d+)? not in", literals=("requires a different Python",)),
    # pip once it has read a downloaded file's own Requires-Python (an index that did not give it): "ERROR: Package
    # 'vllm' requires a different Python: 3.13.0 not in '<3.13,>=3.9'" (pip/_internal/resolution/legacy/resolver.py)
    _P(r"Package '[\w.-]+' requires a different Python: (3\.\d{1,2})(?:\.\d+)? not in", literals=("requires a different Python",)),
    # uv's resolver names the Python it resolves for, as its best ABI tag: "has no wheels with a matching Python
    # ABI tag (e.g., `cp313`)", and its hint "You're using CPython 3.13 (`cp313`), but `torch` (v2.4.0) only
    # has wheels ..." (`uv pip install`) or "You require CPython 3.13 (`cp313`), but we only found wheels ..."
    _P(r"(?:You're using|You require) CPython (3\.\d{1,2})\b", literals=("CPython 3.",)),
    _P(r"has no wheels with a matching Python ABI tag \(e\.g\., `?cp3(\d{1,2})`?\)", literals=("matching Python ABI tag",)),
    # uv on a Requires-Python: "the current Python version (3.13.0) does not satisfy ...", or `--python-version`'s
    # lower bound: "the requested Python version (>=3.9) does not satisfy ..."
    _P(r"the (?:current|requested) Python version \((?:>=\s*)?(3\.\d{1,2})\b", literals=("Python version (",)),
    _P(r"[/\\][Pp]ython(3\.\d{1,2})[/\\](?:site|dist)-packages[/\\]", literals=("/python3.", "\\python3.", "/Python3.")),
    _P(r"[/\\]Python3(\d{1,2})[/\\]", literals=("\\Python3", "/Python3")),
    _P(r"\bPython (3\.\d{1,2}\.\d{1,2})\b", literals=("Python 3.",)),
    # a wheel tag, but not of a wheel pip turned down ("none of the wheel's tags (cp310-cp310-...) are
    # compatible", "... is not a supported wheel on this platform"): that one is for another Python
    _P(r"^(?!.*(?:none of the wheel's tags|not a supported wheel|Skipping link|requires a different Python))"
       r".*?\bcp3(\d{1,2})-cp3\d{1,2}", re.M, literals=("-cp3",)),
]
_GLIBC = [
    _P(r"Libc version\s*:\s*glibc-(\d+\.\d+)"),
    # uv names the machine's best platform tag: a manylinux_2_28 tag is a glibc 2.28 (`--python-platform
    # x86_64-manylinux_2_28`, or the running system's)
    _P(r"has no wheels with a matching platform tag \(e\.g\., `?manylinux_(\d+)_(\d+)_", literals=("matching platform tag",)),
    _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--(?:python-)?platform[ =](?:(?:x86_64|aarch64)-)?"
       r"manylinux_(\d+)_(\d+)", literals=("-platform",)),
    _P(r"ldd \((?:GNU libc|[^)]*GLIBC[^)]*)\) (\d+\.\d+)"),
    _P(r"-with-glibc(\d+\.\d+)\b", literals=("-with-glibc",)),
]
_UID = [
    _P(r"getpwuid\(\): uid not found: (\d+)"),
    _P(r"\buid=(\d+)\(", literals=("uid=",)),
    _P(r"(?:docker run|podman run)[^\n]*?(?:--user|-u)[ =](\d+)\b", literals=("docker run", "podman run")),
]
_USER = [
    _P(r"\buid=\d+\(([\w.-]+)\)", literals=("uid=",)),
    _P(r"^\s*(?:export )?USER=([\w.-]+)\s*$", re.M, literals=("USER=",)),
]
_HOME = [
    _P(r"^\s*(?:export )?HOME=(\S*)\s*$", re.M, literals=("HOME=",)),
    _P(r"\bHOME is (?:set to )?'?(/[^\s']*)", literals=("HOME is",)),
]


def _cuda_number(value: str | None) -> str | None:
    """"124" → "12.4", "11040" (torch's and the driver API's integer) → "11.4", "12.8" stays."""
    if not value or "." in value:
        return value
    if len(value) >= 4:
        n = int(value)
        return f"{n // 1000}.{n % 1000 // 10}"
    return f"{value[:-1]}.{value[-1]}" if len(value) >= 2 else None


NEAR = 12 * 1024


def environment(text: str, low: str, error_lines: str = "") -> dict:
    """The facts of the stack beneath vLLM (the stack index's keys): torch's CUDA, the CUDA runtime,
    the CUDA the driver supports, Python, glibc, the libraries the loader names, the user, limits,
    the host, pip's conflicts; and the collect_env report's fields when the paste has one. Prompts,
    commands, `ulimit -a` and `id` are printed where a paste starts or ends, and paths in its error
    lines: in a long paste those parts alone are read for them."""
    from bot.diagnose.reading import collect_env
    report = collect_env.parse(text) if any(m in text for m in collect_env.MARKERS) else None
    env = report["facts"] if report else {}
    if len(text) > 2 * NEAR + len(error_lines):
        near = "\n".join((text[:NEAR], error_lines[:NEAR], text[-NEAR // 2:]))
        low_near = near.lower()
    else:
        near, low_near = text, low
    if "following platform" in low_near:          # what a package ships is not where it runs
        os_hint, container = host(_UV_TAG_LIST.sub("", near), _UV_TAG_LIST.sub("", low_near))
    else:
        os_hint, container = host(near, low_near)
    libs = loader_libraries(text)
    conflicts = pip_conflicts(near)
    ms_on, ms_ignored = modelscope(text)
    gpu_request = container_gpu_request(near)
    packages = report["packages"] if report else {}
    return {
        "torch_cuda": _cuda_number(env.get("torch_cuda") or _first(_TORCH_CUDA, near)),
        "cuda_runtime": env.get("cuda_runtime") or _first(_CUDA_RUNTIME, near),
        "driver_cuda": _cuda_number(_first(_DRIVER_CUDA, near)),
        "python_version": env.get("python") or _python(_first(_PYTHON, near)),
        "wheel_platform": wheel_platform(near),
        "hub_offline": hub_offline(text),
        "hub_http_error": hub_http_error(text),
        "hub_client_error": hub_client_error(text),
        "hf_endpoint": hf_endpoint(text),
        "modelscope_on": ms_on,
        "modelscope_ignored": ms_ignored,
        "glibc_version": env.get("glibc") or _first(_GLIBC, near),
        "gcc_version": env.get("gcc"),
        "os_release": env.get("os"),
        "loader_libraries": libs,
        "libstdcxx_path": next((p for p in libs if "libstdc++.so" in p), None),
        "uid": _first(_UID, near),
        "user": _first(_USER, near),
        "home": _first(_HOME, near),
        "rlimits": rlimits(near),
        # the pids cgroup's limit the paste shows (pids.max, systemctl's "Tasks: (limit: N)", --pids-limit)
        "pids_limit": pids_limit(near),
        "os_hint": os_hint,
        "container": container,
        # "yes" where the paste's own container command asks for no GPU (a paragraph's `{?container_gpus_missing}`)
        "container_gpus_missing": "yes" if gpu_request == "none" else None,
        # how the paste's own container command asks for the GPU: none | requested (None: no command shown)
        "container_gpu_request": gpu_request,
        "container_gpu_command": container_gpu_command(near) if gpu_request == "none" else None,
        # the image the paste's own `docker run` / compose file names, for answers that point back at it
        "container_image": container_image(near),
        "pip_conflicts": conflicts,
        "index_failure": index_failure(near),
        "pip_installing_full": pip_installing_full(near),
        "uv_wheels_shipped": uv_wheels_shipped(near),
        "uv_unchecked_index": uv_unchecked_index(near),
        "pip_python_ignored": pip_python_ignored(near),
        "packages": packages,
        "transformers_version": transformers_installed(near, packages, conflicts),
        "collect_env": report["fields"] if report else None,
        "env_vars": report["env"] if report else {},
        **shadowing(text),
    }


def _python(value: str | None) -> str | None:
    """"11" (a Windows folder, a wheel tag) → "3.11"."""
    return value if not value or "." in value else f"3.{value}"
