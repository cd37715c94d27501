"""Dependency pins per release, from the METADATA PyPI serves beside each wheel (PEP 658).

- vLLM, every final release from 0.5.0 on: its requirements on torch, transformers, tokenizers,
  huggingface_hub, triton, xformers, flashinfer and any nvidia-* / cuda-* package (the Linux
  x86_64 wheel's METADATA: what a GPU server installs).
- torch, every final release from 2.0 on and any older one a vLLM release pins: the CUDA it was
  built with and its nvidia-*, cuda-* and triton pins. The CUDA is the major.minor of its
  nvidia-cuda-runtime(-cuXX) pin, or of its cuda-toolkit pin (torch 2.11 on); failing both,
  `cuda` of the wheel's torch/version.py.
"""

from __future__ import annotations

import re

from packaging.version import Version

from .packages import Packages, requirements

VLLM_SINCE = "0.5.0"
TORCH_SINCE = "2.0.0"
WATCHED = {"torch", "transformers", "tokenizers", "huggingface-hub", "triton", "xformers", "flashinfer-python",
           "flashinfer", "torchvision", "torchaudio"}


def watched(name: str) -> bool:
    return name in WATCHED or name.startswith(("nvidia-", "cuda-"))


def release_pins(metadata: str) -> list[list]:
    """[[package, specifier, marker, extra]] of the watched requirements of a release's METADATA."""
    return [[r["name"], r["specifier"], r["marker"], r["extra"]] for r in requirements(metadata) if watched(r["name"])]


def vllm_pins(pypi: Packages) -> dict:
    """{"releases": {version: [[package, specifier, marker, extra], ...]}, "source": ...}"""
    out = {}
    for version in pypi.releases("vllm", since=VLLM_SINCE):
        wheel = pypi.wheel("vllm", version)
        if wheel is None:
            continue
        out[version] = release_pins(pypi.metadata(wheel))
    return {"releases": out, "source": "vllm's wheels on PyPI, METADATA Requires-Dist (Linux x86_64 wheel)"}


def add_vllm_releases(block: dict, metadata: dict[str, str]) -> None:
    """vLLM releases added to a vllm_pins block, from their METADATA (`index update`), in order."""
    releases = {**block["releases"], **{v: release_pins(text) for v, text in metadata.items()}}
    block["releases"] = dict(sorted(releases.items(), key=lambda kv: Version(kv[0])))


_CUDA_PIN = re.compile(r"^(?:nvidia-cuda-runtime(?:-cu\d+)?|cuda-toolkit)$")


def cuda_of(pins: list[list]) -> tuple[str, str] | None:
    """(CUDA major.minor, the pin it was read from) of a torch release's pins."""
    for name, spec, _marker, _extra in pins:
        m = re.match(r"^(?:==|~=|>=)\s*(\d+)\.(\d+)", spec.split(",")[0]) if _CUDA_PIN.match(name) else None
        if m:
            return f"{m.group(1)}.{m.group(2)}", f"{name}{spec}"
    return None


def _version_py_cuda(pypi: Packages, wheel: dict) -> str | None:
    text = pypi.remote(wheel).texts(["torch/version.py"])["torch/version.py"]
    m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([\d.]+)['\"]", text, re.M)
    return m.group(1) if m else None


def torch_releases(pypi: Packages, pinned: set[str]) -> dict:
    """{"releases": {version: {"cuda", "cuda_from", "pins"}}, "source": ...}"""
    versions = set(pypi.releases("torch", since=TORCH_SINCE))
    for v in pinned:                            # an older torch a vLLM release pins
        if v in pypi.project("torch")["versions"]:
            versions.add(v)
    out = {}
    for version in sorted(versions, key=Version):
        found = torch_release(pypi, version)
        if found is not None:
            out[version] = found
    return {"releases": out, "source": "torch's wheels on PyPI: METADATA Requires-Dist (Linux x86_64 wheel, "
                                       "CPython 3.11), torch/version.py where the pins do not say the CUDA"}


def torch_release(pypi: Packages, version: str) -> dict | None:
    """{"cuda", "cuda_from", "pins", "wheel"} of one torch release; None when PyPI has no wheel of it."""
    wheel = pypi.wheel("torch", version)
    if wheel is None:
        return None

    def make():
        pins = release_pins(pypi.metadata(wheel))
        found = cuda_of(pins)
        if found is None:
            cuda = _version_py_cuda(pypi, wheel)
            found = (cuda, "torch/version.py") if cuda else (None, None)
        return {"cuda": found[0], "cuda_from": found[1], "pins": pins, "wheel": wheel["filename"]}

    return pypi.memo("torch-release", wheel["filename"], make)


def add_torch_releases(block: dict, found: dict[str, dict]) -> None:
    """torch releases added to a torch block (`index update`: those a new vLLM release pins), in order."""
    block["releases"] = dict(sorted({**block["releases"], **found}.items(), key=lambda kv: Version(kv[0])))


def exact_pins(vllm: dict, package: str) -> set[str]:
    """The versions of a package that some vLLM release pins exactly (torch==2.8.0 → 2.8.0)."""
    out = set()
    for pins in vllm["releases"].values():
        for name, spec, _marker, extra in pins:
            if name == package and extra is None and spec.startswith("==") and "," not in spec:
                out.add(spec[2:])
    return out
