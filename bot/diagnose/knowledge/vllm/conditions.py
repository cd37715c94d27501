"""vLLM's check in words: the `if` test (or assert) that guards a raise, read out in English or Chinese.

The index keeps each raise site's enclosing condition as source (`self.max_model_len >
self.max_num_batched_tokens`, `not (0 < x <= 1)`, `assert lora_id > 0`). `words()` reads the common
shapes aloud — comparisons, `and`/`or`/`not`, `is None`, `in`, `len()`, `isinstance()`, divisibility
— and gives None when the code is too tangled to say better than the code itself. `names()` lists
the settings a condition reads (attributes of configs and of vLLM's argument classes, `envs.VLLM_*`).
"""

from __future__ import annotations

import ast
import re

MAX_WORDS = 320
MAX_CODE = 400

_OPS = {
    "en": {ast.Eq: "is", ast.NotEq: "is not", ast.Lt: "is less than", ast.LtE: "is at most",
           ast.Gt: "is greater than", ast.GtE: "is at least", ast.Is: "is", ast.IsNot: "is not",
           ast.In: "is one of", ast.NotIn: "is not one of"},
    "zh": {ast.Eq: "等于", ast.NotEq: "不等于", ast.Lt: "小于", ast.LtE: "不大于", ast.Gt: "大于",
           ast.GtE: "不小于", ast.Is: "是", ast.IsNot: "不是", ast.In: "属于", ast.NotIn: "不属于"},
}
_T = {
    "en": {"and": " and ", "or": " or ", "unset": "`{x}` is not set (None)", "set": "`{x}` is set",
           "true": "`{x}` is true", "false": "`{x}` is false or empty", "len": "the length of `{x}`",
           "isinstance": "`{x}` is a `{t}`", "not_isinstance": "`{x}` is not a `{t}`",
           "hasattr": "`{x}` has `{a}`", "not_hasattr": "`{x}` has no `{a}`",
           "divisible": "`{a}` is divisible by `{b}`", "not_divisible": "`{a}` is not divisible by `{b}`",
           "contains": "`{b}` contains `{a}`", "not_contains": "`{b}` does not contain `{a}`",
           "not": "not ({x})", "assert": "vLLM asserts that {x}; here it did not hold.",
           "raise": "vLLM raises this when {x}.", "except": "vLLM raises this while handling `{x}`."},
    "zh": {"and": " 且 ", "or": " 或 ", "unset": "`{x}` 未设置(None)", "set": "`{x}` 已设置",
           "true": "`{x}` 为真", "false": "`{x}` 为假或为空", "len": "`{x}` 的长度",
           "isinstance": "`{x}` 是 `{t}`", "not_isinstance": "`{x}` 不是 `{t}`",
           "hasattr": "`{x}` 有 `{a}`", "not_hasattr": "`{x}` 没有 `{a}`",
           "divisible": "`{a}` 能被 `{b}` 整除", "not_divisible": "`{a}` 不能被 `{b}` 整除",
           "contains": "`{b}` 包含 `{a}`", "not_contains": "`{b}` 不包含 `{a}`",
           "not": "并非({x})", "assert": "vLLM 断言 {x};这里不成立。",
           "raise": "当 {x} 时 vLLM 抛出这个错误。", "except": "vLLM 在处理 `{x}` 时抛出这个错误。"},
}
_NEGATE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
           ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


_FLIP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


class _Tangled(Exception):
    """The expression reads better as code."""


