"""Engine arguments and config-class fields of one vLLM release, read from its parsed modules.

Part of the index build. Three sources, as vLLM's own code defines them:
- config classes (`vllm/config.py`, `vllm/config/*.py`, EngineArgs, the server's FrontendArgs):
  field → type, default, pydantic `Field(ge=, le=, gt=, lt=)`, `Literal[...]` choices, and the
  attribute docstring that newer releases print as the flag's help;
- `add_cli_args` / `make_arg_parser`: every `add_argument(...)` with its flags, explicit keywords,
  and `**model_kwargs["max_model_len"]`, which names the config class and field it sets; a loop
  over `get_kwargs(FrontendArgs).items()` makes one flag per field, a loop over a literal list of
  flags one flag per item;
- the flags `vllm serve` itself adds (`--config`, `--headless`, ...): in 0.6 `vllm/scripts.py` and in
  0.7–0.9 `vllm/entrypoints/cli/serve.py` add them to `serve_parser`, later releases in
  `make_arg_parser`;
- `LLM.__init__`'s explicit parameters; every EngineArgs field is an `LLM()` keyword too.
Old releases (0.5–0.8) build config objects in `create_engine_config`, e.g.
`CacheConfig(block_size=self.block_size, ...)`; that call says which config field an argument sets.
"""

from __future__ import annotations

import ast
import copy
import inspect

MAX_HELP_CHARS = 1200
CONSTRAINTS = ("ge", "le", "gt", "lt")
ENGINE_CLASSES = ("EngineArgs", "AsyncEngineArgs")
# Modules whose `serve_parser.add_argument(...)` calls add flags of `vllm serve` (before 0.10).
SERVE_MODULES = ("vllm/scripts.py", "vllm/entrypoints/cli/serve.py")


def is_config_module(path: str) -> bool:
    return (path == "vllm/config.py" or path.startswith("vllm/config/") or path == "vllm/engine/arg_utils.py"
            or path.endswith("/cli_args.py") or path in ("vllm/sampling_params.py", "vllm/pooling_params.py")
            or path.startswith("vllm/entrypoints/openai/") and "protocol" in path)


def is_cli_module(path: str) -> bool:
    return path == "vllm/engine/arg_utils.py" or path.endswith("/cli_args.py")


def wanted(path: str) -> bool:
    """Whether the scan needs this module's tree."""
    return is_config_module(path) or path == "vllm/entrypoints/llm.py" or path in SERVE_MODULES


def literal(node: ast.AST | None) -> tuple[object, str | None]:
    """(value, None) for a literal, else (None, its source)."""
    if node is None:
        return None, None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None, " ".join(ast.unparse(node).split())[:200]
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=repr)
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (bytes, complex)):
        return None, repr(value)
    return value, None


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Types:
    """Literal aliases and Enum classes of a release, to turn annotations into choices."""

    def __init__(self, modules: dict[str, ast.Module]):
        self.aliases: dict[str, ast.AST] = {}
        self.enums: dict[str, list] = {}
        for tree in modules.values():
            for node in tree.body:
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    target, value = node.target, node.value
                if isinstance(target, ast.Name) and "Literal" in ast.unparse(value)[:2000]:
                    self.aliases[target.id] = value
                if isinstance(node, ast.ClassDef) and any("Enum" in (_name(b) or "") for b in node.bases):
                    values = []
                    for st in node.body:
                        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
                            v, _ = literal(st.value)
                            values.append(v if isinstance(v, (str, int)) else st.targets[0].id)
                    if values:
                        self.enums[node.name] = values

    def choices(self, node: ast.AST | None, depth: int = 0) -> list | None:
        if node is None or depth > 6:
            return None
        out: list = []
        if isinstance(node, ast.Subscript) and _name(node.value) == "Literal":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for e in elts:
                v, _ = literal(e)
                if v is not None:
                    out.append(v)
                else:
                    out.extend(self.choices(e, depth + 1) or [])
        elif isinstance(node, ast.Subscript) and _name(node.value) in ("Optional", "Union", "Annotated"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for e in elts[:1] if _name(node.value) == "Annotated" else elts:
                out.extend(self.choices(e, depth + 1) or [])
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            out.extend(self.choices(node.left, depth + 1) or [])
            out.extend(self.choices(node.right, depth + 1) or [])
        elif isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in self.aliases:
            out.extend(self.choices(self.aliases[_name(node)], depth + 1) or [])
        elif isinstance(node, ast.Call) and _name(node.func) == "get_args" and node.args:
            out.extend(self.choices(node.args[0], depth + 1) or [])
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)) and node.generators:
            out.extend(self.enums.get(_name(node.generators[0].iter) or "", []))
        elif isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in self.enums:
            out.extend(self.enums[_name(node)])
        elif isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                v, _ = literal(e)
                if isinstance(v, (str, int, float)):
                    out.append(v)
        seen: list = []
        for v in out:
            if v not in seen:
                seen.append(v)
        return seen or None


