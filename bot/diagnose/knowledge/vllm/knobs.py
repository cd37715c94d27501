"""Knobs a check reads that are not engine arguments: the fields of a request's parameters.

A check inside `SamplingParams` (or vLLM's other per-request parameter classes) reads `self.top_p`:
that is the user's own `SamplingParams(top_p=...)`, the `top_p` of an OpenAI-compatible request, or
the server's `--override-generation-config` default. Saying "no setting of yours" there is false
(a real `top_p must be in (0, 1]` log was told so), so these names are answered as knobs, with
the values the check accepts solved from its own condition where it is one comparison.
"""

from __future__ import annotations

import ast

from .conditions import _parse as parse_condition

# vLLM's per-request parameter classes: their fields are set per request or per call.
REQUEST_CLASSES = ("SamplingParams", "PoolingParams", "BeamSearchParams")

_INVERSE = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<", ast.Eq: "!=", ast.NotEq: "=="}

_L = {
    "en": {"line": "- `{name}`: a field of `{cls}`: `{cls}({name}=…)` in Python, `\"{name}\"` in an OpenAI-compatible request, "
                   "or the server's default with `--override-generation-config '{{\"{name}\": …}}'`{valid}.",
           "valid": "; the check accepts a value where `{expr}`"},
    "zh": {"line": "- `{name}`：`{cls}` 的字段：Python 里是 `{cls}({name}=…)`，OpenAI 兼容请求里是 `\"{name}\"`，"
                   "服务端默认值用 `--override-generation-config '{{\"{name}\": …}}'` 设置{valid}。",
           "valid": "；检查接受满足 `{expr}` 的值"},
}


def request_fields(condition: str | None, function: str | None) -> list[str]:
    """The `self.X` a check inside a per-request parameter class reads, in order."""
    cls = (function or "").split(".")[0]
    parsed = parse_condition(condition) if cls in REQUEST_CLASSES and condition else None
    if parsed is None:
        return []
    found = [n.attr for n in ast.walk(parsed[1]) if isinstance(n, ast.Attribute)
             and isinstance(n.value, ast.Name) and n.value.id == "self"]
    return list(dict.fromkeys(found))


def accepted(condition: str) -> str | None:
    """The values a check lets through, as code without `self.`: for the raising test
    `not 0 < self.top_p <= 1` it is `0 < top_p <= 1`, for `self.temperature < 0` it is
    `temperature >= 0`, and an `assert` test is itself what is accepted; None when the test is not
    one comparison (a compound test is quoted as vLLM wrote it instead)."""
    parsed = parse_condition(condition)
    if parsed is None:
        return None
    kind, tree = parsed
    if kind == "assert":
        return ast.unparse(tree).replace("self.", "") if isinstance(tree, ast.Compare) else None
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not) and isinstance(tree.operand, ast.Compare):
        return ast.unparse(tree.operand).replace("self.", "")
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and type(tree.ops[0]) in _INVERSE:
        left, right = ast.unparse(tree.left), ast.unparse(tree.comparators[0])
        return f"{left} {_INVERSE[type(tree.ops[0])]} {right}".replace("self.", "")
    return None


def lines(condition: str | None, function: str | None, lang: str) -> list[str]:
    """Bullets for the request fields a check reads: how to set each, and what it accepts."""
    t = _L[lang if lang in _L else "en"]
    cls = (function or "").split(".")[0]
    fields = request_fields(condition, function)
    ok = accepted(condition) if len(fields) == 1 else None
    return [t["line"].format(name=f, cls=cls, valid=t["valid"].format(expr=ok) if ok else "") for f in fields]
