"""The package a check found missing: a raise site that stands for an optional import that failed.

vLLM imports many packages inside `try: import nixl ... except ImportError: NixlWrapper = None` and
raises later, far from the import, when the feature is used: `if nixl_wrapper_cls is None: raise
RuntimeError("NIXL is not available")`. The names such a check reads are no setting, yet the fix is
plain: install the package. The index knows every guarded import of every release (module, guard,
line; build/scan_imports.py), so the package is the one the check or the message names, or else the
only guarded import of the raising module; nothing is said when that is not one package.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from ..raise_sites import bits
from .conditions import _parse as parse_condition

# Guards under which an import may fail without stopping the module's own import: the failure
# surfaces later, at a check. `top` and `typing` imports never leave a name unset.
_SOFT_GUARDS = frozenset({"try", "placeholder", "function", "conditional", "dynamic", "lazy"})
# Packages vLLM itself is, or cannot load without: a message that names them is about something else.
_NOT_OPTIONAL = frozenset({"vllm", "torch", "typing_extensions", "pip", "setuptools", "importlib_metadata"})
_AVAILABLE = re.compile(r"^(?:not\s+)?(?:\w+\.)*(?:HAS_\w+|\w+_AVAILABLE|_?has_\w+\(\)|_?is_\w+_available\(\)|\w+_found)$", re.I)
_IMPORT_ERROR_NAME = re.compile(r"import_?err|error_msg$", re.I)
_SAYS_INSTALL = re.compile(r"\binstall|\bnot (?:installed|available|found)\b|\brequire", re.I)
_INSTALL_OR_IMPORT = re.compile(r"\binstall|\bimport", re.I)
# What a message says when a package (or a module of it) is missing, as against merely needed: "is not
# installed", "is unavailable", "failed to import". "requires" is no such word: "Cascade attention
# requires ...", "HiSparse requires its compiled CUDA kernels", "llm_handle is required for 'ray'".
_SAYS_MISSING = re.compile(r"\binstall|\bnot (?:installed|available|found)\b|\bunavailable\b|"
                           r"\b(?:could not|couldn't|cannot|can't|failed to|unable to) (?:be )?import|"
                           r"\bno module named|\bimport(?:ing)? \S+ failed", re.I)
_IMPORT_ERRORS = re.compile(r"^except\s*\(?\s*(?:\w+\.)*(?:ImportError|ModuleNotFoundError|PackageNotFoundError)\b")


class Missing(NamedTuple):
    package: str        # the import's top-level name (`hf3fs_fuse`)
    spec: str | None    # what to pass to pip: the message's own `pip install X`, else the PyPI name
                        # vLLM's requirements or the index's table give (with the version the message
                        # asks for); None when only the import's name is known
    importer: str | None    # the vLLM module of that release whose guarded import failed
    outdated: bool = False  # the check compares the installed release with the one it needs: the
                            # package imported, and is too old (`bitsandbytes.__version__ < ...`)


def module_of(file: str) -> str:
    """`vllm/a/b.py` → `vllm.a.b`; a package's `__init__.py` is the package."""
    return re.sub(r"(?:/__init__)?\.py$", "", file).replace("/", ".")


def import_failed(condition: str | None) -> bool:
    """Whether the check is the shape of a failed optional import: inside `except ImportError`, or a
    test that a name is None / falsy / a `HAS_X`, `X_AVAILABLE`, `has_x()` flag is off (one of the
    operands of an `and`)."""
    if not condition:
        return False
    if condition.startswith("except"):
        return bool(_IMPORT_ERRORS.match(condition))
    parsed = parse_condition(condition)
    if parsed is None:
        return False
    kind, tree = parsed
    if kind == "assert":            # `assert has_pplx()` raises when the test is false
        tree = ast.UnaryOp(op=ast.Not(), operand=tree)
    tests = tree.values if isinstance(tree, ast.BoolOp) else [tree]
    return any(_is_unset(t) for t in tests)


def _parsed(condition: str | None):
    """(kind, tree) of a site's condition, None for an `except X` or one that does not parse."""
    return parse_condition(condition) if condition and not condition.startswith("except") else None


def _conjunction(condition: str | None) -> bool:
    parsed = _parsed(condition)
    return parsed is not None and isinstance(parsed[1], ast.BoolOp) and isinstance(parsed[1].op, ast.And)


