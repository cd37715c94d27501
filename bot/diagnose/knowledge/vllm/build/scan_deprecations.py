"""Deprecation and removal notices in one vLLM release's argument, config and env modules.

Part of the index build. vLLM says when a flag, keyword or variable is deprecated or gone, and
often what replaces it ("`--swap-space` is deprecated ... use `--kv-offloading-size`"); those
sentences are kept with the names they mention so a consumer can say what replaced a name.

Two ways vLLM splits a notice are read as one: a notice whose successor is a hint in another string
of the same function (`msg_prefix = "The 'task' option has been deprecated ..."` beside
`msg_hint = "Please replace this option with `--runner pooling` ..."`; a string that is itself a
notice about another name, with its own hint, is that name's), and a notice a helper words
with its parameters (`"Using %s environment variable is deprecated ... Please use
--attention-config.%s"` in `_set_from_env_if_set(field_name, env_var_name)`), one notice per call
of the helper with literal arguments.
"""

from __future__ import annotations

import ast
import re

from bot.diagnose.knowledge.scan_raises import Scope, _percent, _walk_no_nested, message_parts, render

NOTICE = re.compile(r"(?<![\w-])deprecat|has been removed|have been removed|is removed|are removed|will be removed|"
                    r"no longer (?:supported|used|needed|has any effect)|has been renamed|renamed to|"
                    r"has been replaced|has no effect", re.I)
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*(?:\.[a-z0-9_-]+)*")
_ENV = re.compile(r"\bVLLM_[A-Z0-9_]+\b")
_QUOTED = re.compile(r"[`'\"]([A-Za-z_][\w.]*)[`'\"]")
_SNAKE = re.compile(r"(?<![\w.{-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b(?![({])")
REPLACEMENT = re.compile(
    r"(?:\b[Uu]se|\b[Uu]sing|replaced (?:with|by)|renamed to|in favou?r of|switch to|migrate to|moved to|superseded by)"
    r"\s+(?:the\s+|a\s+|an\s+)?(?:new\s+)?[`'\"]?(--[\w-]+(?:\.[\w-]+)*|VLLM_\w+|[A-Za-z_][\w.]*(?:\([^)]*\))?)")
# A hint that names the successor flag, in another string of the notice's function.
_HINT = re.compile(r"(?:\breplace (?:this|the|it)\b[^.`'\"]{0,40}?\bwith|[Pp]lease use|\b[Uu]se)\s+[`'\"]?"
                   r"(--[a-z][\w-]*(?:\.[\w-]+)*)")
# A help text's leading tag: the sentence after it names what is deprecated.
_TAG = re.compile(r"\s*[\[(]deprecated[\])]:?\s*", re.I)
# Calls that print a notice: logger.warning(...), warnings.warn(...), ...
_LOG_CALLS = frozenset({"warning", "warning_once", "warn", "warn_once", "info", "info_once", "error"})
MAX_NOTICE_CHARS = 400


def is_notice_module(path: str) -> bool:
    return (path in ("vllm/engine/arg_utils.py", "vllm/envs.py", "vllm/config.py", "vllm/entrypoints/llm.py",
                     "vllm/sampling_params.py") or path.startswith("vllm/config/") or path.endswith("/cli_args.py")
            or path.startswith("vllm/entrypoints/") and path.endswith("api_server.py"))


def names_in(text: str) -> list[str]:
    """Flags, VLLM_ variables and snake_case identifiers a sentence mentions, in order."""
    found: list[tuple[int, str]] = []
    for rx in (_FLAG, _ENV, _SNAKE):
        found += [(m.start(), m.group(0)) for m in rx.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _QUOTED.finditer(text)]
    out: list[str] = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


def parse_notice(text: str) -> dict | None:
    m = NOTICE.search(text)
    if not m:
        return None
    if _TAG.match(text):                # "[DEPRECATED] The `--enable-reasoning` flag is deprecated ...": the
        m = NOTICE.search(text, _TAG.match(text).end()) or m     # sentence after the tag says what is
    start = max(text.rfind(". ", 0, m.start()) + 2, 0) if text.rfind(". ", 0, m.start()) >= 0 else 0
    rep = REPLACEMENT.search(text, m.start(), m.end() + 240)
    replacement = rep.group(1).rstrip(".") if rep else None
    quoted = rep is not None and text[rep.start(1) - 1: rep.start(1)] in "`'\"" and rep.start(1) > 0
    if replacement and not (quoted or replacement.startswith("--") or replacement.startswith("VLLM_")
                            or "_" in replacement or "." in replacement or "(" in replacement):
        replacement = None          # "use it", "use with care": not a name
    subjects = [n for n in names_in(text[start: m.start()]) if n != replacement]
    if not subjects:
        return None
    out = {"text": text[:MAX_NOTICE_CHARS], "subjects": subjects[:3]}
    if replacement:
        out["replacement"] = replacement
    return out


