"""What each transformers release lets a program import: `from transformers import X` and `from
transformers.<module> import X`, for every release the stack index's transformers tables cover.

The answer to `ImportError: cannot import name 'X' from 'transformers...'` is which releases have X
there. Each release's wheel is read with ranged requests and its Python files parsed with `ast`
(nothing is imported):

- a module (`transformers/models/llama/modeling_llama.py`, `transformers/utils/import_utils.py`)
  exports its top-level classes, functions, assignments and imports, also those under `if`/`try`
  (a backend check) but not under `if TYPE_CHECKING:`; `from .x import *` adds x's names;
- a lazy package (`transformers/__init__.py`, `transformers/models/llama/__init__.py`: its module is
  replaced by a `_LazyModule`) exports what its import structure lists: the names of the
  `_import_structure` dict (4.x), and, where it calls `define_import_structure` on a folder
  (4.46+, 5.x), the `__all__` of the files there; 5.x's `_create_tokenization_alias(...)`
  modules export their target's names.

The table keeps, per module, its names grouped by the releases that have them (a bitmask over
`releases`, as the other transformers tables): a name whose releases are the module's own is in
every release of it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from .packages import Packages

# Scripts and generated doubles, not modules a program imports: the conversion scripts of each
# model, the "modular" sources the modeling files are generated from, the placeholder objects
# exported when a backend is missing (the same names as the real ones), and the command line.
SKIP = re.compile(r"/(?:convert_[^/]*|modular_[^/]*|dummy_[^/]*)\.py$|^transformers/(?:commands|cli)/")
# A lazy package replaces its own module with a `_LazyModule`; utils/import_utils.py, which defines that class
# (`class _LazyModule(ModuleType):`), is a plain module whose names (is_torch_fx_available, ...) are its own.
LAZY = re.compile(r"sys\.modules\[__name__\]\s*=\s*_LazyModule\(")
ALIAS = re.compile(r"_create_tokenization_alias\(\s*f?[\"'](?:\{__name__\})?\.?([\w.]+)[\"']\s*,\s*[\"']\.([\w.]+)[\"']")


def scanner_key() -> str:
    """Cached facts are keyed by the scanner's source (this file up to "every release"): a change to
    it rescans, a change to how releases are merged does not."""
    source = Path(__file__).read_text().split("# --- every release")[0]
    return hashlib.sha1(source.encode()).hexdigest()[:12]


def wanted(name: str) -> bool:
    return name.startswith("transformers/") and name.endswith(".py") and not SKIP.search(name)


def module_name(path: str) -> str:
    """transformers/models/llama/modeling_llama.py → transformers.models.llama.modeling_llama;
    a package's __init__.py → the package."""
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# --- one file ---------------------------------------------------------------------------------------

def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, (ast.Name, ast.Attribute)) and ast.unparse(test).endswith("TYPE_CHECKING")


def _statements(body: list[ast.stmt]):
    """The statements that run at import time: the module's own, and those under its if/try/with
    blocks (a backend check), not those under `if TYPE_CHECKING:`."""
    for st in body:
        if isinstance(st, ast.If):
            if not _is_type_checking(st.test):
                yield from _statements(st.body)
            yield from _statements(st.orelse)
        elif isinstance(st, ast.Try):
            for block in (st.body, *(h.body for h in st.handlers), st.orelse, st.finalbody):
                yield from _statements(block)
        elif isinstance(st, ast.With):
            yield from _statements(st.body)
        else:
            yield st


def _targets(target: ast.expr):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _targets(t)