def _import_named(condition: str | None) -> bool:
    """Whether a name the check reads is named as an import's (`HAS_X`, `X_AVAILABLE`, `has_x()`,
    `_X_IMPORT_ERROR`, `find_spec(...)`), or it is `except ImportError`."""
    parsed = _parsed(condition)
    if parsed is None:
        return bool(condition and _IMPORT_ERRORS.match(condition))
    codes = (ast.unparse(n) for n in ast.walk(parsed[1]) if isinstance(n, (ast.Name, ast.Attribute, ast.Call)))
    return any(_AVAILABLE.match(c) or _IMPORT_ERROR_NAME.search(c) or "find_spec" in c for c in codes)


def _is_unset(test: ast.AST) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Compare) \
            and len(test.operand.ops) == 1 and isinstance(test.operand.ops[0], ast.IsNot):
        test = ast.Compare(left=test.operand.left, ops=[ast.Is()], comparators=test.operand.comparators)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return bool(_IMPORT_ERROR_NAME.search(ast.unparse(test.left)))     # `_MOONCAKE_IMPORT_ERROR is not None`
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return isinstance(test.left, (ast.Name, ast.Attribute)) or (
            isinstance(test.left, ast.Call) and ast.unparse(test.left.func).endswith("find_spec"))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.Name):
            return True
        return bool(_AVAILABLE.match(ast.unparse(test)))
    return False


def _tokens(text: str) -> set[str]:
    """The words of a text and every run of its `_`-joined parts: `nixl_wrapper_cls` holds `nixl`,
    `hf3fs_fuse` and `wrapper_cls`."""
    out: set[str] = set()
    for word in re.findall(r"[a-z0-9_]+", text.lower().replace("-", "_")):
        parts = [p for p in word.split("_") if p]
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                out.add("_".join(parts[i:j]))
    return out


def _rows(idx, release: str | None) -> dict[str, list[tuple[str, set, int | None]]]:
    """{package: [(module, guards, line)]} of the imports that may fail quietly: of the release (with
    their line there), or of any release when `release` is None (line None)."""
    ri = idx.releases.index(release) if release is not None else None
    out: dict[str, list] = {}
    for package, rows in (idx._fact("imports") or {}).items():
        if package in _NOT_OPTIONAL:
            continue
        for module, guards, lines in rows:
            kinds = set(guards.split(","))
            line = next((lines[j + 1] for j in range(0, len(lines), 2) if ri in bits(lines[j])), None)
            if (line is not None or ri is None) and kinds & _SOFT_GUARDS:
                out.setdefault(package, []).append((module, kinds, line))
    return out


# The names a condition reads, without its string constants (`a2a_backend in ['nixl_ep']` reads no
# package), save the module a `find_spec('hpc')` or `version('x')` asks for.
_STRING = re.compile(r"""(?<!find_spec\()(?<!import_module\()(?<!version\()('[^']*'|"[^"]*")""")
_PIP_INSTALL = re.compile(r"pip install\s+(?:-U\s+)?[`'\"]?((?:git\+|https?://)[^\s`'\"]+[^\s`'\".,)]|"
                          r"(?!-)[\w.\-]+(?:\[[\w,.-]+\])?(?:\s*[<>=~!]=?\s*[\w.]*\w)?)")
MAX_HANDLER_GAP = 12        # lines between an import in a `try` and the raise in its `except ImportError`


def _named(said: set[str], rows: dict) -> list[str]:
    named = [p for p in rows if len(p) >= 3 and p.lower() in said]
    # `flash_attn` and `vllm_flash_attn` both said: the longest is meant
    return [p for p in named if not any(p != o and p.lower() in _tokens(o) for o in named)]


