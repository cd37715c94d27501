"""The integer constants a Python binding module assigns at its top level (`NVML_ERROR_UNKNOWN = 999`).

Vendors' bindings (pynvml, amdsmi, pyzes) repeat their C headers' result enums this way; reading them
with `ast` never imports the module, which would load the vendor's native library."""

from __future__ import annotations

import ast


def int_constants(source: str, prefix: str, leave_out: frozenset[str] = frozenset()) -> dict[str, int]:
    """{name: value} of the module-level `NAME = <int>` assignments whose name starts with prefix."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id.startswith(prefix) and node.targets[0].id not in leave_out \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            out[node.targets[0].id] = node.value.value
    return out
