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

from .module_constants import int_constants
from .packages import Packages

PROJECT = "nvidia-ml-py"
MODULE = "pynvml.py"


def exception_class(name: str) -> str:
    """NVML_ERROR_DRIVER_NOT_LOADED → NVMLError_DriverNotLoaded (pynvml's _extractNVMLErrorsAsClasses)."""
    return "NVMLError_" + string.capwords(name.removeprefix("NVML_ERROR_"), "_").replace("_", "")


def scan(source: str) -> list[list]:
    """[[number, name, text, exception class]] of a pynvml.py."""
    tree = ast.parse(source)
    numbers = int_constants(source, "NVML_ERROR_")
    texts: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "NVMLError":
            for st in node.body:
                if isinstance(st, ast.Assign) and any(getattr(t, "id", "") == "_errcode_to_string" for t in st.targets) \
                        and isinstance(st.value, ast.Dict):
                    for k, v in zip(st.value.keys, st.value.values):
                        if isinstance(k, ast.Name) and isinstance(v, ast.Constant):
                            texts[k.id] = v.value
    return sorted([num, name, texts.get(name), exception_class(name)] for name, num in numbers.items())


def build(pypi: Packages) -> dict:
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)
    codes = pypi.memo("nvml-codes", wheel["filename"], lambda: scan(pypi.remote(wheel).texts([MODULE])[MODULE]))
    return {"codes": codes, "source": [f"{PROJECT}=={version} ({MODULE})"]}
