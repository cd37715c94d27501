"""Deprecation and removal notices in one vLLM release's argument, config and env modules.

Part of the index build. vLLM says when a flag, keyword or variable is deprecated or gone, and
often what replaces it ("`--swap-space` is deprecated ... use `--kv-offloading-size`"); those
sentences are kept with the names they mention so a consumer can say what replaced a name.
"""

from __future__ import annotations

import ast
import re

from .scan_raises import Scope, message_parts, render

NOTICE = re.compile(r"(?<![\w-])deprecat|has been removed|have been removed|is removed|are removed|will be removed|"
                    r"no longer (?:supported|used|needed|has any effect)|has been renamed|renamed to|"
                    r"has been replaced|has no effect", re.I)
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*(?:\.[a-z0-9_-]+)*")
_ENV = re.compile(r"\bVLLM_[A-Z0-9_]+\b")
_QUOTED = re.compile(r"[`'\"]([A-Za-z_][\w.]*)[`'\"]")
_SNAKE = re.compile(r"(?<![\w.{-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b(?![({])")
_REPLACEMENT = re.compile(
    r"(?:\b[Uu]se|\b[Uu]sing|replaced (?:with|by)|renamed to|in favou?r of|switch to|migrate to|moved to|superseded by)"
    r"\s+(?:the\s+|a\s+|an\s+)?(?:new\s+)?[`'\"]?(--[\w-]+(?:\.[\w-]+)*|VLLM_\w+|[A-Za-z_][\w.]*(?:\([^)]*\))?)")
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
    start = max(text.rfind(". ", 0, m.start()) + 2, 0) if text.rfind(". ", 0, m.start()) >= 0 else 0
    rep = _REPLACEMENT.search(text, m.start(), m.end() + 240)
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
                out.append(notice)
    return out