def _doc(text: str) -> str:
    text = inspect.cleandoc(text)
    return text if len(text) <= MAX_HELP_CHARS else text[: MAX_HELP_CHARS - 1] + "…"


def _call_kwargs(call: ast.Call) -> dict[str, ast.AST]:
    return {k.arg: k.value for k in call.keywords if k.arg}


def field_info(annotation: ast.AST | None, value: ast.AST | None, types: Types) -> dict:
    """type, default (literal or expression), constraints and choices of one field."""
    info: dict = {}
    if annotation is not None:
        info["type"] = " ".join(ast.unparse(annotation).split())[:200]
    default_node = value
    if isinstance(value, ast.Call) and _name(value.func) in ("Field", "field"):
        kw = _call_kwargs(value)
        default_node = kw.get("default", value.args[0] if value.args else None)
        if "default_factory" in kw:
            info["factory"] = " ".join(ast.unparse(kw["default_factory"]).split())[:200]
        for c in CONSTRAINTS:
            if c in kw:
                v, _ = literal(kw[c])
                if isinstance(v, (int, float)):
                    info[c] = v
        if isinstance(kw.get("description"), ast.Constant) and isinstance(kw["description"].value, str):
            info["doc"] = _doc(kw["description"].value)
    if default_node is not None and not (isinstance(default_node, ast.Constant) and default_node.value is Ellipsis):
        v, expr = literal(default_node)
        if expr is None:
            info["default"] = v
        else:
            info["default_expr"] = expr
            info["_default_node"] = default_node
    choices = types.choices(annotation)
    if choices:
        info["choices"] = choices
    return info


def config_classes(modules: dict[str, ast.Module], types: Types) -> dict[str, dict]:
    """Classes with annotated fields (dataclasses, pydantic models) in the config-bearing modules,
    and old-style config classes whose fields are `__init__` parameters."""
    out: dict[str, dict] = {}
    for path, tree in modules.items():
        if not is_config_module(path):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            fields = _annotated_fields(node, types) or (
                _init_fields(node, types) if node.name.endswith("Config") else {})
            if fields:
                out[node.name] = {"file": path, "line": node.lineno, "fields": fields,
                                  "bases": [b for b in (_name(x) for x in node.bases) if b]}
    return out


def _annotated_fields(node: ast.ClassDef, types: Types) -> dict[str, dict]:
    fields: dict[str, dict] = {}
    body = node.body
    for i, st in enumerate(body):
        if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(st.annotation) or st.target.id.startswith("_"):
            continue
        info = field_info(st.annotation, st.value, types)
        info["line"] = st.lineno
        nxt = body[i + 1] if i + 1 < len(body) else None
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            info["doc"] = _doc(nxt.value.value)
        fields[st.target.id] = info
    return fields


def _init_fields(node: ast.ClassDef, types: Types) -> dict[str, dict]:
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return {}
    return {a.arg: {**field_info(a.annotation, d, types), "line": a.lineno} for a, d in _params(init.args)
            if a.arg != "self"}


def _params(args: ast.arguments) -> list[tuple[ast.arg, ast.AST | None]]:
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))


def class_fields(classes: dict[str, dict], name: str, depth: int = 0) -> dict[str, dict]:
    """A class's fields with those it inherits from other scanned classes."""
    cls = classes.get(name)
    if cls is None or depth > 5:
        return {}
    out: dict[str, dict] = {}
    for base in cls["bases"]:
        out.update(class_fields(classes, base, depth + 1))
    out.update(cls["fields"])
    return out


