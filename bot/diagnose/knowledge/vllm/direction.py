"""Which way a check wants the knobs it compares moved, with the numbers of the user's own message.

`self.max_num_batched_tokens < self.max_num_seqs` raised with 256 and 512 is "raise
`--max-num-batched-tokens` to at least 512, or lower `--max-num-seqs` to at most 256"; a list of the
settings with "change one, within its range" leaves the user to solve the inequality, and to guess
which way. Only a test that is one ordering comparison is solved (`not a <= b`, `assert a >= b`), and
only a side that is a knob's own value: an engine argument of that name (or the one that sets the
config field it reads), a config field set through its class's JSON flag, or a name reads.py's table
says is the same quantity (`tp`, `max_num_reqs`): never a value derived from it (a layer's share of
the tensor-parallel split shrinks as the size grows).
"""

from __future__ import annotations

import ast
import re

from .conditions import _AMBIGUOUS, _FLIP, _NEGATE
from .conditions import _parse as parse_condition
from .reads import CHECKPOINT, MODEL, find

# the comparisons a knob's move can satisfy (conditions.py's _NEGATE negates these and every other)
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")

_L = {
    "en": {"accepts": "The check accepts `{code}`: {ways}.", "or": ", or ",
           "passes": "The check lets it through if {ways}.", "you": "you ", "on": "{flag} is on{form}",
           "off": "{flag} is off{form}", "leave_out": "`{flag}` is left out", "form": " (`{x}`)",
           "field": "the request's `{name}`", "set": "{flag} is set", "set_to": "you set {flag} to `{value}`",
           "set_one": "you set {flag} to one of {values}", "set_other": "you set {flag} to another value than `{value}`",
           "env_on": "`{name}=1` is set", "env_off": "`{name}` is unset (or `0`)",
           "multiple": "you set {flag} to a multiple of {value}", "divisor": "you set {flag} to a divisor of {value}",
           "sizes": " ({sizes})",
           "raise": "raise {knob}", "lower": "lower {knob}",
           ast.GtE: " to at least `{value}`", ast.Gt: " to more than `{value}`",
           ast.LtE: " to at most `{value}`", ast.Lt: " to less than `{value}`"},
    "zh": {"accepts": "检查接受 `{code}`：{ways}。", "or": "，或者",
           "passes": "{ways}，检查就会通过。", "you": "", "on": "打开 {flag}{form}", "off": "关闭 {flag}{form}",
           "leave_out": "去掉 `{flag}`", "field": "请求里的 `{name}`", "form": "（`{x}`）",
           "set": "设置 {flag}", "set_to": "把 {flag} 设为 `{value}`", "set_one": "把 {flag} 设为 {values} 之一",
           "set_other": "把 {flag} 设为 `{value}` 以外的值", "env_on": "设置 `{name}=1`", "env_off": "不设置 `{name}`（或设为 `0`）",
           "multiple": "把 {flag} 设为 {value} 的倍数", "divisor": "把 {flag} 设为 {value} 的约数", "sizes": "（{sizes}）",
           "raise": "把 {knob} 调高", "lower": "把 {knob} 调低",
           ast.GtE: "到至少 `{value}`", ast.Gt: "到大于 `{value}`",
           ast.LtE: "到至多 `{value}`", ast.Lt: "到小于 `{value}`"},
}


# a deprecation notice that says the flag does nothing in that release
_INERT = re.compile(r"\b(?:has|have) no effect\b|\bis (?:now )?ignored\b|\bno longer (?:has any effect|used|does anything)\b", re.I)


def flag_notice(idx, info, release: str | None) -> str | None:
    """The deprecation notice `release` prints about the flag itself (its text names the flag), or None."""
    if info is None or not info.flag or not release:
        return None
    rel = idx.nearest_release(release) or release
    for n in idx.notices(info.name):
        if (release in n["releases"] or rel in n["releases"]) and info.flag in n["text"]:
            return " ".join(n["text"].split())[:300]
    return None


def inert(idx, info, release: str | None) -> bool:
    """Whether `release` says the flag has no effect: no knob to move, whatever the check reads."""
    notice = flag_notice(idx, info, release)
    return bool(notice and _INERT.search(notice))


