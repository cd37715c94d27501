"""The user's knobs behind a check that are not plain engine arguments, and the values they accept.

A check inside `SamplingParams` reads `self.top_p`: that is the user's `SamplingParams(top_p=...)`,
the `top_p` of an OpenAI-compatible request, or the server's `--override-generation-config`
default. `ToolParserManager.get_tool_parser` reads a local `name`: that is `--tool-call-parser`, and
the release's registry says which names it takes. Saying "no setting of yours" there is false (real
logs were told so), so each reader below turns one kind of check into bullets: which knob to change,
in the forms the user's release has (build/scan_knobs.py indexes them per release), and what it
accepts, solved from the check where that is one comparison.
"""

from __future__ import annotations

import ast
import re

from . import direction
from .conditions import _NEGATE
from .conditions import _parse as parse_condition

# vLLM's per-request parameter classes: their fields are set per request or per call (a
# LoRARequest is the adapter a call names).
REQUEST_CLASSES = ("SamplingParams", "PoolingParams", "BeamSearchParams", "LoRARequest")
# The sampling defaults a model's generation_config.json (and --override-generation-config) may
# set: the keys vLLM's ModelConfig.get_diff_sampling_param reads.
GENERATION_CONFIG_KEYS = ("repetition_penalty", "temperature", "top_k", "top_p", "min_p", "max_new_tokens")
# Names that hold a request's parameters in vLLM's code (`params.allowed_token_ids`).
_PARAM_OWNERS = ("params", "sampling_params", "request", "req", "pooling_params")
MAX_SHOWN = 12
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")     # the names a message spells out

_L = {
    "en": {"line": "- `{name}`: a field of `{cls}`: `{cls}({name}=…)` in Python{request}{override}{valid}.",
           "request": ", `\"{name}\"` in an OpenAI-compatible request",
           "override": ", or the server's default with `--override-generation-config '{{\"{name}\": …}}'`",
           "valid": "; the check accepts a value where `{expr}`",
           "registry": "- {knob}: the {what} `{value}` {state} in vLLM {release}, which registers {count}: {names}.",
           "registered": "is registered", "unregistered": "is not registered",
           "closest": " Closest to `{value}`: {close}.",
           "backends": "- {knob}: `{value}` {state} vLLM {release}'s attention backends ({count}, case-sensitive): {names}.",
           "member": "is one of", "not_member": "is not one of",
           "divides": "- {knob}: the check needs `{number}` (`{expr}`) divisible by it: {sizes}.",
           "env": "- `{name}` (environment variable of {owner}, not one of vLLM's): set, change or unset it in the environment of the process that starts vLLM.",
           "alloc": "; the check reads its {options} option (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` and the like): remove that option, or unset the variable, for this run.",
           "call": "- `{name}`: what you passed to {calls} (or a request's equivalent).",
           "yours": " Your server's `--override-generation-config` sets `{name}` to `{value}`: requests that do not send `{name}` get that value.",
           "tool": "tool-call parser", "reasoning": "reasoning parser",
           "body": "- `{name}`: a field of the OpenAI-compatible request `{cls}`, `\"{name}\"` in its JSON body{shape}{valid}.",
           "one_of": "one of {choices}", "or_a": ", or a `{cls}`",
           "body_key": "- `{name}`: a key of the request's JSON body that the check looks up (what the client sent, not a server setting).", "default": "default `{value}`"},
    "zh": {"line": "- `{name}`：`{cls}` 的字段：Python 里是 `{cls}({name}=…)`{request}{override}{valid}。",
           "request": "，OpenAI 兼容请求里是 `\"{name}\"`",
           "override": "，服务端默认值用 `--override-generation-config '{{\"{name}\": …}}'` 设置",
           "valid": "；检查接受满足 `{expr}` 的值",
           "registry": "- {knob}：{what} `{value}` 在 vLLM {release} 中{state}；该版本注册了 {count} 个：{names}。",
           "registered": "已注册", "unregistered": "未注册",
           "closest": " 与 `{value}` 最接近的：{close}。",
           "backends": "- {knob}：`{value}` {state} vLLM {release} 的注意力后端（{count} 个，区分大小写）：{names}。",
           "member": "属于", "not_member": "不属于",
           "divides": "- {knob}：检查要求 `{number}`（`{expr}`）能被它整除：{sizes}。",
           "env": "- `{name}`（{owner} 的环境变量，不是 vLLM 的）：在启动 vLLM 的进程的环境里设置、修改或取消它。",
           "alloc": "；检查读取它的 {options} 选项（如 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`）：这次运行请去掉该选项，或取消这个变量。",
           "call": "- `{name}`：你传给 {calls} 的参数（或请求里对应的字段）。",
           "yours": " 你的服务端 `--override-generation-config` 把 `{name}` 设为 `{value}`：没有发送 `{name}` 的请求都会用这个值。",
           "tool": "工具调用解析器", "reasoning": "推理解析器",
           "body": "- `{name}`：OpenAI 兼容请求 `{cls}` 的字段，即请求 JSON 里的 `\"{name}\"`{shape}{valid}。",
           "one_of": "可选 {choices}", "or_a": "，或一个 `{cls}`",
           "body_key": "- `{name}`：检查查找的请求 JSON 里的键（客户端发送的内容，不是服务端设置）。", "default": "默认 `{value}`"},
}