def _parse(condition: str) -> tuple[str, ast.expr] | None:
    """("raise" | "assert", the test) of an index condition; None for `except X` or unparsable code."""
    kind, code = "raise", condition.strip()
    if code.startswith("assert "):
        kind, code = "assert", code[len("assert "):]
    if not code or len(code) > MAX_CODE:
        return None
    try:
        return kind, ast.parse(code, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def words(condition: str | None, lang: str = "en") -> str | None:
    """The check in a sentence, or None when the code says it better."""
    if not condition:
        return None
    t = _T.get(lang, _T["en"])
    if condition.startswith("except "):
        return t["except"].format(x=condition[len("except "):].strip())
    parsed = _parse(condition)
    if parsed is None:
        return None
    kind, test = parsed
    try:
        said = _say(test, lang, False)
    except (_Tangled, RecursionError):
        return None
    if len(said) > MAX_WORDS:
        return None
    return t[kind].format(x=said)


def _code(node: ast.AST) -> str:
    text = ast.unparse(node)
    if len(text) > 80 or "lambda" in text or "\n" in text:
        raise _Tangled
    return text


def _name(node: ast.AST) -> str:
    """How a value is named: `self.cache_config.block_size` reads as `block_size`; a dunder keeps its
    owner (`bitsandbytes.__version__`: whose version)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
        return node.attr if not node.attr.startswith("__") else _code(node)
    return _code(node)


def _operand(node: ast.AST, lang: str) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return _T[lang]["len"].format(x=_name(node.args[0]))
    if isinstance(node, ast.Constant):
        return f"`{node.value!r}`"
    return f"`{_name(node)}`"


def _say(node: ast.AST, lang: str, negated: bool) -> str:
    t, ops = _T[lang], _OPS[lang]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _say(node.operand, lang, not negated)
    if isinstance(node, ast.BoolOp):
        # De Morgan: "not (a and b)" reads as "not a or not b"
        join = isinstance(node.op, ast.And) != negated
        parts = [_say(v, lang, negated) for v in node.values]
        return (t["and"] if join else t["or"]).join(parts)
    if isinstance(node, ast.Compare):
        return _compare(node, lang, negated)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        fn, args = node.func.id, node.args
        if fn == "isinstance" and len(args) == 2:
            return t["not_isinstance" if negated else "isinstance"].format(x=_name(args[0]), t=_code(args[1]))
        if fn == "hasattr" and len(args) == 2 and isinstance(args[1], ast.Constant):
            return t["not_hasattr" if negated else "hasattr"].format(x=_name(args[0]), a=args[1].value)
    if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        return t["false" if negated else "true"].format(x=_name(node) if not isinstance(node, ast.Call) else _code(node))
    raise _Tangled


def _compare(node: ast.Compare, lang: str, negated: bool) -> str:
    t, ops = _T[lang], _OPS[lang]
    if len(node.ops) == 1:
        op, left, right = type(node.ops[0]), node.left, node.comparators[0]
        if negated:
            op = _NEGATE[op]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant) and op in _FLIP:
            op, left, right = _FLIP[op], right, left        # "0 < x" reads as "x is greater than 0"
        # x % y != 0 / == 0: divisibility
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(right, ast.Constant) \
                and right.value == 0 and op in (ast.Eq, ast.NotEq):
            key = "divisible" if op is ast.Eq else "not_divisible"
            return t[key].format(a=_name(left.left), b=_name(left.right))
        # 'expandable_segments:True' not in conf: a string looked for inside another
        if isinstance(left, ast.Constant) and isinstance(left.value, str) and op in (ast.In, ast.NotIn):
            return t["contains" if op is ast.In else "not_contains"].format(a=left.value, b=_name(right))
        if isinstance(right, ast.Constant) and right.value is None and op in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq):
            return t["unset" if op in (ast.Is, ast.Eq) else "set"].format(x=_name(left))
        return f"{_operand(left, lang)} {ops[op]} {_operand(right, lang)}"
    # a chain: 0 < x <= 1 is "0 < x and x <= 1"
    parts, left = [], node.left
    for op, right in zip(node.ops, node.comparators):
        parts.append(ast.Compare(left=left, ops=[op], comparators=[right]))
        left = right
    joined = ast.BoolOp(op=ast.And(), values=parts)
    return _say(joined, lang, negated)


# --- the settings a check reads --------------------------------------------------------------------

_CONFIG_CLASSES = ("EngineArgs", "AsyncEngineArgs")
# Argument names a kernel or a layer also uses for its own value (a Triton kernel's `block_size`, a
# tensor's `dtype`): read off another object they are not the setting.
_AMBIGUOUS = frozenset({"block_size"})


def names(condition: str | None, function: str | None = None) -> list[tuple[str, str | None]]:
    """(name, config attribute it was read from or None), in order: `VLLM_*` variables, attributes
    of a `*config` object, `self.X` inside a config class or vLLM's argument classes, and local
    names with an underscore (owner "": a setting only when vLLM has an engine argument of that
    exact name, such as `load_format`; `dtype` or `model` alone say too little)."""
    if not condition or condition.startswith("except "):
        return []
    parsed = _parse(condition)
    if parsed is None:
        return []
    owner = (function or "").split(".")[0]
    in_config = owner.endswith("Config") or owner in _CONFIG_CLASSES
    out: dict[str, str | None] = {}
    nodes = sorted((n for n in ast.walk(parsed[1]) if hasattr(n, "col_offset")), key=lambda n: (n.lineno, n.col_offset))
    inner = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}     # `self.cache_config` of `.block_size`
    for node in nodes:
        if isinstance(node, ast.Attribute):
            chain = _chain(node)
            if chain is None:
                continue
            if node.attr.startswith("VLLM_"):
                out.setdefault(node.attr, None)
                continue
            receiver = chain[-2] if len(chain) >= 2 else ""
            if receiver.endswith("config"):
                out.setdefault(node.attr, receiver)
            elif receiver == "self" and len(chain) == 2 and in_config:
                out.setdefault(node.attr, owner)
            elif "_" in node.attr.strip("_") and node.attr.islower() and not node.attr.startswith("_") \
                    and node.attr not in _AMBIGUOUS and id(node) not in inner and not node.attr.endswith("_config"):
                # `layer.enable_eplb`, `args.enable_prompt_embeds`, `parallel.disable_custom_all_reduce`: an
                # attribute of an engine argument's exact name, carried on another object (owner "": a
                # setting only if the release has an argument of that name)
                out.setdefault(node.attr, "")
        elif isinstance(node, ast.Name) and node.id.startswith("VLLM_"):
            out.setdefault(node.id, None)
        elif isinstance(node, ast.Name) and "_" in node.id.strip("_") and node.id.islower() and node.id not in _AMBIGUOUS:
            # a local `load_format`: a setting only if vLLM has one of that name (a local `block_size` is
            # as often a prefetcher's or a kernel's: reads.py's table says where it is the KV cache's)
            out.setdefault(node.id, "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("VLLM_"):
            out.setdefault(node.value, None)
    return list(out.items())


def configs_read(condition: str | None) -> list[str]:
    """The whole config objects a test reads off any object (`not self.lora_config`,
    `vllm_config.lora_config is None`): each exists only when its feature is on."""
    parsed = _parse(condition) if condition and not condition.startswith("except ") else None
    if parsed is None:
        return []
    found = [n.attr for n in ast.walk(parsed[1]) if isinstance(n, ast.Attribute) and n.attr.endswith("_config")
             and n.attr != "vllm_config"]
    return list(dict.fromkeys(found))


def _chain(node: ast.Attribute) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


# --- whether the test explains anything ------------------------------------------------------------

_BUILTINS = {"self", "len", "isinstance", "hasattr", "any", "all", "getattr", "type", "str", "int", "float",
             "bool", "list", "tuple", "set", "dict", "None", "True", "False", "min", "max", "sum", "sorted"}


def explains(condition: str | None, said: str, is_setting) -> bool:
    """Whether the test that guards a raise says something to the user, in the message's own terms
    (`said`: its template) or a setting's (`is_setting(name)`). Not when it is a dispatch branch,
    a comparison with string constants the message never mentions (`method != 'custom_class'`,
    reached when a speculative config lacks its draft model), nor when every name it reads is an
    internal one (`invalid_token_ids` for "allowed_token_ids contains out-of-vocab token id")."""
    parsed = _parse(condition) if condition and not condition.startswith("except ") else None
    if parsed is None:
        return bool(condition)
    test, low = parsed[1], said.lower()
    names = [n.id for n in ast.walk(test) if isinstance(n, ast.Name)]
    names += [n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute)]
    names = [n for n in dict.fromkeys(names) if n not in _BUILTINS]
    constants = [n.value for n in ast.walk(test) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and n.value.strip()]
    if any(re.search(r"\b%s\b" % re.escape(n.lower()), low) or is_setting(n) for n in names):
        return True                 # a test on the message's own names, or on a setting
    if any(_mentioned(c, low) for c in constants):
        return True                 # a value the message speaks of
    return not names and not constants


def _mentioned(constant: str, said: str) -> bool:
    """Whether the message speaks of a string the test compares with: most of its words appear
    (`'expandable_segments:True'` in "Expandable segments are not compatible ...")."""
    words = [w for w in re.findall(r"[a-z0-9]{3,}", constant.lower())]
    if not words:
        return constant.lower() in said
    return sum(w in said for w in words) * 2 >= len(words)
