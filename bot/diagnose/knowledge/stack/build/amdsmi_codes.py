"""AMD SMI's statuses (`amdsmi_status_t`): number, AMDSMI_STATUS_* name and the text amdsmi prints.

From AMD's amdsmi Python package on PyPI, read with `ast` (never imported: it loads libamd_smi):
the AMDSMI_STATUS_* constants of amdsmi_wrapper.py, and the "NAME - text" each status is given in
amdsmi_exception.py (AmdSmiLibraryException.set_err_info), which is what a paste shows:
"AmdSmiLibraryException: Error code:\\n\\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded".
vLLM's ROCm platform asks amdsmi for the GPUs' names and topology, so its failure to start is
vLLM's failure to find its platform.
"""

from __future__ import annotations

import ast
import re

from .module_constants import int_constants
from .packages import Packages

PROJECT = "amdsmi"
WRAPPER = "amdsmi/amdsmi_wrapper.py"
EXCEPTION = "amdsmi/amdsmi_exception.py"
_TEXT = re.compile(r"^(?P<name>AMD_?SMI_\w+) - (?P<text>.+)$")


def texts(source: str) -> dict[str, str]:
    """{AMDSMI_STATUS_* name: text} from the exception's table ({amdsmi_wrapper.X: "X - text"})."""
    out = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Attribute) and k.attr.startswith("AMDSMI_STATUS_") and isinstance(v, ast.Constant) \
                        and isinstance(v.value, str):
                    m = _TEXT.match(v.value.strip())
                    if m:
                        out[k.attr] = " ".join(m.group("text").split())
    return out


def build(pypi: Packages) -> dict:
    """{"codes": [[number, name, text]], "source": [...]}"""
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)

    def make():
        got = pypi.remote(wheel).texts([WRAPPER, EXCEPTION])
        said = texts(got[EXCEPTION])
        return sorted([n, name, said.get(name)] for name, n in int_constants(got[WRAPPER], "AMDSMI_STATUS_").items())

    codes = pypi.memo("amdsmi-codes", wheel["filename"], make)
    return {"codes": codes, "source": [f"{PROJECT}=={version} ({WRAPPER}: amdsmi_status_t; {EXCEPTION}: texts)"]}
