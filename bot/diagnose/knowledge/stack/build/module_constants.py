"""The constants a Python module assigns, read with `ast`: its top-level integer constants
(`NVML_ERROR_UNKNOWN = 999`) and the members a class body assigns (an Enum's `ACL = (100, "call acl api failed")`).

Vendors' bindings (pynvml, amdsmi, pyzes) repeat their C headers' result enums as module-level constants,
torch_npu's error module as Enums; reading them with `ast` never imports the module, which would load the
vendor's native library. Each function takes the source or a tree already parsed, so a reader that asks
several questions of one module parses it once."""

from __future__ import annotations

import ast

Source = str | ast.Module


def _tree(source: Source) -> ast.Module:
    return source if isinstance(source, ast.Module) else ast.parse(source)


def assignments(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """{name: value expression} of a body's `NAME = <expr>` statements with one target (the last one wins)."""
    return {s.targets[0].id: s.value for s in body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}


def int_constants(source: Source, prefix: str, leave_out: frozenset[str] = frozenset()) -> dict[str, int]:
    """{name: value} of the module-level `NAME = <int>` assignments whose name starts with prefix."""
    return {name: v.value for name, v in assignments(_tree(source).body).items()
            if name.startswith(prefix) and name not in leave_out
            and isinstance(v, ast.Constant) and isinstance(v.value, int)}


def class_members(source: Source, cls: str) -> dict[str, ast.expr]:
    """{name: value expression} of what the body of the module's top-level class `cls` assigns; {} without it."""
    for node in _tree(source).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return assignments(node.body)
    return {}