def lines(idx, site, w: dict, captures: dict | None, release: str | None, lang: str,
          given: dict | None = None) -> list[str]:
    """Bullets for the knobs behind one raise site (`w`, its where row) in `release`; `given` are
    the user's settings the log shows."""
    t = _L[lang if lang in _L else "en"]
    condition, function = w.get("condition"), w.get("function")
    literal = " ".join(v for k, v in site.parts if k == "lit")
    out = request_lines(idx, condition, function, release, t, literal, given or {})
    out += [line for line in body_key_lines(condition, function, w.get("file"), t) if line not in out]
    out += registry_lines(idx, site, w, captures or {}, release, t)
    out += divisor_lines(idx, condition, captures or {}, release, t)
    out += stack_env_lines(site, condition, t, idx.knob_names("attention_backend", release) if idx and release else ())
    out += call_lines(idx, literal, release, t, function)
    return list(dict.fromkeys(out))


# --- request fields -----------------------------------------------------------------------------

def request_fields(condition: str | None, function: str | None) -> list[str]:
    """The `self.X` a check inside a per-request parameter class reads, in order."""
    cls = (function or "").split(".")[0]
    parsed = parse_condition(condition) if cls in REQUEST_CLASSES and condition else None
    if parsed is None:
        return []
    found = [n.attr for n in ast.walk(parsed[1]) if isinstance(n, ast.Attribute)
             and isinstance(n.value, ast.Name) and n.value.id == "self"]
    return list(dict.fromkeys(found))


def read_fields(idx, condition: str | None, release: str | None) -> list[str]:
    """Outside the parameter classes, the `SamplingParams` fields a check reads off a request's
    parameters (`params.allowed_token_ids`) or under the field's own name (`allowed_token_ids`), when
    that name is no engine argument (`seed` is both; the engine's is meant there)."""
    parsed = parse_condition(condition) if condition else None
    if parsed is None or idx is None:
        return []
    fields = idx.knob_fields("sampling", "SamplingParams", release)
    found = []
    for n in ast.walk(parsed[1]):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in _PARAM_OWNERS:
            found.append(n.attr)
        elif isinstance(n, ast.Name) and "_" in n.id and idx.arg(n.id) is None:
            found.append(n.id)
    return [f for f in dict.fromkeys(found) if f in fields]


def accepted(condition: str) -> str | None:
    """The values a check lets through, as code without `self.`: for the raising test
    `not 0 < self.top_p <= 1` it is `0 < top_p <= 1`, for `self.temperature < 0` it is
    `temperature >= 0`, and an `assert` test is itself what is accepted; None when the test is not
    one comparison (a compound test is quoted as vLLM wrote it instead). direction.py solves the same
    test for a knob's move."""
    found = direction.tested(condition)
    if found is None or not isinstance(found[0], ast.Compare):
        return None
    tree, negate, _ = found
    if not negate:
        return ast.unparse(tree).replace("self.", "")
    if len(tree.ops) == 1 and type(tree.ops[0]) in direction.SYMBOL:
        return direction.code(tree.left, _NEGATE[type(tree.ops[0])], tree.comparators[0])
    return None


def named_fields(idx, cls: str, literal: str, release: str | None) -> list[str]:
    """The fields of `cls` the message's own words name (`allowed_token_ids contains out-of-vocab
    token id!`), engine arguments of the same name aside."""
    if idx is None:
        return []
    fields = idx.knob_fields("lora" if cls == "LoRARequest" else "sampling", cls, release)
    return [w for w in dict.fromkeys(_SNAKE.findall(literal) + spelled_out(literal, fields))
            if w in fields and idx.arg(w) is None]


