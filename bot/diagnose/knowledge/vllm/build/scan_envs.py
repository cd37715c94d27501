"""Environment variables of one vLLM release, from `vllm/envs.py`.

Part of the index build. `environment_variables = {"VLLM_X": lambda: os.getenv("VLLM_X", "0"), ...}`
gives each name and its default (the literal when simple, else the expression); the comment block
right above an entry is what vLLM says it means. The `if TYPE_CHECKING:` block gives its type.
"""

from __future__ import annotations

import ast
import io
import tokenize

from .scan_args import literal

ENV_READERS = ("getenv", "get", "env_with_choices", "env_list_with_choices", "env_set_with_choices")
MAX_DOC_CHARS = 1200


def comments(source: str) -> dict[int, str]:
    """Line number → the text of a comment that fills that line."""
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and not tok.line[: tok.start[1]].strip():
                out[tok.start[0]] = tok.string.lstrip("#").strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _comment_above(line: int, notes: dict[int, str], lines: list[str]) -> str | None:
    block: list[str] = []
    i = line - 1
    while i in notes:
        block.append(notes[i])
        i -= 1
    block.reverse()
    while block and (set(block[0]) <= set("=- ") or block[0].strip("=- ").endswith("Env Vars")):
        block.pop(0)        # a section banner, not this variable's meaning
    text = " ".join(b for b in block if b).strip()
    return text[:MAX_DOC_CHARS] or None


def _default(name: str, value: ast.AST) -> dict:
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value == name:
            fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if fn not in ENV_READERS:
                continue
            out: dict = {}
            if len(node.args) > 1:
                v, expr = literal(node.args[1])
                out["default"] = v if expr is None else None
                if expr is not None:
                    out["default_expr"] = expr
            else:
                kw = {k.arg: k.value for k in node.keywords}
                if "default" in kw:
                    v, expr = literal(kw["default"])
                    out["default"] = v
                    if expr is not None:
                        out["default_expr"] = expr
                else:
                    out["default"] = None
            if fn.startswith("env_") and len(node.args) > 2:
                v, _ = literal(node.args[2])
                if isinstance(v, list):
                    out["choices"] = v
            return out
    body = value.body if isinstance(value, ast.Lambda) else value
    return {"default_expr": " ".join(ast.unparse(body).split())[:200]}


def scan(tree: ast.Module, source: str) -> dict[str, dict]:
    """{name: {default | default_expr, choices, type, doc, line}} of `vllm/envs.py`."""
    notes = comments(source)
    lines = source.splitlines()
    types: dict[str, str] = {}
    out: dict[str, dict] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    types[st.target.id] = ast.unparse(st.annotation)
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not (isinstance(target, ast.Name) and target.id == "environment_variables" and isinstance(value, ast.Dict)):
            continue
        for key, val in zip(value.keys, value.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            name = key.value
            rec = _default(name, val)
            rec["line"] = key.lineno
            doc = _comment_above(key.lineno, notes, lines)
            if doc:
                rec["doc"] = doc
            out[name] = rec
    for name, rec in out.items():
        if name in types:
            rec["type"] = types[name]
    return out
