"""Every cache directory of the stack, its default, and the variables that move it.

A default is kept as an expression over environment variables, `${HF_HOME:-${XDG_CACHE_HOME:-~/.cache}/huggingface}`,
which says both where the cache is when nothing is set and which variables move it. Derived where
the package spells it as module-level code: huggingface_hub's constants.py and transformers'
utils/hub.py are evaluated symbolically (os.getenv, os.path.join, expanduser, ...; nothing is
imported), and so are the defaults of vLLM's `vllm/envs.py` (its environment_variables table's
lambdas, with the one-line helpers they call). The rest
(triton, torch, the OS) compute theirs inside functions: HAND gives those, each with the file that
says so, and the build checks that the package does read the variable (its env reads).
"""

from __future__ import annotations

import ast
import re

from .packages import Packages


# variable → (what it holds, package that reads it)
CACHES = {
    "HF_HOME": ("Hugging Face home (hub cache, token, modules)", "huggingface_hub"),
    "HF_HUB_CACHE": ("Hugging Face Hub download cache (models--org--name/)", "huggingface_hub"),
    "HUGGINGFACE_HUB_CACHE": ("Hugging Face Hub download cache (older name)", "huggingface_hub"),
    "HF_ASSETS_CACHE": ("Hugging Face assets cache", "huggingface_hub"),
    "HF_XET_CACHE": ("Hugging Face Xet chunk cache", "huggingface_hub"),
    "HF_TOKEN_PATH": ("Hugging Face token file", "huggingface_hub"),
    "TRANSFORMERS_CACHE": ("transformers' model cache (older name of the Hub cache)", "transformers"),
    "HF_MODULES_CACHE": ("transformers' cache of remote code (trust_remote_code modules)", "transformers"),
    "VLLM_CACHE_ROOT": ("vLLM's cache (torch.compile cache, model info, ...)", "vllm"),
    "VLLM_CONFIG_ROOT": ("vLLM's configuration folder", "vllm"),
    "VLLM_ASSETS_CACHE": ("vLLM's downloaded assets", "vllm"),
    "VLLM_XLA_CACHE_PATH": ("vLLM's XLA compilation cache", "vllm"),
    "VLLM_RPC_BASE_PATH": ("vLLM's IPC sockets for the engine's processes", "vllm"),
    "TRITON_CACHE_DIR": ("triton's compiled-kernel cache", "triton"),
    "TRITON_HOME": ("triton's home (its .triton folder)", "triton"),
    "TORCHINDUCTOR_CACHE_DIR": ("torch inductor's compiled-code cache", "torch"),
    "TORCH_HOME": ("torch hub's home (downloaded checkpoints)", "torch"),
    "TORCH_EXTENSIONS_DIR": ("torch's JIT-built C++/CUDA extensions", "torch"),
    "XDG_CACHE_HOME": ("the user's cache folder, the root of most caches above", "os"),
    "TMPDIR": ("the temporary folder (tempfile.gettempdir())", "os"),
    "CUDA_CACHE_PATH": ("the CUDA driver's JIT cache of PTX compiled for this GPU", "cuda"),
}

# Defaults computed inside functions, by hand, with the file that computes them.
HAND = {
    "TRITON_CACHE_DIR": ("${TRITON_HOME:-~}/.triton/cache", "triton/runtime/cache.py default_cache_dir(); "
                                                            "triton/knobs.py cache_dir"),
    "TRITON_HOME": ("~", "triton/knobs.py home_dir (triton 3.4 on)"),
    "TORCHINDUCTOR_CACHE_DIR": ("${TMPDIR:-/tmp}/torchinductor_<user>",
                                "torch/_inductor/runtime/cache_dir_utils.py default_cache_dir()"),
    "TORCH_HOME": ("${XDG_CACHE_HOME:-~/.cache}/torch", "torch/hub.py _get_torch_home()"),
    "TORCH_EXTENSIONS_DIR": ("${XDG_CACHE_HOME:-~/.cache}/torch_extensions",
                             "torch/utils/cpp_extension.py get_default_build_root()"),
    "XDG_CACHE_HOME": ("~/.cache", "the XDG Base Directory specification"),
    "TMPDIR": ("/tmp", "Python's tempfile.gettempdir() on Linux"),
    "CUDA_CACHE_PATH": ("~/.nv/ComputeCache", "CUDA C++ Programming Guide, CUDA environment variables"),
}
# Python's own: tempfile.gettempdir() reads TMPDIR (then TEMP, TMP) and falls back to /tmp.
CALLS = {"tempfile.gettempdir": "${TMPDIR:-/tmp}"}
PASS_THROUGH = {"expanduser", "expandvars", "abspath", "realpath", "normpath", "str", "Path", "fspath"}


class Unknown(Exception):
    """An expression the evaluator does not follow."""