def spelled_out(literal: str, fields) -> list[str]:
    """The fields a message names in words ("Too many allowed token IDs": `allowed_token_ids`): runs of
    two to four words that, lower-cased and joined with `_`, are a field's name."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9_]*", literal)
    found = []
    for n in (4, 3, 2):
        for i in range(len(words) - n + 1):
            if any("_" in w for w in words[i:i + n]):
                continue            # a name spelled with `_` is said as it is (`prompt_logprob_token_ids`)
            name = "_".join(w.lower() for w in words[i:i + n])
            if name in fields:
                found.append(name)
    return found


# The requests that generate or embed: a field of another request class (`UnloadLoRAAdapterRequest`)
# is not what "in a request" means to a user.
_GENERATION_REQUESTS = re.compile(r"^(?:Chat)?CompletionRequest$|^Embedding\w*Request$|^ResponsesRequest$")


def sendable(idx, release: str | None) -> set[str]:
    """The fields a client may send in an OpenAI-compatible generation or embedding request."""
    if idx is None:
        return set()
    return {field for cls, _, field in (n.partition(".") for n in idx.knob_names("request", release))
            if _GENERATION_REQUESTS.match(cls)}


def body_fields(idx, condition: str | None, function: str | None, literal: str, release: str | None) -> list[str]:
    """Inside an OpenAI-compatible request class's validator (`ChatCompletionRequest.check_logprobs`),
    the fields of that request the check reads (`data.get('logprobs')`, `data['tools']`, `'tools' in
    data`, `self.n`, a local `top_logprobs`) and its message names (`tool_choice`), in order."""
    cls = (function or "").split(".")[0]
    if idx is None or not cls.endswith("Request"):
        return []
    fields = idx.knob_fields("request", cls, release)
    parsed = parse_condition(condition) if condition and not condition.startswith("except ") else None
    found: list[str] = []
    for n in (ast.walk(parsed[1]) if parsed else ()):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args:
            key = n.args[0]
        elif isinstance(n, ast.Subscript):
            key = n.slice
        elif isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) and \
                any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            key = n.left                                  # `'tools' not in data`
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            found.append(n.attr)
            continue
        elif isinstance(n, ast.Name):
            found.append(n.id)
            continue
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.append(key.value)
    found += _SNAKE.findall(literal) + re.findall(r"`(\w+)`", literal)
    return [f for f in dict.fromkeys(found) if f in fields]


_BODIES = ("data", "body", "request_data", "raw_request")


def body_keys(condition: str | None, function: str | None, file: str | None) -> list[str]:
    """The keys of a request's JSON body that a validator outside the request classes looks up
    (`'normalize' in data` in vllm/entrypoints/pooling/base/protocol.py's
    reject_removed_pooling_parameters, a pydantic `BeforeValidator`): what the client sent."""
    if not (file or "").startswith("vllm/entrypoints/") or (function or "").split(".")[0].endswith("Request"):
        return []
    parsed = parse_condition(condition) if condition and not condition.startswith("except ") else None
    found = []
    for n in (ast.walk(parsed[1]) if parsed else ()):
        key = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in _BODIES:
            key = n.args[0]
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in _BODIES:
            key = n.slice
        elif isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) and len(n.ops) == 1 \
                and isinstance(n.ops[0], (ast.In, ast.NotIn)) and isinstance(n.comparators[0], ast.Name) \
                and n.comparators[0].id in _BODIES:
            key = n.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.append(key.value)
    return list(dict.fromkeys(found))


def body_key_lines(condition: str | None, function: str | None, file: str | None, t: dict) -> list[str]:
    return [t["body_key"].format(name=k) for k in body_keys(condition, function, file)]


def _open_members(type_text: str | None) -> list[str]:
    """The members of a field's type that are no literal value (`ChatCompletionNamedToolChoiceParam`, `str`)."""
    text = re.sub(r"Literal\[[^\]]*\]", " ", type_text or "")
    names = re.findall(r"[A-Za-z_]\w*", text)
    return [n for n in dict.fromkeys(names) if n not in ("Optional", "Union", "None", "NoneType", "Annotated")]