def resolve_default(info: dict, classes: dict[str, dict], depth: int = 0) -> dict:
    """`ModelConfig.max_model_len` or `get_field(ModelConfig, "x")` as a default: follow it to that
    field, and note the config field it mirrors."""
    node = info.get("_default_node")
    out = {k: v for k, v in info.items() if k != "_default_node"}
    if node is None or depth > 4:
        return out
    target = None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in classes:
        target = (node.value.id, node.attr)
    elif isinstance(node, ast.Call) and _name(node.func) == "get_field" and len(node.args) == 2 \
            and isinstance(node.args[0], ast.Name) and isinstance(node.args[1], ast.Constant):
        target = (node.args[0].id, node.args[1].value)
    if target is None:
        return out
    field = class_fields(classes, target[0]).get(target[1])
    if field is None:
        return out
    field = resolve_default(field, classes, depth + 1)
    out.pop("default_expr", None)
    for key in ("default", "default_expr", "factory"):
        if key in field:
            out[key] = field[key]
    for key in ("choices", "doc", *CONSTRAINTS):
        if key in field and key not in out:
            out[key] = field[key]
    if field.get("config"):
        out.setdefault("config", list(field["config"]))
    elif target[0] not in ENGINE_CLASSES:
        out.setdefault("config", list(target))
    return out