def tested(condition: str | None) -> tuple[ast.expr, bool, bool] | None:
    """(the check's test with its `not`s taken off, whether what the check lets through is that test's
    negation, whether it is an assert): a raise lets through the negation of its test, an assert its
    test as it is. None for `except X` and unparsable code."""
    parsed = parse_condition(condition) if condition and not condition.startswith("except ") else None
    if parsed is None:
        return None
    kind, tree = parsed
    negate = kind == "raise"
    while isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        tree, negate = tree.operand, not negate
    return tree, negate, kind == "assert"


def code(left: ast.expr, op: type, right: ast.expr) -> str:
    """`left op right` as code without `self.`."""
    return f"{ast.unparse(left)} {SYMBOL[op]} {ast.unparse(right)}".replace("self.", "")


def accepted(condition: str | None) -> tuple[ast.expr, type, ast.expr, bool] | None:
    """(left, operator, right, whether it is an assert) of what a one-comparison check lets
    through: the raise test negated, an assert's test as it is; None for any other shape."""
    found = tested(condition)
    compared = _one_comparison(found[0]) if found else None
    if compared is None:
        return None
    left, op, right = compared
    return left, (_NEGATE[op] if found[1] else op), right, found[2]


def _last(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _receiver(node: ast.expr) -> str | None:
    return _last(node.value) if isinstance(node, ast.Attribute) else None


def _value(node: ast.expr, knob, captures: dict, given: dict) -> str | None:
    """The side's number: a constant, the message's own value for that expression, or the user's."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return repr(node.value)
    code, last = ast.unparse(node), _last(node)
    for expr, value in captures.items():
        expr = str(expr).strip()
        if expr.removeprefix("self.") == code.removeprefix("self.") or (last and expr.rsplit(".", 1)[-1] == last):
            text = str(value).strip().strip("'\"")
            if _NUMBER.fullmatch(text):
                return text
    if knob is not None and knob[0] is not None:
        text = str(given.get(knob[0].name, "")).strip()
        if _NUMBER.fullmatch(text):
            return text
    return None


def _knob(idx, node: ast.expr, function: str | None, file: str | None, release: str | None,
          invocation: str | None, config_arg):
    """(the engine argument, how the user writes it) for a side that is a knob's own value, or None.
    `config_arg(owner, field)`: (the engine argument that sets a config's field, or None; the JSON
    flag's form for a field no argument of its own sets, or None), None when `owner` is no config."""
    last = _last(node)
    if last is None or release is None:
        return None
    receiver = _receiver(node)
    owner = (function or "").split(".")[0] if receiver in ("self", "cls") else \
        receiver if receiver and receiver.endswith("config") else None
    found = config_arg(owner, last) if owner else None
    arg = found[0] if found else None
    if found and arg is None and found[1]:
        return None, found[1]
    if arg is None and "_" in last.strip("_") and not last.startswith("_") and last not in _AMBIGUOUS:
        arg = idx.arg(last, release)        # a local or an attribute of an argument's exact name
    if arg is None:
        rows = [f for f in find(ast.unparse(node), [], function, file) if f.read.same and len(f.knobs) == 1]
        arg = idx.arg(rows[0].knobs[0], release) if rows and not rows[0].knobs[0].isupper() else None
    if arg is None:
        # a request's own field (`truncate_prompt_tokens > max_model_len`): the request is the knob too
        own_class = (function or "").split(".")[0]
        fields = idx.knob_fields("sampling", "SamplingParams", release) | \
            (idx.knob_fields("request", own_class, release) if own_class.endswith("Request") else set())
        if last in fields and receiver in (None, "self", "params", "sampling_params", "request", "data"):
            return None, ("request", last)
        return None
    if not (arg.flag or arg.keyword) or inert(idx, arg, release):
        return None
    if invocation == "llm" and arg.keyword or not arg.flag:
        return arg, f"`LLM({arg.name}=…)`"
    return arg, f"`{arg.flag}`"


def _fits(arg, value: str, up: bool) -> bool:
    """Whether the argument's range lets it move to `value` (raising past `le`, lowering below `ge`)."""
    if arg is None:
        return True
    v = float(value)
    if up:
        return not ((arg.le is not None and v > arg.le) or (arg.lt is not None and v >= arg.lt))
    return not ((arg.ge is not None and v < arg.ge) or (arg.gt is not None and v <= arg.gt))


def _is_bool(arg) -> bool:
    return arg is not None and re.search(r"\bbool\b", str(arg.type or "")) is not None


def _switch(idx, node: ast.expr, function, file, release, invocation, config_arg):
    """The on/off argument a test term reads (`layer.enable_eplb`; `self.lora_config`, which exists only
    when `--enable-lora` is on), or None."""
    last = _last(node)
    if last and last.endswith("_config") and last != "vllm_config" and release:
        arg = idx.arg("enable_" + last.removesuffix("_config"), release)
        return arg if _is_bool(arg) else None
    found = _knob(idx, node, function, file, release, invocation, config_arg)
    return found[0] if found and _is_bool(found[0]) else None


def _turned(arg, on: bool, invocation: str | None, t: dict) -> str:
    """`--enable-eplb` is off (`--no-enable-eplb`); `enable_lora` is on (`LLM(enable_lora=True)`)."""
    if invocation == "llm" and arg.keyword or not arg.flag:
        return t["on" if on else "off"].format(flag=f"`{arg.name}`", form=t["form"].format(x=f"LLM({arg.name}={on})"))
    if on:
        return t["on"].format(flag=f"`{arg.flag}`", form="")
    if arg.no_flag:
        return t["off"].format(flag=f"`{arg.flag}`", form=t["form"].format(x=arg.no_flag))
    return t["leave_out"].format(flag=arg.flag)


def switches(idx, w: dict, release: str | None, lang: str, config_arg, captures: dict | None = None,
             given: dict | None = None, invocation: str | None = None) -> str | None:
    """For a test made of on/off settings and comparisons of settings (`layer.enable_eplb`, `not
    self.lora_config`, `args.a and args.b`, `self.enable_chunked_prefill and self.pipeline_parallel_size
    > 1`) where changing any one term lets the check through: each term's change. None as soon as one
    term is not a setting's (`args.tool_call_parser not in valid_tool_parses`): turning the other off
    would pass the check but hide the change the user wants (a registered parser)."""
    found = tested(w.get("condition"))
    if found is None:
        return None
    tree, negate, asserted = found
    want = not negate                       # the value the whole test must take
    # a conjunction that must turn false (or a disjunction that must turn true) yields to any one term
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) == want:
        return None                          # every term must change: not one knob's move
    terms = tree.values if isinstance(tree, ast.BoolOp) else [tree]
    t = _L[lang if lang in _L else "en"]
    function, file = w.get("function"), w.get("file")
    ways: list[str] = []
    for term in terms:
        value = want
        while isinstance(term, ast.UnaryOp) and isinstance(term.op, ast.Not):
            term, value = term.operand, not value
        if _fixed(term, function, file):
            continue                         # the platform's or the model's own: no setting moves it
        env = _env(idx, term, release)
        if env is not None:
            if env.type != "bool":
                return None
            ways.append(t["env_on" if value else "env_off"].format(name=env.name))
            continue
        if isinstance(term, (ast.Name, ast.Attribute)):
            arg = _switch(idx, term, function, file, release, invocation, config_arg)
            if arg is None:
                return None
            ways.append(_turned(arg, value, invocation, t))
            continue
        said = _presence(idx, term, value, function, file, release, invocation, config_arg, t, asserted)
        if said is None:
            said = _equality(idx, term, value, function, file, release, invocation, config_arg, t)
        if said is None:
            said = _divides(idx, term, value, function, file, release, invocation, config_arg, captures or {},
                            given or {}, t)
        if said is not None:
            if not said:
                return None
            ways.append(said)
            continue
        compared = _one_comparison(term)
        if compared is None:
            return None
        left, op, right = compared
        moves = _moves(idx, left, op if value else _NEGATE[op], right, function, file, release, invocation,
                       config_arg, captures or {}, given or {}, t, asserted)
        if not moves:
            return None
        ways += [t["you"] + m for m in moves]
    return t["passes"].format(ways=t["or"].join(dict.fromkeys(ways))) if ways else None


# a test of the platform vLLM runs on (`current_platform.is_cuda_alike()`, `is_rocm()`): no setting
_PLATFORM = re.compile(r"^(?:[\w.]+\.)?(?:current_platform\.\w+|is_cuda_alike|is_cuda|is_rocm|is_cpu|is_tpu|is_xpu|"
                       r"has_device_capability|is_device_capability\w*)\(")


def _fixed(term: ast.expr, function: str | None, file: str | None) -> bool:
    """A term no setting of the user's moves: the platform's test, or what reads.py says is the model's
    (`model_config.is_moe`). Where any one term may change, the others are the ways."""
    while isinstance(term, ast.UnaryOp) and isinstance(term.op, ast.Not):
        term = term.operand
    if isinstance(term, ast.Call) and _PLATFORM.match(ast.unparse(term)):
        return True
    if isinstance(term, (ast.Name, ast.Attribute)):
        rows = find(ast.unparse(term), [], function, file)
        return bool(rows) and all(set(f.knobs) <= {MODEL, CHECKPOINT} for f in rows)
    return False


def _env(idx, node: ast.expr, release: str | None):
    """The vLLM variable a term reads as `envs.VLLM_X` (its EnvInfo), or None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "envs" \
            and node.attr.startswith("VLLM_") and release:
        return idx.env(node.attr, release)
    return None


def _shown(knob) -> str:
    return knob[1] if not isinstance(knob[1], tuple) else f"the request's `{knob[1][1]}`"


# ModelConfig's fields vLLM fills from the checkpoint where the flag is not given: whether one is None
# after that says what the checkpoint has, not whether the user passed the flag ("Model quantization
# method is not specified in the config": `--quantization` alone does not quantize a checkpoint)
_FILLED_FROM_MODEL = frozenset({"quantization", "max_model_len", "tokenizer", "hf_config_path", "served_model_name",
                                "tokenizer_revision", "code_revision", "revision"})


def _presence(idx, term, value: bool, function, file, release, invocation, config_arg, t,
              asserted: bool = False) -> str | None:
    """`x is None` / `x is not None` of a setting: the way is to leave it out or to set it. None when
    the term is no such test, "" when it is one of no setting the index knows."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], (ast.Is, ast.IsNot))
            and isinstance(term.comparators[0], ast.Constant) and term.comparators[0].value is None):
        return None
    if _last(term.left) in _FILLED_FROM_MODEL:
        return ""
    last = _last(term.left)
    if last and last.endswith("_config") and last != "vllm_config":
        # `self.lora_config is None`: the config exists only when its switch (`--enable-lora`) is on
        switch = _switch(idx, term.left, function, file, release, invocation, config_arg)
        if switch is not None:
            return _turned(switch, isinstance(term.ops[0], ast.IsNot) == value, invocation, t)
    found = _knob(idx, term.left, function, file, release, invocation, config_arg)
    if found is None or found[0] is None:
        return ""
    must_be_set = isinstance(term.ops[0], ast.IsNot) == value
    arg = found[0]
    if must_be_set:
        if asserted:
            return ""       # `assert self.max_num_seqs is not None` ("must be set by this point"): vLLM fills
                            # it from its defaults before; the user's flag is not what went missing
        return t["set"].format(flag=_shown(found))
    if invocation == "llm" and arg.keyword or not arg.flag:
        return t["off"].format(flag=f"`{arg.name}`", form=t["form"].format(x=f"LLM({arg.name}=None)"))
    return t["leave_out"].format(flag=arg.flag)