def body_lines(idx, condition: str | None, function: str | None, literal: str, release: str | None, t: dict) -> list[str]:
    cls = (function or "").split(".")[0]
    fields = body_fields(idx, condition, function, literal, release)
    ok = accepted(condition) if len(fields) == 1 and condition else None
    out = []
    for f in fields:
        info = idx.config_field(cls, f, release)
        shape = []
        if info is not None and info.choices:
            shown = ", ".join(f"`{c}`" for c in list(info.choices)[:8])
            others = _open_members(info.type)
            # `Literal['none'] | Literal['auto'] | ChatCompletionNamedToolChoiceParam`: the literals are
            # not all it takes (a named tool choice is what a check of tool_choice often reads)
            shape.append(t["one_of"].format(choices=shown) + (t["or_a"].format(cls=others[0]) if others else ""))
        if info is not None and info.default is not None:
            shape.append(t["default"].format(value=info.default))
        # (the field as a whole word of the accepted expression, not inside a longer name)
        named = ok and re.search(rf"\b{re.escape(f)}\b", ok)
        out.append(t["body"].format(name=f, cls=cls, shape=f" ({', '.join(shape)})" if shape else "",
                                    valid=t["valid"].format(expr=ok) if named else ""))
    return out


def request_lines(idx, condition: str | None, function: str | None, release: str | None, t: dict,
                  literal: str = "", given: dict | None = None) -> list[str]:
    cls = (function or "").split(".")[0]
    if cls.endswith("Request") and cls not in REQUEST_CLASSES:
        return body_lines(idx, condition, function, literal, release, t)
    fields = request_fields(condition, function)
    if not fields:
        fields = read_fields(idx, condition, release)
        cls = cls if cls in REQUEST_CLASSES else "SamplingParams"
    solved = fields[:]
    own = (function or "").split(".")[0]
    # a name the message speaks of that is a field of the raising config class is that class's
    # (PoolerConfig's deprecated `logit_bias` in 0.21, set through --pooler-config), not a request's
    theirs = idx is not None and own not in REQUEST_CLASSES and own in idx.config_classes()
    fields += [f for f in named_fields(idx, cls, literal, release)
               if f not in fields and not (theirs and idx.config_field(own, f, release) is not None)]
    ok = accepted(condition) if len(solved) == 1 and len(fields) == 1 and condition else None
    sent = sendable(idx, release)
    # --override-generation-config came with 0.7/0.8: a release without it is not told to use it
    overridable = release is None or idx.has_arg("--override-generation-config", release) is not False
    out = []
    for f in fields:
        # a field no request class of this release has is not said to be sendable (indexes without
        # knobs say nothing of requests either way: the Python form is always true)
        request = t["request"].format(name=f) if f in sent else ""
        override = t["override"].format(name=f) if f in GENERATION_CONFIG_KEYS and overridable else ""
        line = t["line"].format(name=f, cls=cls, request=request, override=override,
                                valid=t["valid"].format(expr=ok) if ok else "")
        default = _overridden(given or {}, f)
        out.append(line + t["yours"].format(name=f, value=default) if default is not None else line)
    return out


def _overridden(given: dict, field: str):
    """The value the user's --override-generation-config gives a sampling field, if the log shows it."""
    found = given.get("override_generation_config")
    if isinstance(found, str):
        m = re.search(r"""['"]%s['"]\s*:\s*([^,}\s]+)""" % re.escape(field), found)
        return m.group(1) if m else None
    return found.get(field) if isinstance(found, dict) else None


# --- registries: parsers and attention backends ----------------------------------------------------

_PARSER_KINDS = (("tool_parser", "tool_call_parser", re.compile(r"tool[ _-]?(?:call[ _-]?)?(?:helper|parser)", re.I)),
                 ("reasoning_parser", "reasoning_parser", re.compile(r"reasoning[ _-]?parser", re.I)))
_BACKEND = re.compile(r"attention[ _-]?backend|backend_name|\bbackend\b", re.I)
_VALUE = re.compile(r"^[\w.+-]{1,64}$")
# a message, function or file of a multimodal encoder's attention (MMEncoderAttention, "vit", "multi-modal encoder")
_ENCODER = re.compile(r"mm[ _-]?encoder|multi[ -]?modal encoder|\bvit\b|vision encoder", re.I)


