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

from .pypi import PyPI, requirements

VLLM_SINCE = "0.5.0"
TORCH_SINCE = "2.0.0"
WATCHED = {"torch", "transformers", "tokenizers", "huggingface-hub", "triton", "xformers", "flashinfer-python",
           "flashinfer", "torchvision", "torchaudio"}


def watched(name: str) -> bool:
    return name in WATCHED or name.startswith(("nvidia-", "cuda-"))


def _pins(metadata: str) -> list[list]:
    """[[package, specifier, marker, extra]] of the watched requirements."""
    return [[r["name"], r["specifier"], r["marker"], r["extra"]] for r in requirements(metadata) if watched(r["name"])]


def vllm_pins(pypi: PyPI) -> dict:
    """{"releases": {version: [[package, specifier, marker, extra], ...]}, "source": ...}"""
    out = {}
    for version in pypi.releases("vllm", since=VLLM_SINCE):
        wheel = pypi.wheel("vllm", version)
        if wheel is None:
            continue
        out[version] = _pins(pypi.metadata(wheel))
    return {"releases": out, "source": "vllm's wheels on PyPI, METADATA Requires-Dist (Linux x86_64 wheel)"}


_CUDA_PIN = re.compile(r"^(?:nvidia-cuda-runtime(?:-cu\d+)?|cuda-toolkit)$")


def cuda_of(pins: list[list]) -> tuple[str, str] | None:
    """(CUDA major.minor, the pin it was read from) of a torch release's pins."""
    for name, spec, _marker, _extra in pins:
        m = re.match(r"^(?:==|~=|>=)\s*(\d+)\.(\d+)", spec.split(",")[0]) if _CUDA_PIN.match(name) else None
        if m:
            return f"{m.group(1)}.{m.group(2)}", f"{name}{spec}"
    return None


def _version_py_cuda(pypi: PyPI, wheel: dict) -> str | None:
    text = pypi.remote(wheel).texts(["torch/version.py"])["torch/version.py"]
    m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([\d.]+)['\"]", text, re.M)
    return m.group(1) if m else None


def torch_releases(pypi: PyPI, pinned: set[str]) -> dict:
    """{"releases": {version: {"cuda", "cuda_from", "pins"}}, "source": ...}"""
    versions = set(pypi.releases("torch", since=TORCH_SINCE))
    for v in pinned:                            # an older torch a vLLM release pins
        if v in pypi.project("torch")["versions"]:
            versions.add(v)
    out = {}
    for version in sorted(versions, key=Version):
        wheel = pypi.wheel("torch", version)
        if wheel is None:
            continue

        def make():
            pins = _pins(pypi.metadata(wheel))
            found = cuda_of(pins)
            if found is None:
                cuda = _version_py_cuda(pypi, wheel)
                found = (cuda, "torch/version.py") if cuda else (None, None)
            return {"cuda": found[0], "cuda_from": found[1], "pins": pins, "wheel": wheel["filename"]}

        out[version] = pypi.memo("torch-release", wheel["filename"], make)
    return {"releases": out, "source": "torch's wheels on PyPI: METADATA Requires-Dist (Linux x86_64 wheel, "
                                       "CPython 3.11), torch/version.py where the pins do not say the CUDA"}


def exact_pins(vllm: dict, package: str) -> set[str]:
    """The versions of a package that some vLLM release pins exactly (torch==2.8.0 → 2.8.0)."""
    out = set()
    for pins in vllm["releases"].values():
        for name, spec, _marker, extra in pins:
            if name == package and extra is None and spec.startswith("==") and "," not in spec:
                out.add(spec[2:])
    return out