def _text(node: ast.AST | None) -> str | None:
    """A help string as the user reads it (formatted fields shown as {name})."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else
                       str(v.value.value) if isinstance(v.value, ast.Constant) else     # a loop's value (_unrolled)
                       "{" + ast.unparse(v.value) + "}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return (left or "") + (right or "") if left or right else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _text(node.left)
    return None


def cli_flags(modules: dict[str, ast.Module], classes: dict[str, dict], types: Types) -> list[dict]:
    """One record per `add_argument` of the engine and server parsers."""
    out: list[dict] = []
    # get_kwargs (in arg_utils, used by the server's parser too) gives bool fields a --no- form
    # in the releases whose source says so
    arg_utils = modules.get("vllm/engine/arg_utils.py")
    boolean_optional = arg_utils is not None and "BooleanOptionalAction" in ast.unparse(arg_utils)
    for path, tree in modules.items():
        serve = path in SERVE_MODULES
        if not (is_cli_module(path) or serve):
            continue
        for cls_name, fn in _functions(tree):
            if fn.name not in ("add_cli_args", "make_arg_parser") and not serve:
                continue
            kwargs_vars = _kwargs_vars(fn, cls_name)
            for call, loop in _add_argument_calls(fn):
                if serve and not (isinstance(call.func.value, ast.Name) and call.func.value.id == "serve_parser"):
                    continue
                for one in _unrolled(call, loop) or [call]:
                    for rec in _flag_records(one, loop, kwargs_vars, classes, types, cls_name):
                        rec["file"], rec["line"] = path, one.lineno
                        if rec.pop("_from_kwargs", False) and boolean_optional and "bool" in rec.get("type", ""):
                            rec["no_flag"] = "--no-" + rec["flag"][2:]
                        out.append(rec)
    return out


class _Bind(ast.NodeTransformer):
    """Replaces the names a loop binds by the values of one of its items."""

    def __init__(self, bound: dict[str, ast.AST]):
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.bound and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.bound[node.id]), node)
        return node


def _unrolled(call: ast.Call, loop: ast.For | None) -> list[ast.Call] | None:
    """One call per item of a loop over a literal list that names the flag, with the loop's names
    replaced by the item's values: `for arg, type in [("--guided-decoding-backend", str), ...]:
    group.add_argument(arg, type=type, help=f"[DEPRECATED] {arg} ...")` (0.11) adds a flag per item.
    None when the call is not such a loop's."""
    if loop is None or not isinstance(loop.iter, (ast.List, ast.Tuple)):
        return None
    targets = loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        return None
    names = {t.id for t in targets}
    if not any(isinstance(a, ast.Name) and a.id in names for a in call.args):
        return None
    out = []
    for item in loop.iter.elts:
        values = [item] if len(targets) == 1 else getattr(item, "elts", None)
        if values is None or len(values) != len(targets):
            return None
        one = _Bind({t.id: v for t, v in zip(targets, values)}).visit(copy.deepcopy(call))
        one.lineno = item.lineno            # where the flag is named
        out.append(one)
    return out


def _functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for st in node.body:
                if isinstance(st, ast.FunctionDef):
                    yield node.name, st


def _kwargs_vars(fn: ast.FunctionDef, cls_name: str | None) -> dict[str, str]:
    """`model_kwargs = get_kwargs(ModelConfig)` → {"model_kwargs": "ModelConfig"}."""
    out = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and _name(node.value.func) == "get_kwargs" and node.value.args:
            arg = node.value.args[0]
            cls = cls_name if isinstance(arg, ast.Name) and arg.id == "cls" else _name(arg)
            if cls:
                out[node.targets[0].id] = cls
    return out


def _add_argument_calls(fn: ast.FunctionDef):
    """(call, the `for key, value in X.items()` loop around it or None)."""
    loops: list[tuple[ast.For, set[int]]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.For):
            loops.append((node, {id(n) for n in ast.walk(node)}))
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            loop = next((lp for lp, ids in loops if id(node) in ids), None)
            yield node, loop


def _flag_records(call: ast.Call, loop: ast.For | None, kwargs_vars: dict[str, str], classes: dict[str, dict],
                  types: Types, cls_name: str | None) -> list[dict]:
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
             and a.value.startswith("-")]
    kw = _call_kwargs(call)
    spread = [k.value for k in call.keywords if k.arg is None]
    for d in [s for s in spread if isinstance(s, ast.Dict)]:      # **{**cache_kwargs["x"], "default": None}
        for key, value in zip(d.keys, d.values):
            if key is None:
                spread.append(value)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                kw[key.value] = value
    base_fields: list[tuple[str, str, dict]] = []      # (class, field, info)
    if not flags and loop is not None and isinstance(loop.iter, ast.Call) \
            and isinstance(loop.iter.func, ast.Attribute) and isinstance(loop.iter.func.value, ast.Name):
        cls = kwargs_vars.get(loop.iter.func.value.id)
        names = [cls] + [n for n, c in classes.items() if cls in c["bases"]] if cls else []
        for name in names:
            for field, info in class_fields(classes, name).items():
                base_fields.append((name, field, info))
    elif flags:
        for s in spread:
            if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name) and s.value.id in kwargs_vars \
                    and isinstance(s.slice, ast.Constant):
                cls = kwargs_vars[s.value.id]
                base_fields.append((cls, s.slice.value, class_fields(classes, cls).get(s.slice.value, {})))
        if not base_fields:
            base_fields.append((None, None, {}))
    out = []
    for cls, field, info in base_fields:
        fl = flags or ["--" + field.replace("_", "-")]
        rec: dict = {"flags": fl}
        info = resolve_default(info, classes)
        for key in ("type", "default", "default_expr", "factory", "choices", *CONSTRAINTS):
            if key in info:
                rec[key] = info[key]
        if info.get("doc"):
            rec["help"] = info["doc"]
        if cls and cls not in ENGINE_CLASSES and field:
            rec["config"] = [cls, field]
        elif info.get("config"):
            rec["config"] = info["config"]
        rec["_from_kwargs"] = bool(cls)
        _apply_explicit(rec, kw, classes, types)
        long = [f for f in fl if f.startswith("--")]
        dest = kw.get("dest")
        rec["name"] = dest.value if isinstance(dest, ast.Constant) else (long or fl)[0].lstrip("-").replace("-", "_")
        rec["flag"] = (long or fl)[0]
        rec["aliases"] = [f for f in fl if f != rec["flag"]]
        out.append(rec)
    return out


def _apply_explicit(rec: dict, kw: dict[str, ast.AST], classes: dict[str, dict], types: Types) -> None:
    if "type" in kw:
        rec["type"] = " ".join(ast.unparse(kw["type"]).split())[:200]
    if "default" in kw:
        info = resolve_default(field_info(None, kw["default"], types), classes)
        for key in ("default", "default_expr", "factory"):
            rec.pop(key, None)
            if key in info:
                rec[key] = info[key]
        if info.get("config") and "config" not in rec:
            rec["config"] = info["config"]
        if info.get("choices") and "choices" not in rec:
            rec["choices"] = info["choices"]
    if "choices" in kw:
        choices = types.choices(kw["choices"])
        if choices:
            rec["choices"] = choices
    if "help" in kw:
        text = _text(kw["help"])
        if text:
            rec["help"] = _doc(text.replace("%%", "%"))
    action = kw.get("action")
    if action is not None:
        act = ast.unparse(action)
        rec["action"] = act
        if "BooleanOptionalAction" in act:
            rec["no_flag"] = "--no-" + rec["flags"][0].lstrip("-")
        if act in ("'store_true'", "'store_false'", '"store_true"', '"store_false"'):
            rec.setdefault("type", "bool")
            rec.setdefault("default", act.strip("'\"") == "store_false")
    if "deprecated" in kw:
        v, _ = literal(kw["deprecated"])
        if v:
            rec["deprecated"] = True
    if isinstance(rec.get("help"), str) and rec["help"].lstrip().upper().startswith(("[DEPRECATED]", "(DEPRECATED")):
        rec["deprecated"] = True


def config_targets(modules: dict[str, ast.Module]) -> dict[str, tuple[str, str]]:
    """`CacheConfig(block_size=self.block_size, ...)` in arg_utils → {"block_size": ("CacheConfig", "block_size")}."""
    tree = modules.get("vllm/engine/arg_utils.py")
    out: dict[str, tuple[str, str]] = {}
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_name(node.func) or "").endswith("Config"):
            for k in node.keywords:
                if k.arg and isinstance(k.value, ast.Attribute) and isinstance(k.value.value, ast.Name) \
                        and k.value.value.id == "self":
                    out.setdefault(k.value.attr, (_name(node.func), k.arg))
    return out


def llm_params(modules: dict[str, ast.Module], types: Types) -> dict[str, dict]:
    tree = modules.get("vllm/entrypoints/llm.py")
    if tree is None:
        return {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "LLM":
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is None:
                return {}
            out = {}
            for a, d in _params(init.args):
                if a.arg != "self":
                    info = field_info(a.annotation, d, types)
                    info.pop("_default_node", None)
                    info["line"] = a.lineno
                    out[a.arg] = info
            return out
    return {}


def scan(modules: dict[str, ast.Module]) -> dict:
    """{"classes": {class: {file, line, fields}}, "args": {name: record}} for one release."""
    types = Types({p: t for p, t in modules.items() if is_config_module(p) or p.startswith("vllm/")})
    classes = config_classes(modules, types)
    targets = config_targets(modules)
    keywords = set(class_fields(classes, "EngineArgs"))
    engine = {k: resolve_default(v, classes)
              for k, v in (class_fields(classes, "AsyncEngineArgs") or class_fields(classes, "EngineArgs")).items()}
    engine_file = classes.get("EngineArgs", {}).get("file")
    llm = llm_params(modules, types)
    args: dict[str, dict] = {}
    for rec in cli_flags(modules, classes, types):
        name = rec.pop("name")
        rec.pop("flags")
        if name in args:           # the engine parser comes first; a server flag of the same name is the same one
            continue
        args[name] = rec
    for name, info in engine.items():
        rec = args.setdefault(name, {"file": engine_file, "line": info.get("line")})
        for key in ("type", "default", "default_expr", "factory", "choices", *CONSTRAINTS):
            if key in info and key not in rec:
                rec[key] = info[key]
        if info.get("doc") and "help" not in rec:
            rec["help"] = info["doc"]
        if info.get("config") and "config" not in rec:
            rec["config"] = info["config"]
    for name, info in llm.items():
        rec = args.setdefault(name, {"file": "vllm/entrypoints/llm.py", "line": info["line"]})
        for key in ("type", "default", "default_expr", "choices"):
            if key in info and key not in rec:
                rec[key] = info[key]
        if "default" in info and info.get("default") != rec.get("default"):
            rec["llm_default"] = info["default"]
    for name, rec in args.items():
        rec["keyword"] = name in keywords or name in llm
        if "config" not in rec and name in targets:
            rec["config"] = list(targets[name])
        for key in ("type", "help", "default_expr", "factory"):
            if rec.get(key) is None:
                rec.pop(key, None)
    for cls in classes.values():
        for info in cls["fields"].values():
            info.pop("_default_node", None)
    return {"classes": classes, "args": args}