def _value(captures: dict, prefer: str) -> str | None:
    """The user's value among the message's captures: the one whose expression names `prefer`
    ("parser", "backend"), else the only short identifier."""
    values = [(expr, str(v).strip().strip("'\"")) for expr, v in captures.items()]
    values = [(e, v) for e, v in values if _VALUE.match(v)]
    named = [v for e, v in values if prefer in e.lower() or e in ("name", "backend")]
    return named[0] if named else values[0][1] if len(values) == 1 else None


def _with_closest(line: str, value: str, names: list[str], t: dict) -> str:
    """A registry's line, with the names closest to a value it lacks."""
    close = closest(value, names) if value not in names else []
    return line + t["closest"].format(value=value, close=", ".join(f"`{c}`" for c in close)) if close else line


def closest(value: str, names: list[str]) -> list[str]:
    from rapidfuzz import fuzz, process
    found = process.extract(value, names, scorer=fuzz.WRatio, limit=3, score_cutoff=75)
    return [n for n, _, _ in found if n != value]


def shown(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_SHOWN])
    return shown + (f" … ({len(names) - MAX_SHOWN} more)" if len(names) > MAX_SHOWN else "")


def _knob(idx, arg: str, env: str | None, release: str | None) -> str | None:
    """How the user sets it in that release: the flag (and `LLM()` keyword), else the env var."""
    info = idx.arg(arg, release)
    if info is not None:
        forms = [f"`{info.flag}`"] if info.flag else []
        if info.keyword:
            forms.append(f"`LLM({info.name}=…)`")
        if forms:
            return " / ".join(forms)
    if env and idx.env(env, release) is not None:
        return f"`{env}`"
    return None


def registry_lines(idx, site, w: dict, captures: dict, release: str | None, t: dict) -> list[str]:
    if idx is None or not release:
        return []
    said = " ".join((site.template, w.get("function") or "", w.get("file") or ""))
    out = []
    for kind, arg, pattern in _PARSER_KINDS:
        if not pattern.search(said):
            continue
        names, value, knob = idx.knob_names(kind, release), _value(captures, "parser"), _knob(idx, arg, None, release)
        if not names or not value or not knob:
            continue
        line = t["registry"].format(knob=knob, what=t["tool" if kind == "tool_parser" else "reasoning"], value=value,
                                    state=t["registered" if value in names else "unregistered"], release=release,
                                    count=len(names), names=shown(names))
        out.append(_with_closest(line, value, names, t))
    if _BACKEND.search(site.template) and "attention" in said.lower():
        names, value = idx.knob_names("attention_backend", release), _value(captures, "backend")
        knob = _knob(idx, "attention_backend", "VLLM_ATTENTION_BACKEND", release)
        if _ENCODER.search(said) and idx.arg("mm_encoder_attn_backend", release) is not None:
            # a multimodal encoder's (ViT's) attention: --mm-encoder-attn-backend picks it
            # (vision.py's get_vit_attn_backend), not --attention-backend, which is the decoder's
            knob = _knob(idx, "mm_encoder_attn_backend", None, release)
        if names and value and knob and value.upper() == value:
            line = t["backends"].format(knob=knob, value=value, state=t["member" if value in names else "not_member"],
                                        release=release, count=len(names), names=shown(names))
            out.append(_with_closest(line, value, names, t))
    return out


# --- a size the check divides by ---------------------------------------------------------------------

_SIZES = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size")


def divisor_lines(idx, condition: str | None, captures: dict, release: str | None, t: dict) -> list[str]:
    """`heads % tensor_parallel_size != 0` with the message's own numbers: the sizes that divide."""
    parsed = parse_condition(condition) if condition and idx is not None else None
    if parsed is None:
        return []
    kind, tree = parsed
    compare = tree.operand if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not) else tree
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1 and isinstance(compare.left, ast.BinOp)
            and isinstance(compare.left.op, ast.Mod)):
        return []
    number, size = ast.unparse(compare.left.left), ast.unparse(compare.left.right).removeprefix("self.")
    size_name = size.split(".")[-1]
    if size_name not in _SIZES:
        return []
    value = next((str(v) for e, v in captures.items() if e.removeprefix("self.") == number.removeprefix("self.")), None)
    if value is None or not value.strip().isdigit() or not 0 < int(value) <= 1 << 20:
        return []
    n = int(value)
    sizes = [d for d in range(1, min(n, 64) + 1) if n % d == 0]
    knob = _knob(idx, size_name, None, release)
    if not knob:
        return []
    return [t["divides"].format(knob=knob, number=n, expr=number.removeprefix("self."),
                                sizes=", ".join(f"`{d}`" for d in sizes))]