def scan(tree: ast.Module) -> list[dict]:
    """[{text, subjects, replacement?, line}] for every notice-like string of a module."""
    out: list[dict] = []
    seen: set[str] = set()
    module_scope = Scope(tree.body)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    inner |= {id(n.body[0].value) for n in ast.walk(tree)      # function, class and module docstrings
              if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
              and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    owner: dict[int, ast.AST] = {}          # a string → the function it is in
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in _walk_no_nested(fn.body):
                owner[id(node)] = fn
    for node in ast.walk(tree):
        if id(node) in inner:
            continue
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)
                                               and len(node.value) > 12):
            text = render(message_parts(node, module_scope, getattr(node, "lineno", 0)))
            if text in seen:
                continue
            seen.add(text)
            notice = parse_notice(" ".join(text.split()))
            if notice:
                notice["line"] = getattr(node, "lineno", 0)
                if "replacement" not in notice and id(node) in owner:
                    _hint(notice, owner[id(node)], inner)
                out.append(notice)
    for notice in _helper_notices(tree):
        if notice["text"] not in seen:
            seen.add(notice["text"])
            out.append(notice)
    return out


def _hint(notice: dict, fn: ast.AST, inner: set[int]) -> None:
    """The successor a hint elsewhere in the notice's function names, and the hints' sentences."""
    hints: list[tuple[str, str]] = []
    strings = [n for n in _walk_no_nested(fn.body) if id(n) not in inner and (
        isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant) and isinstance(n.value, str))]
    for node in sorted(strings, key=lambda n: (n.lineno, n.col_offset)):
        text = " ".join(render(message_parts(node, None, 0)).split())
        found = _HINT.search(text)
        if not found or text in notice["text"] or (found.group(1), text) in hints:
            continue
        other = parse_notice(text)
        if other and not set(other["subjects"]) & set(notice["subjects"]):
            continue        # another name's notice with its own hint ("`--rope-scaling` will be removed ... use ...")
        hints.append((found.group(1), text))
    if hints:
        notice["replacement"] = hints[0][0]
        notice["text"] = " ".join([notice["text"], *(t for _, t in hints)])[:MAX_NOTICE_CHARS]


def _helper_notices(tree: ast.Module) -> list[dict]:
    """Notices a helper prints with its parameters filled in, once per call of it whose arguments
    are literals: `_set_from_env_if_set("backend", "VLLM_ATTENTION_BACKEND")`."""
    helpers: dict[str, tuple[list[str], list]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")]
        for node in _walk_no_nested(fn.body):
            parts = _logged(node)
            if parts and NOTICE.search(render(parts)):
                holes = {v for k, v in parts if k == "ph"}
                if holes and holes <= set(params):
                    helpers.setdefault(fn.name, (params, []))[1].append(parts)
    out: list[dict] = []
    if not helpers:
        return out
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
        if name not in helpers:
            continue
        params, messages = helpers[name]
        bound = dict(zip(params, call.args))
        bound.update({k.arg: k.value for k in call.keywords if k.arg})
        values = {p: v.value for p, v in bound.items() if isinstance(v, ast.Constant) and isinstance(v.value, str)}
        for parts in messages:
            if any(k == "ph" and v not in values for k, v in parts):
                continue
            text = "".join(v if k == "lit" else values[v] for k, v in parts)
            notice = parse_notice(" ".join(text.split()))
            if notice:
                notice["line"] = call.lineno
                out.append(notice)
    return out


def _logged(node: ast.AST):
    """The message parts of `logger.warning("... %s ...", a, b)` or `warnings.warn(f"...")`."""
    if not (isinstance(node, ast.Call) and node.args):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    if name not in _LOG_CALLS:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and len(node.args) > 1:
        return _percent(first.value, ast.Tuple(elts=list(node.args[1:])))
    if isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp)):
        return message_parts(first, None, 0)
    return None