def _strings(node: ast.expr | None) -> list[str]:
    """The string constants of a list/tuple/set literal (an `__all__`, an import structure entry)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _resolve(package: str, level: int, module: str | None) -> str:
    """The absolute module of a relative import in `package`."""
    if not level:
        return module or ""
    base = package.split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def scan_file(path: str, text: str) -> dict:
    """{"names": [...], "all": [...] | None, "required": [...], "stars": [module, ...], "structure": [...] | None,
    "lazy": bool, "folders": [...], "aliases": {module: target}}: what one file exports, before
    its star imports and lazy folders are resolved against the rest of the release."""
    tree = ast.parse(text)
    module = module_name(path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    names, stars, structure, all_names, required = set(), [], [], None, []
    for st in _statements(tree.body):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(st.name)
            if any(ast.unparse(d).startswith(("requires(", "export(")) for d in st.decorator_list):
                required.append(st.name)      # define_import_structure exports it beside __all__
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                names.update(_targets(t))
                if isinstance(t, ast.Name) and t.id == "__all__":
                    all_names = _strings(st.value)
                if isinstance(t, ast.Name) and t.id == "_import_structure" and isinstance(st.value, ast.Dict):
                    for v in st.value.values:
                        structure += _strings(v)
                elif isinstance(t, ast.Subscript) and ast.unparse(t.value) == "_import_structure":
                    structure += _strings(st.value)
        elif isinstance(st, ast.AnnAssign):
            names.update(_targets(st.target))
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id == "__all__":
            all_names = [*(all_names or []), *_strings(st.value)]
        elif isinstance(st, ast.ImportFrom):
            for a in st.names:
                if a.name == "*":
                    stars.append(_resolve(package, st.level, st.module))
                else:
                    names.add(a.asname or a.name)
        elif isinstance(st, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in st.names)
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            # _import_structure["models.llama"].extend([...]) / .append("X")
            call = st.value
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("extend", "append") \
                    and ast.unparse(call.func.value).startswith("_import_structure["):
                for arg in call.args:
                    structure += _strings(arg) or ([arg.value] if isinstance(arg, ast.Constant)
                                                   and isinstance(arg.value, str) else [])
    lazy = LAZY.search(text) is not None
    if lazy:      # the top package's `extra_objects={"__version__": __version__}`
        structure += re.findall(r"extra_objects=\{\s*[\"'](\w+)[\"']", text)
    return {"names": sorted(names), "all": all_names, "required": sorted(required), "stars": stars, "structure": sorted(set(structure)) if lazy else None,
            "lazy": lazy, "folders": _lazy_folders(text, package) if lazy else [],
            "aliases": {f"{package}.{a}": _resolve(package, 1, t) for a, t in ALIAS.findall(text)}}


def _lazy_folders(text: str, package: str) -> list[str]:
    """The packages whose files' `__all__` a lazy package exports: define_import_structure(_file)
    is its own folder; define_import_structure(Path(__file__).parent / "models", ...) a subfolder."""
    out = []
    for arg in re.findall(r"define_import_structure\((.*)", text):
        sub = re.search(r"/\s*[\"'](\w+)[\"']", arg)
        out.append(f"{package}.{sub.group(1)}" if sub else package)
    return out


# --- one release -------------------------------------------------------------------------------------

def _listed(scan: dict) -> set[str]:
    """What define_import_structure exports of a file: its __all__ and its @requires objects."""
    return {*(scan["all"] or ()), *scan["required"]}


def release_exports(files: dict[str, dict]) -> dict[str, list[str]]:
    """{module: sorted names} of one release, from scan_file() of each of its files (by path)."""
    scans = {module_name(p): s for p, s in files.items()}
    children: dict[str, list[str]] = {}
    for m in scans:
        children.setdefault(m.rpartition(".")[0], []).append(m)
    done: dict[str, set[str]] = {}

    def public(m: str, seen: frozenset) -> set[str]:
        """What `from m import *` gives: its __all__, or its names without a leading underscore."""
        s = scans.get(m)
        if s is None:
            return set()
        return set(s["all"]) if s["all"] is not None else {n for n in exports(m, seen) if not n.startswith("_")}

    def exports(m: str, seen: frozenset = frozenset()) -> set[str]:
        if m in done:
            return done[m]
        if m in seen:
            return set()
        seen = seen | {m}
        s = scans[m]
        if s["lazy"]:
            out = set(s["structure"] or ())
            for folder in s["folders"]:
                for child in children.get(folder, ()):
                    if child != folder and child.count(".") == folder.count(".") + 1:
                        out |= _listed(scans[child])
                        # a models/<name>/ package: what its files list
                        out |= {n for g in children.get(child, ()) if g != child for n in _listed(scans[g])}
        else:
            out = set(s["names"])
            for star in s["stars"]:
                out |= public(star, seen)
        done[m] = out
        return out

    table = {m: sorted(exports(m)) for m in scans}
    for s in scans.values():
        for alias, target in s["aliases"].items():
            if target in table and alias not in table:
                table[alias] = table[target]
    return table


# --- every release -----------------------------------------------------------------------------------

_SCANNED: dict[tuple[str, bytes], dict | None] = {}     # (path, sha1 of its text) → scan_file()


def read_release(pypi: Packages, wheel: dict) -> dict[str, list[str]]:
    """{module: names} of one wheel, kept by its file name (a file on PyPI never changes)."""
    def make():
        z = pypi.remote(wheel)
        texts = z.texts(n for n in z.namelist() if wanted(n))
        files = {}
        for path, text in texts.items():
            key = (path, hashlib.sha1(text.encode()).digest())
            if key not in _SCANNED:       # most files are the same in the next release: parse once
                try:
                    _SCANNED[key] = scan_file(path, text)
                except SyntaxError:        # syntax this Python cannot parse: left out
                    _SCANNED[key] = None
            if _SCANNED[key] is not None:
                files[path] = _SCANNED[key]
        return release_exports(files)

    kind = f"transformers-exports-{scanner_key()}"
    pypi.prune("transformers-exports-", kind)
    return pypi.memo(kind, wheel["filename"], make, compress=True)


def release_masks(pypi: Packages, since: str, read, usable, what: str, keep=lambda name: True, log=print,
                  releases: list[str] | None = None):
    """(releases, {group: {name: mask}}) over every transformers release from `since` on: `read(pypi,
    wheel)` gives a release's {group: names}; a release whose table is not `usable` takes no bit (the log
    says `what` was not read); bit i of a mask is releases[i]. `releases`: those of a table already built
    (a rescan keeps the bits of the other transformers tables), instead of PyPI's list."""
    versions = releases if releases is not None else pypi.releases("transformers", since=since)
    releases = []
    masks: dict[str, dict[str, int]] = {}
    for version in versions:
        wheel = pypi.wheel("transformers", version, smallest=True)
        if wheel is None:
            continue
        table = read(pypi, wheel)
        if not usable(table):
            log(f"  transformers {version}: no {what} read; skipped")
            continue
        bit = 1 << len(releases)
        releases.append(version)
        for group, names in table.items():
            row = masks.setdefault(group, {})
            for n in names:
                if keep(n):
                    row[n] = row.get(n, 0) | bit
    return releases, masks


