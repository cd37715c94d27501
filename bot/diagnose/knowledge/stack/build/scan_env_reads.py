"""The environment variables a module reads, and the literal tables a module defines; `ast` only.

A read is `os.environ.get("X", d)`, `os.getenv("X", d)`, `os.environ["X"]`, `os.environ.setdefault`,
`"X" in os.environ`, or a helper whose name says it reads the environment called with the name
first (triton's `env_str("TRITON_CACHE_DIR", ...)`, huggingface_hub's `_as_int(os.getenv(...))` is
the getenv inside). Only upper-case names are kept: a lower-case string there is rarely a variable.
"""

from __future__ import annotations

import ast
import re

_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
MAX_DEFAULT = 120


def _is_environ(node: ast.AST) -> bool:
    """os.environ (or a bare `environ` imported from os)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name) and node.id == "environ")


def _func_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _text(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    src = " ".join(ast.unparse(node).split())
    return src if len(src) <= MAX_DEFAULT else src[: MAX_DEFAULT - 1] + "…"


def scan(tree: ast.Module) -> list[dict]:
    """[{name, line, default}]: each read of an environment variable, in source order."""
    out = []
    for node in ast.walk(tree):
        name = default = None
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            fname = _func_name(func)
            environ_method = isinstance(func, ast.Attribute) and _is_environ(func.value) and fname in ("get", "setdefault", "pop")
            if environ_method or fname in ("getenv", "getenvb") or "env" in fname.lower():
                name = node.args[0].value
                default = _text(node.args[1]) if len(node.args) > 1 else _text(
                    next((k.value for k in node.keywords if k.arg in ("default", "value")), None))
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            name = node.slice.value
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and _is_environ(node.comparators[0]) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str):
            name = node.left.value
        if name and _NAME.match(name):
            out.append({"name": name, "line": node.lineno, "default": default})
    out.sort(key=lambda r: r["line"])
    return out


def literal_keys(tree: ast.Module, variable: str) -> list[str] | None:
    """The string keys of a module-level table: `X = {"a": ...}`, `X = OrderedDict([("a", ...), ...])`,
    `X = ["a", ...]`; None when the module does not define it so."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if not any(isinstance(t, ast.Name) and t.id == variable for t in targets) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.Call) and value.args:          # OrderedDict([...]) / dict([...])
            value = value.args[0]
        if isinstance(value, ast.Dict):
            return [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if isinstance(value, (ast.List, ast.Tuple)):
            keys = []
            for elt in value.elts:
                if isinstance(elt, ast.Tuple) and elt.elts and isinstance(elt.elts[0], ast.Constant):
                    keys.append(elt.elts[0].value)
                elif isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                    keys.append(elt.value)
            return keys
    return None