def _strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and \
            all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _equality(idx, term, value: bool, function, file, release, invocation, config_arg, t) -> str | None:
    """`x != 'ag_rs'`, `x not in ('a', 'b')` of a setting against the check's own strings: the value to
    set it to. None when the term is no such test, "" when the side is no setting the index knows."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1
            and isinstance(term.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))):
        return None
    consts = _strings(term.comparators[0])
    if consts is None:
        return None
    equal = isinstance(term.ops[0], (ast.Eq, ast.In)) == value      # whether it must be one of them
    env = _env(idx, term.left, release)
    if env is not None:
        if equal and len(consts) == 1:
            return t["set_to"].format(flag=f"`{env.name}`", value=consts[0])
        return ""
    found = _knob(idx, term.left, function, file, release, invocation, config_arg)
    if found is None or (found[0] is None and not isinstance(found[1], tuple)):
        return ""
    flag = _shown(found)
    if found[0] is not None and found[0].choices and not set(consts) <= {str(c) for c in found[0].choices}:
        return ""          # the check's strings are not the argument's own values: another name's test
    if equal:
        if len(consts) == 1:
            return t["set_to"].format(flag=flag, value=consts[0])
        return t["set_one"].format(flag=flag, values=", ".join(f"`{c}`" for c in consts))
    return t["set_other"].format(flag=flag, value=consts[0]) if len(consts) == 1 else ""


def _divides(idx, term, value: bool, function, file, release, invocation, config_arg, captures: dict,
             given: dict, t) -> str | None:
    """`tp % dcp != 0` of settings' own values: a multiple for the dividend, a divisor for the divisor,
    with the message's numbers. None when the term is no such test, "" when it is one no setting's
    move mends (or one that wants the sizes not to divide)."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], (ast.Eq, ast.NotEq))
            and isinstance(term.left, ast.BinOp) and isinstance(term.left.op, ast.Mod)
            and isinstance(term.comparators[0], ast.Constant) and term.comparators[0].value == 0):
        return None
    if isinstance(term.ops[0], ast.Eq) != value:
        return ""                                           # the check wants them not to divide
    sides = (term.left.left, term.left.right)
    knobs = [_knob(idx, side, function, file, release, invocation, config_arg) for side in sides]
    values = [_value(side, knob, captures, given) for side, knob in zip(sides, knobs)]
    ways = []
    for i, knob in enumerate(knobs):
        if knob is None or knob[0] is None:
            continue
        n, partner = values[1 - i], knobs[1 - i]
        if n is None and not (partner and partner[0] is not None):
            continue        # `rank % tp`, `num_tokens % tp`: a number of vLLM's own the message does not show
        other = f"`{n}`" if n is not None else partner[1]
        if i == 0:
            ways.append(t["multiple"].format(flag=knob[1], value=other))
            continue
        divisors = _divisors(int(n)) if n and re.fullmatch(r"\d+", n) and 0 < int(n) <= 1 << 30 else []
        divisors = [d for d in divisors if _fits(knob[0], str(d), True) and _fits(knob[0], str(d), False)]
        if n is not None and not divisors:
            continue
        shown = ", ".join(f"`{d}`" for d in divisors[:12]) + (" …" if len(divisors) > 12 else "")
        ways.append(t["divisor"].format(flag=knob[1], value=other) + (t["sizes"].format(sizes=shown) if divisors else ""))
    return t["or"].join(ways) if ways else ""


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _one_comparison(node: ast.expr) -> tuple[ast.expr, type, ast.expr] | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _ORDERING:
        return node.left, type(node.ops[0]), node.comparators[0]
    return None