# --- variables of the stack that vLLM's checks name ------------------------------------------------

_ENV_NAME = re.compile(r"(?<![\w.])(PYTORCH_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|NCCL_[A-Z0-9_]+|HF_[A-Z0-9_]+|TORCH_[A-Z0-9_]+|"
                       r"TRITON_[A-Z0-9_]+|OMP_NUM_THREADS|LD_LIBRARY_PATH|TRANSFORMERS_[A-Z0-9_]+)\b")
_OWNERS = (("PYTORCH_", "PyTorch"), ("TORCH_", "PyTorch"), ("CUDA_", "CUDA"), ("NCCL_", "NCCL"),
           ("HF_", "Hugging Face"), ("TRANSFORMERS_", "transformers"), ("TRITON_", "Triton"),
           ("OMP_", "OpenMP"), ("LD_", "the dynamic loader"))


# The options of PyTorch's CUDA caching allocator, which it reads from PYTORCH_CUDA_ALLOC_CONF in
# C++ (c10/cuda/CUDAAllocatorConfig.cpp; PyTorch's "CUDA memory management" notes): a check that
# looks for one in a string (`'expandable_segments:True' not in conf`) reads that variable.
_ALLOC_OPTIONS = ("expandable_segments", "max_split_size_mb", "garbage_collection_threshold",
                  "roundup_power2_divisions", "pinned_use_cuda_host_register", "release_lock_on_cudamalloc")


def env_line(name: str, lang: str) -> str:
    """The bullet for one variable of the stack beneath vLLM (`CUDA_VISIBLE_DEVICES`)."""
    t = _L[lang if lang in _L else "en"]
    owner = next((o for p, o in _OWNERS if name.startswith(p)), "the environment")
    return t["env"].format(name=name, owner=owner)


def stack_env_lines(site, condition: str | None, t: dict, backends=()) -> list[str]:
    """Environment variables of the stack beneath vLLM that the message or its check names. An
    attribute (`AttentionBackendEnum.TRITON_ATTN`, the regex's look-behind) and a name of the release's
    attention backends (`TORCH_SDPA`, `TRITON_ATTN`: values of --attention-backend) are no variable."""
    said = " ".join(v for k, v in site.parts if k == "lit") + " " + (condition or "")
    out = []
    names = [n for n in dict.fromkeys(_ENV_NAME.findall(said)) if n not in backends]
    options = [o for o in _ALLOC_OPTIONS if o in (condition or "")]
    if options and "PYTORCH_CUDA_ALLOC_CONF" not in names:
        names.insert(0, "PYTORCH_CUDA_ALLOC_CONF")
    for name in names:
        owner = next(o for p, o in _OWNERS if name.startswith(p))
        line = t["env"].format(name=name, owner=owner)
        if name == "PYTORCH_CUDA_ALLOC_CONF" and options:
            line = line.rstrip(".。") + t["alloc"].format(options=", ".join(f"`{o}`" for o in options))
        out.append(line)
    return out


# --- arguments of LLM's calls ------------------------------------------------------------------------

def call_methods(idx, name: str, release: str | None) -> list[str]:
    """The `LLM` methods (`chat`, `generate`, ...) of that release that take `name` per call."""
    methods = (key.split(".")[1] for key in idx.knob_names("llm", release) if key.endswith("." + name))
    return [m for m in dict.fromkeys(methods) if m != "__init__"]


def call_lines(idx, literal: str, release: str | None, t: dict, function: str | None = None) -> list[str]:
    """Arguments of `LLM`'s per-call methods the message names (`lora_request`), that are no engine
    argument and no sampling field: the user passed them to that call. Where the raising function is
    one method's own helper (`LLM._get_beam_search_lora_requests`), only that method's call raised it."""
    if idx is None or release is None:
        return []
    fields = {n.split(".", 1)[1] for n in idx.knob_names("sampling", release)}
    out = []
    for name in dict.fromkeys(_SNAKE.findall(literal)):
        methods = call_methods(idx, name, release) if name not in fields and idx.arg(name) is None else []
        own = [m for m in methods if function and function.startswith("LLM.") and m in function.split(".")[-1]]
        methods = own or methods
        if methods:
            calls = ", ".join(f"`llm.{m}({name}=…)`" for m in methods[:3])
            out.append(t["call"].format(name=name, calls=calls))
    return out
