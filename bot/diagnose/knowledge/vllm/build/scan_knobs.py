"""The knobs a user turns that are not engine arguments, from one release's sources (ast only).

Part of the index build. A check that reads `name` in `ToolParserManager.get_tool_parser` is the
user's `--tool-call-parser`, one that reads `params.allowed_token_ids` is a request's field; to say
which value to choose, the answer needs what the user's release accepts. Per release:

    tool_parser / reasoning_parser   the names registered (decorators, lazy registrations, the
                                     `_..._PARSERS_TO_REGISTER` tables)
    attention_backend                the members of vLLM's attention-backend enum
    sampling                         `SamplingParams.top_p`, `PoolingParams.dimensions`, ...
    request                          `ChatCompletionRequest.chat_template`, ... (the OpenAI-compatible
                                     protocol classes: what a client may send)
    llm                              `LLM.chat.chat_template`, `LLM.__init__.tensor_parallel_size`, ...
    lora                             `LoRARequest.lora_path`, ...
    architecture                     the `architectures` names of a model's `config.json` that vLLM's
                                     model registry maps to its own implementation (`_..._MODELS`
                                     tables: `vllm/model_executor/models/registry.py`, before 0.6.1
                                     `models/__init__.py`); not the tables of removed or
                                     platform-limited models

Each kind is a list of names: only that the release has them, no code.
"""

from __future__ import annotations

import ast
import re

KINDS = ("tool_parser", "reasoning_parser", "attention_backend", "sampling", "request", "llm", "lora", "architecture")

_PARAM_CLASSES = ("SamplingParams", "PoolingParams", "BeamSearchParams")
_BACKEND_ENUMS = ("_Backend", "AttentionBackendEnum")
# vLLM's model registry: module-level `_TEXT_GENERATION_MODELS = {"LlamaForCausalLM": (...)}` and the
# like; `_PREVIOUSLY_SUPPORTED_MODELS` (removed models), `_ROCM_*` and `_OOT_MODELS` are no support.
_REGISTRY_FILES = ("vllm/model_executor/models/registry.py", "vllm/model_executor/models/__init__.py")
_REGISTRY_TABLE = re.compile(r"_[A-Z0-9_]*MODELS")
_NOT_SUPPORT = re.compile(r"PREVIOUS|REMOVED|DEPRECATED|ROCM|OOT|UNSUPPORTED")
_LLM_METHODS = ("__init__", "generate", "chat", "embed", "encode", "classify", "score", "reward", "beam_search")


def wanted(path: str) -> bool:
    """A module that registers a parser or defines a knob's class."""
    return ("tool_parser" in path or "/reasoning/" in path or "reasoning_parser" in path
            or (path.startswith("vllm/entrypoints/") and path.endswith("protocol.py"))
            or path in ("vllm/sampling_params.py", "vllm/pooling_params.py", "vllm/beam_search.py",
                        "vllm/entrypoints/llm.py", "vllm/lora/request.py", "vllm/platforms/interface.py")
            or path.endswith("attention/backends/registry.py") or path in _REGISTRY_FILES)


def scan(sources: dict[str, str]) -> dict[str, list[str]]:
    """{kind: sorted names} for one release, from {path: source} of its wanted modules."""
    trees = {}
    for path, source in sources.items():
        try:
            trees[path] = ast.parse(source)
        except SyntaxError:
            continue
    return scan_trees(trees)


def scan_trees(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    found: dict[str, set[str]] = {k: set() for k in KINDS}
    for path, tree in trees.items():
        parser_kind = "reasoning_parser" if "reasoning" in path else "tool_parser" if "tool_parser" in path else None
        if parser_kind:
            found[parser_kind] |= _registered(tree)
        if path in _REGISTRY_FILES:
            found["architecture"] |= _registry_architectures(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            if node.name in _BACKEND_ENUMS:
                found["attention_backend"] |= _members(node)
            elif node.name in _PARAM_CLASSES:
                found["sampling"] |= {f"{node.name}.{f}" for f in _fields(node)}
            elif node.name == "LoRARequest":
                found["lora"] |= {f"LoRARequest.{f}" for f in _fields(node)}
            elif node.name == "LLM" and path == "vllm/entrypoints/llm.py":
                found["llm"] |= _method_params(node)
            elif node.name.endswith("Request") and path.endswith("protocol.py"):
                found["request"] |= {f"{node.name}.{f}" for f in _annotated(node)}
    return {k: sorted(v) for k, v in found.items() if v}


def _strings(node) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def _registered(tree: ast.Module) -> set[str]:
    """Names given to `register_module(...)` / `register_lazy_module(...)`, and the keys of a
    module-level `_..._PARSERS_TO_REGISTER = {name: ...}` table."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("register_module", "register_lazy_module"):
            given = [k.value for k in node.keywords if k.arg in ("name", "names")]
            names.update(s for g in (given or node.args[:1]) for s in _strings(g))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and t.id.endswith("PARSERS_TO_REGISTER") for t in node.targets):
            names.update(s for k in node.value.keys if k is not None for s in _strings(k))
    return names


def _registry_architectures(tree: ast.Module) -> set[str]:
    """The string keys of the model registry's module-level `_..._MODELS = {...}` tables."""
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if not isinstance(getattr(node, "value", None), ast.Dict):
            continue
        if any(isinstance(t, ast.Name) and _REGISTRY_TABLE.fullmatch(t.id) and not _NOT_SUPPORT.search(t.id)
               for t in targets):
            names.update(k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return names


def _members(cls: ast.ClassDef) -> set[str]:
    return {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name) and t.id.isupper()}


def _annotated(cls: ast.ClassDef) -> list[str]:
    """Public annotated class attributes (dataclass, msgspec and pydantic fields), not ClassVars."""
    out = []
    for n in cls.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and not n.target.id.startswith("_") \
                and "ClassVar" not in ast.unparse(n.annotation):
            out.append(n.target.id)
    return out


def _fields(cls: ast.ClassDef) -> list[str]:
    """A parameter class's fields: its annotated attributes, or (older releases, a plain class)
    the parameters of its `__init__`."""
    fields = _annotated(cls)
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        fields += [a.arg for a in (*init.args.args, *init.args.kwonlyargs) if a.arg != "self"]
    return list(dict.fromkeys(fields))


def _method_params(cls: ast.ClassDef) -> set[str]:
    out = set()
    for n in cls.body:
        if isinstance(n, ast.FunctionDef) and n.name in _LLM_METHODS:
            out |= {f"LLM.{n.name}.{a.arg}" for a in (*n.args.args, *n.args.kwonlyargs) if a.arg != "self"}
    return out