def _moves(idx, left, op, right, function, file, release, invocation, config_arg, captures, given, t,
           asserted: bool = False) -> list[str]:
    """The ways to make `left op right` hold by moving the knob on either side (none when neither side
    is an engine argument's own value)."""
    knobs = [_knob(idx, side, function, file, release, invocation, config_arg) for side in (left, right)]
    if not any(k and not isinstance(k[1], tuple) for k in knobs) or (all(knobs) and knobs[0][1] == knobs[1][1]):
        return []                   # request fields alone: their lines say what the check accepts
    if asserted and not all(k or isinstance(side, ast.Constant) for k, side in zip(knobs, (left, right))):
        # an assert of vLLM's own bookkeeping against a setting (`end_idx <= self.max_model_len`) is an
        # invariant that broke: moving the setting moves where it breaks, it does not mend it
        return []
    values = [_value(side, knob, captures, given) for side, knob in zip((left, right), knobs)]
    big_left = op in (ast.Gt, ast.GtE)          # the left side must be the larger
    ways = []
    for i, knob in enumerate(knobs):
        if knob is None:
            continue
        up = big_left == (i == 0)
        bound = values[1 - i]
        # the bound as the moving side sees it: `a >= b` raises a to at least b, lowers b to at most a
        rel = op if i == 0 else _FLIP[op]
        shown = t["field"].format(name=knob[1][1]) if isinstance(knob[1], tuple) else knob[1]
        said = t["raise" if up else "lower"].format(knob=shown)
        if bound is not None:
            if not _fits(knob[0], bound, up):
                continue                # the other side is past this knob's range: moving it cannot help
            said += t[rel].format(value=bound)
        ways.append(said)
    return ways


def way(idx, w: dict, release: str | None, lang: str, config_arg, captures: dict | None = None,
        given: dict | None = None, invocation: str | None = None) -> str | None:
    """The sentence that says which knob to move which way, or None (`config_arg`: see _knob)."""
    if idx is None:
        return None
    found = accepted(w.get("condition"))
    if found is None:
        return switches(idx, w, release, lang, config_arg, captures, given, invocation)
    t = _L[lang if lang in _L else "en"]
    left, op, right, asserted = found
    ways = _moves(idx, left, op, right, w.get("function"), w.get("file"), release, invocation, config_arg,
                  captures or {}, given or {}, t, asserted)
    if not ways:
        return None
    return t["accepts"].format(code=code(left, op, right), ways=t["or"].join(ways))