def find(idx, site, w: dict, captures: dict | None = None) -> Missing | None:
    """The package whose failed import the check at `w` (a where row of `site`) stands for, or None;
    `captures`, the values the log's message filled in (`min_version`), complete the version asked for."""
    release, condition = w.get("release"), w.get("condition")
    if idx is None or release not in idx.releases:
        return None
    literal = " ".join(v for k, v in site.parts if k == "lit")
    filled = "".join(v if k == "lit" else str((captures or {}).get(v, "{" + v + "}")) for k, v in site.parts)
    # in a conjunction (`params.json is None and params.regex is None and ...`: the branches of a chain
    # none of which was taken), a value merely unset stands for an import only where the message speaks
    # of installing or the name is an import's
    by_shape = import_failed(condition) and (not _conjunction(condition) or bool(_SAYS_INSTALL.search(literal))
                                             or _import_named(condition))
    # a bare `not x` / `x is None` is the shape of a failed import only where the name is an import's
    # (`HAS_X`, `_X_IMPORT_ERROR`) or the message says something is missing: `not run_refs` ("Ray workers
    # have not started"), `max_frames is None`, `not ray_device_key` ("current platform cpu does not
    # support ray") test no import, and "install ray" / "install opencv" there was false
    says_missing = bool(_SAYS_MISSING.search(literal))
    strong = bool(condition) and (bool(_IMPORT_ERRORS.match(condition)) or _import_named(condition))
    weak = by_shape and not strong
    if weak and not says_missing and not _required(literal, condition, _rows(idx, release)):
        by_shape = False
    if by_shape or (not condition and says_missing):
        # the message and the check's names speak of what failed to import
        said = _tokens(f"{literal} {_STRING.sub(' ', condition or '')}")
    elif _SAYS_INSTALL.search(literal):
        said = _modules_read(condition)  # `bitsandbytes.__version__ < '0.46.1'`: that package, by name
    else:
        return None                      # a check of something else (`a2a_backend in [...]`)
    outdated = not by_shape and compares_version(condition)
    rows, module = _rows(idx, release), module_of(w.get("file") or "")
    named = _named(said, rows) or _named(said, _rows(idx, None))   # a release the scan missed it in
    if not named and outdated:
        # `ipex.__version__` names the package by its import alias; `pkg_version < Version('0.0.3')`
        # by no name at all: the message's own words name it ("gpt_oss >= 0.0.3 is required")
        said = _tokens(literal)
        named = _named(said, rows) or _named(said, _rows(idx, None))
    cond_named = _named(_tokens(_STRING.sub(" ", condition or "")), rows) if strong else []
    if len(cond_named) == 1 and len(named) > 1:
        named = cond_named               # `not is_nixl_available()`: the check names the package
    if len(named) == 1:
        package = named[0]
    elif not named and by_shape:
        package = _only_import(rows, module, condition, w.get("line") or 0)
        if package is None:
            return None
    else:
        return None
    # a package the message merely mentions ("compiled _C_cache_ops CUDA kernels" is no `cuda` module),
    # which neither the check reads nor the raising module imports, is missing only where the message
    # says so
    own = any(m == module for m, _, _ in rows.get(package, ()))
    if not own and not says_missing and package.lower() not in _tokens(_STRING.sub(" ", condition or "")) \
            and not (outdated and package.lower() in _tokens(literal)):
        return None
    # and a bare `x is None` stands for that package's import only where `x` is named for it
    # (`nixl_wrapper_cls is None`: "NIXL is unavailable"), or the message speaks of installing or
    # importing: `self._metadata_group is None` ("nccl_m2n metadata group is unavailable") is no import
    if weak and by_shape and not _INSTALL_OR_IMPORT.search(literal) \
            and package.lower() not in _tokens(_STRING.sub(" ", condition or "")) \
            and not re.search(rf"(?<![\w-]){re.escape(package)}(?![\w-])[^.;:]{{0,20}}?\b(?:is|are)\s+(?:not\s+(?:installed|"
                              rf"available|found)|unavailable|required)", literal, re.I):
        return None
    # the importing module as the release has it (none when only another release's scan saw the import)
    importer = next((m for m, _, _ in rows.get(package, ()) if m == module), None) or \
        next((m for m, _, _ in rows.get(package, ())), None)
    asked = _PIP_INSTALL.search(filled)
    spec = asked.group(1).replace(" ", "") if asked and "{" not in asked.group(1) else None
    spec = f"'{spec}'" if spec and re.search(r"[<>=\[+]", spec) else spec
    pip = _pip(idx, package)
    versioned = _spec(pip or package, filled)
    if versioned != (pip or package) and not (spec and re.search(r"[<>=]", spec)):
        spec = versioned                 # "needs modelscope>=1.18.1, ... `pip install modelscope -U`"
    spec = spec or (pip if pip else None)
    if not by_shape and condition and not (spec and re.search(r"[<>=]", spec)):
        return None         # a version check the message gives no version for: "install" would not do
    return Missing(package, spec, importer, outdated)


