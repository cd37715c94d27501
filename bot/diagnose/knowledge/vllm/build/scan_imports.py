"""Which vLLM modules import which third-party packages, and how guarded, for one release.

Part of the index build. A guard is how vLLM keeps a missing package from breaking `import vllm`:
`try` (inside try/except ImportError), `function` (imported when a function runs), `placeholder`
(`PlaceholderModule("x")`), `lazy` (`LazyLoader(..., "x")`), `typing` (under `if TYPE_CHECKING`),
`conditional` (under another module-level `if`), `dynamic` (`importlib.import_module("x")`,
`find_spec("x")`). `top` means an unguarded module-level import. Pip distribution names come from
the wheel's METADATA (Requires-Dist, extras included) and a short table of names that differ.
"""

from __future__ import annotations

import ast
import re
import sys
from email.parser import Parser

STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError", "AttributeError"}

# Import names whose pip distribution is spelled differently (beyond case and -/_), each checked on
# the project's PyPI page or in vLLM's own requirements files.
PIP_NAMES = {
    "lmformatenforcer": "lm-format-enforcer",      # pypi.org/project/lm-format-enforcer
    "flashinfer": "flashinfer-python",              # pypi.org/project/flashinfer-python
    "cv2": "opencv-python-headless",                # vLLM's requirements (common.txt)
    "pynvml": "nvidia-ml-py",                       # vLLM's requirements (cuda.txt)
    "vllm_flash_attn": "vllm-flash-attn",           # pypi.org/project/vllm-flash-attn
    "mooncake": "mooncake-transfer-engine",         # Mooncake's install guide
    "PIL": "pillow",
    "yaml": "pyyaml",
    "zmq": "pyzmq",
    "cpuinfo": "py-cpuinfo",
    "google": "protobuf",                           # `google.protobuf`
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "pyjwt",
    "multipart": "python-multipart",
}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def requirements(metadata: str) -> dict[str, dict]:
    """{normalized distribution: {"name", "extra": None | extra}} from a wheel's METADATA."""
    msg = Parser().parsestr(metadata)
    out: dict[str, dict] = {}
    for req in msg.get_all("Requires-Dist") or []:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if not m:
            continue
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        key = normalize(m.group(1))
        entry = out.setdefault(key, {"name": m.group(1), "extras": []})
        if extra:
            entry["extras"].append(extra.group(1))
        else:
            entry["required"] = True
    return out


def _top(name: str | None) -> str | None:
    if not name:
        return None
    top = name.split(".")[0]
    return None if not top or top in STDLIB or top == "vllm" else top


def scan(tree: ast.Module) -> dict[str, dict]:
    """{package: {"line": first line, "guards": [kinds]}} for one module."""
    out: dict[str, dict] = {}

    def add(pkg: str | None, line: int, guard: str) -> None:
        if pkg:
            rec = out.setdefault(pkg, {"line": line, "guards": []})
            if guard not in rec["guards"]:
                rec["guards"].append(guard)

    def visit(nodes, guard: str) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    add(_top(a.name), node.lineno, guard)
            elif isinstance(node, ast.ImportFrom):
                if not node.level:
                    add(_top(node.module), node.lineno, guard)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, "function" if guard in ("top", "conditional") else guard)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, guard)
            elif isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, getattr(ast, "TryStar"))):
                caught = set()
                for h in node.handlers:
                    if h.type is None:
                        caught.add("BaseException")
                    else:
                        for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]):
                            caught.add(t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", ""))
                inner = "try" if caught & _IMPORT_ERRORS and guard in ("top", "conditional") else guard
                visit(node.body, inner)
                for h in node.handlers:
                    visit(h.body, guard)
                visit(node.orelse, guard)
                visit(node.finalbody, guard)
            elif isinstance(node, ast.If):
                typing_only = "TYPE_CHECKING" in ast.unparse(node.test)
                inner = "typing" if typing_only else ("conditional" if guard == "top" else guard)
                visit(node.body, inner)
                visit(node.orelse, "conditional" if guard == "top" else guard)
            elif isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
                visit(node.body, guard)
                visit(getattr(node, "orelse", []), guard)
            for call in _calls(node):
                fn = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                if fn in ("PlaceholderModule", "LazyLoader", "import_module", "find_spec") and call.args:
                    arg = call.args[-1] if fn == "LazyLoader" else call.args[0]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        kind = {"PlaceholderModule": "placeholder", "LazyLoader": "lazy"}.get(fn, "dynamic")
                        add(_top(arg.value), call.lineno, kind)

    visit(tree.body, "top")
    return out


def _calls(node: ast.AST):
    """Calls in a simple statement (compound statements' bodies are visited on their own)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return, ast.AugAssign)):
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                yield n
    elif isinstance(node, ast.If):
        for n in ast.walk(node.test):
            if isinstance(n, ast.Call):
                yield n