def evaluate(node: ast.expr, names: dict[str, str], calls: dict[str, str] | None = None) -> str:
    """A path expression as text with ${VAR:-default} for each variable read."""
    calls = calls or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unknown(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in names:
        return names[node.attr]                       # constants.HF_HOME
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else evaluate(v.value, names, calls) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
        sep = "/" if isinstance(node.op, ast.Div) else ""
        return evaluate(node.left, names, calls) + sep + evaluate(node.right, names, calls)
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        short = func.rsplit(".", 1)[-1]
        args = node.args
        if func in calls:
            return calls[func]
        if short in ("getenv", "get") and args and isinstance(args[0], ast.Constant) and \
                (func.endswith("environ.get") or short == "getenv"):
            default = evaluate(args[1], names, calls) if len(args) > 1 else ""
            return "${" + args[0].value + ":-" + default + "}"
        if short == "join" and func.endswith("path.join"):
            return "/".join(evaluate(a, names, calls).rstrip("/") for a in args)
        if func in ("Path.home", "pathlib.Path.home") or (short == "expanduser" and args and
                                                          isinstance(args[0], ast.Constant) and args[0].value == "~"):
            return "~"
        if short in PASS_THROUGH and len(args) == 1:
            return evaluate(args[0], names, calls)
    raise Unknown(ast.unparse(node))


def module_paths(source: str, names: dict[str, str] | None = None) -> dict[str, str]:
    """{name: path expression} of a module's top-level assignments the evaluator can follow."""
    names = dict(names or {})
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = evaluate(node.value, names)
            except (Unknown, RecursionError):
                pass
    return names


def helpers(tree: ast.Module) -> dict[str, str]:
    """{function: path expression} of a module's functions that only return a path expression
    (vLLM's get_default_cache_root())."""
    out = dict(CALLS)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body = [st for st in node.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                try:
                    out[node.name] = evaluate(body[0].value, {}, out)
                except Unknown:
                    pass
    return out


def table_paths(source: str, wanted: set[str]) -> dict[str, str]:
    """{variable: path expression} from a module's table of `"NAME": lambda: <expression>`
    (vllm/envs.py's environment_variables)."""
    tree = ast.parse(source)
    calls = helpers(tree)
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for k, v in zip(node.keys, node.values):
            if isinstance(k, ast.Constant) and k.value in wanted and isinstance(v, ast.Lambda):
                try:
                    out[k.value] = evaluate(v.body, {}, calls)
                except Unknown:
                    pass
    return out


def resolve(expr: str) -> str:
    """The path an expression gives when no variable is set."""
    while True:
        new = re.sub(r"\$\{\w+:-([^${}]*)\}", r"\1", expr)
        if new == expr:
            return expr
        expr = new


def variables(expr: str) -> list[str]:
    return re.findall(r"\$\{(\w+):-", expr)


def _read(pypi: Packages, project: str, version: str, member: str) -> str | None:
    wheel = pypi.wheel(project, version, smallest=True)
    z = pypi.remote(wheel)
    return z.texts([member])[member] if member in z.namelist() else None


def build(pypi: Packages, env_reads: dict[str, dict]) -> dict:
    """{"caches": [[variable, what, package, default expression, default path, moved by, source]]}.
    env_reads: {package: {variable: ...}} from the raise-site blocks, to check the hand entries."""
    found: dict[str, tuple[str, str]] = {}
    hub_version = pypi.releases("huggingface-hub")[-1]
    hub = pypi.memo("cache-paths", f"huggingface_hub-{hub_version}", lambda: module_paths(
        _read(pypi, "huggingface-hub", hub_version, "huggingface_hub/constants.py") or ""))
    for var, expr in hub.items():
        if var in CACHES and CACHES[var][1] == "huggingface_hub" and var in variables(expr):
            found[var] = (expr, f"huggingface_hub=={hub_version} constants.py")
    tf_releases = pypi.releases("transformers", since="4.40.0")
    for version in (tf_releases[0], tf_releases[-1]):       # TRANSFORMERS_CACHE is gone from 5.x
        paths = pypi.memo("cache-paths", f"transformers-{version}", lambda: module_paths(
            _read(pypi, "transformers", version, "transformers/utils/hub.py") or "", hub))
        for var, expr in paths.items():
            if var in CACHES and CACHES[var][1] == "transformers" and var in variables(expr):
                found[var] = (expr, f"transformers=={version} utils/hub.py")
    vllm_version = pypi.releases("vllm")[-1]
    wanted = {v for v, (_, package) in CACHES.items() if package == "vllm"}
    vllm = pypi.memo("cache-paths", f"vllm-{vllm_version}", lambda: table_paths(
        _read(pypi, "vllm", vllm_version, "vllm/envs.py") or "", wanted))
    for var, expr in vllm.items():
        if var in variables(expr):
            found[var] = (expr, f"vllm=={vllm_version} vllm/envs.py")
    for var, (default, where) in HAND.items():
        expr = "${" + var + ":-" + default + "}"
        package = CACHES[var][1]
        checked = var in env_reads.get(package, {})
        found.setdefault(var, (expr, f"{where}, by hand" + ("; read in the package (env reads)" if checked else "")))
    rows = []
    for var, (what, package) in CACHES.items():
        if var not in found:
            continue
        expr, source = found[var]
        rows.append([var, what, package, expr, resolve(expr), variables(expr), source])
    return {"caches": rows, "source": "huggingface_hub constants.py, transformers utils/hub.py and vllm/envs.py "
                                      "evaluated symbolically; the rest by hand"}