def _required(literal: str, condition: str | None, rows: dict) -> bool:
    """Whether a message says a package is required ("torchcodec is required for video decoding",
    "numba is required for ..."), or the check tests the package's own name (`torchcodec is None`) and
    the message names it: not "llm_handle is required", "`text` is required", nor `not ray_device_key`
    ("current platform cpu does not support ray"), whose name merely holds the package's."""
    for m in re.finditer(r"([A-Za-z][\w.\-]*)`?\s+(?:>=?\s*[\d.]+\s+)?(?:is|are)\s+required\b", literal):
        if m.group(1).lower().replace("-", "_") in {p.lower() for p in rows}:
            return True
    names = {n.lower() for n in re.findall(r"\w+", _STRING.sub(" ", condition or ""))}
    return any(p.lower() in names and p.lower() in _tokens(literal) for p in rows)   # the name itself


def distribution(spec: str | None) -> str | None:
    """The distribution a pip spec installs, without extras or version (`'bitsandbytes>=0.46.1'` →
    `bitsandbytes`); None for a URL."""
    m = re.match(r"'?([A-Za-z0-9][\w.\-]*)(?![\w.\-]*:)", spec or "")
    return m.group(1) if m and "://" not in (spec or "") else None


def compares_version(condition: str | None) -> bool:
    """Whether a check compares a package's installed release: `version.parse(x.__version__) < ...`,
    `pkg_version < Version('0.0.3')`, `tuple(int(p) for p in x.__version__.split('.')) < (0, 7, 1)`."""
    parsed = _parsed(condition)
    if parsed is None:
        return False
    for node in ast.walk(parsed[1]):
        if not isinstance(node, ast.Compare) or not any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
                                                        for op in node.ops):
            continue
        for side in [node.left, *node.comparators]:
            for inner in ast.walk(side):
                if isinstance(inner, ast.Attribute) and inner.attr == "__version__":
                    return True
                if isinstance(inner, ast.Call) and ast.unparse(inner.func).rsplit(".", 1)[-1] in (
                        "Version", "parse_version", "parse") and "version" in ast.unparse(inner).lower():
                    return True
                if isinstance(inner, ast.Name) and re.fullmatch(r"\w*_version", inner.id):
                    return True
    return False


def _modules_read(condition: str | None) -> set[str]:
    """The modules a check reads by name: `bitsandbytes.__version__`, `find_spec('hpc')`,
    `version('transformers')` (not `current_platform.is_cuda_alike()`, whose words are no module)."""
    parsed = parse_condition(condition) if condition else None
    if parsed is None:
        return set()
    out = set()
    for node in ast.walk(parsed[1]):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr == "__version__":
            out.add(node.value.id.lower())
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and ast.unparse(node.func).rsplit(".", 1)[-1] in (
                    "find_spec", "version", "import_module"):
            out.add(node.args[0].value.split(".")[0].lower())
    return out


def _only_import(rows: dict, module: str, condition: str, line: int) -> str | None:
    """A check that names no package: the module's own guarded import, when it has exactly one (an
    `X is None` after `try: import ... except ImportError: X = None`), or the import just above the
    raise in the handler of its `try`."""
    if condition.startswith("except"):
        near = [(at, p) for p, found in rows.items() for m, kinds, at in found
                if m == module and at is not None and 0 < line - at <= MAX_HANDLER_GAP and kinds & {"try", "function"}]
        return max(near)[1] if near else None
    if "(" in condition:
        return None                     # `not has_x()` asks a helper elsewhere, not this module's import
    here = {p for p, found in rows.items() for m, kinds, _ in found if m == module and kinds & {"try", "placeholder"}}
    return here.pop() if len(here) == 1 else None


def _pip(idx, package: str) -> str | None:
    """The PyPI name, only where the index knows it (its table, vLLM's own requirements); None when the
    import's name is all there is (`hf3fs_fuse` is built from source, not on PyPI under that name)."""
    known = package in (idx._fact("pip_names") or {}) or \
        re.sub(r"[-_.]+", "_", package).lower() in (idx._fact("dists") or {})
    return idx.pip_name(package) if known else None


def _spec(name: str, literal: str) -> str:
    """The name with the version the message asks for (`bitsandbytes>=0.46.1`), quoted for a shell."""
    pattern = re.sub(r"[-_]", "[-_]", re.escape(name))
    m = re.search(rf"(?<![\w-]){pattern}(?:\[[\w,]+\])?\s*(>=|==|~=|>)\s*(\d+(?:\.\d+)*)", literal, re.I)
    return f"'{name}{m.group(1)}{m.group(2)}'" if m else name