def build(pypi: Packages, since: str, log=print, releases: list[str] | None = None) -> dict:
    """{"releases": [...], "modules": {module: packed groups (pack())}, "source"}: every release from
    `since` on (those of the transformers tables: the same bit is the same release), or `releases`."""
    releases, masks = release_masks(
        pypi, since, read_release, lambda table: "transformers" in table, "transformers/__init__.py",
        keep=lambda n: not (n.startswith("__") and n.endswith("__")) or n == "__version__", log=log,
        releases=releases)
    return {"releases": releases, "modules": {m: pack(masks[m]) for m in sorted(masks)},
            "source": f"transformers wheels on PyPI, every release from {since}: the top-level names, "
                      "classes, functions, assignments and imports of transformers/**/*.py (ast; not under "
                      "TYPE_CHECKING; conversion scripts, modular_*.py and dummy objects left out), a lazy "
                      "package's _import_structure and the __all__/@requires of the folders its "
                      "define_import_structure reads"}


def runs(mask: int) -> str:
    """A release mask as runs of release positions: 0b1110011 → "0-1+4-6"."""
    out, i = [], 0
    while mask >> i:
        if mask >> i & 1:
            j = i
            while mask >> (j + 1) & 1:
                j += 1
            out.append(f"{i}-{j}" if j > i else str(i))
            i = j + 1
        else:
            i += 1
    return "+".join(out)


def pack(names: dict[str, int]) -> str:
    """One module's names grouped by the releases that have them: "0-108:A,B;0-47:C" (the largest
    group first); the module's releases are those of all its groups."""
    groups: dict[int, list[str]] = {}
    for n, m in names.items():
        groups.setdefault(m, []).append(n)
    order = sorted(groups, key=lambda m: (-len(groups[m]), m))
    return ";".join(f"{runs(m)}:{','.join(sorted(groups[m]))}" for m in order)
