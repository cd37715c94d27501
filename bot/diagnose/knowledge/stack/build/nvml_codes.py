"""NVML's return codes: number, NVML_ERROR_* name, text, and the exception class pynvml raises.

From nvidia-ml-py's pynvml.py, read with `ast` (never imported: it loads libnvidia-ml): the
NVML_ERROR_* constants, NVMLError._errcode_to_string (the text for the codes pynvml words itself;
for the others pynvml asks the driver's nvmlErrorString, which no wheel has: their text is None),
and the class name pynvml makes for each code in _extractNVMLErrorsAsClasses, whose rule (its
string.capwords of the name's words) is repeated here.
"""

from __future__ import annotations

import ast
import string

from .module_constants import class_members, int_constants
from .packages import Packages

PROJECT = "nvidia-ml-py"
MODULE = "pynvml.py"


def exception_class(name: str) -> str:
    """NVML_ERROR_DRIVER_NOT_LOADED → NVMLError_DriverNotLoaded (pynvml's _extractNVMLErrorsAsClasses)."""
    return "NVMLError_" + string.capwords(name.removeprefix("NVML_ERROR_"), "_").replace("_", "")


def scan(source: str) -> list[list]:
    """[[number, name, text, exception class]] of a pynvml.py."""
    tree = ast.parse(source)
    numbers = int_constants(tree, "NVML_ERROR_")
    said = class_members(tree, "NVMLError").get("_errcode_to_string")
    texts = {k.id: v.value for k, v in zip(said.keys, said.values)
             if isinstance(k, ast.Name) and isinstance(v, ast.Constant)} if isinstance(said, ast.Dict) else {}
    return sorted([num, name, texts.get(name), exception_class(name)] for name, num in numbers.items())


def build(pypi: Packages) -> dict:
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)
    codes = pypi.memo("nvml-codes", wheel["filename"], lambda: scan(pypi.remote(wheel).texts([MODULE])[MODULE]))
    return {"codes": codes, "source": [f"{PROJECT}=={version} ({MODULE})"]}
