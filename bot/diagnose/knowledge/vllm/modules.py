"""Which vLLM releases had a module, or a name defined in one, as far as the index saw them.

The index holds no list of vLLM's modules, but it knows two kinds of place per release: the files
that raise (every raise site's file) and the modules that import an optional package. A module the
index saw in a release existed there; one it never saw may still have existed (a module that raises
nothing and imports nothing optional), so an empty answer means "unknown", never "absent".

The names a module defined are read the same way: the function of a raise site (`Worker.__init__`)
names a top-level class or function of its file. A name the index never saw raise is unknown.

Pure: reads the loaded index only; the tables are built once per index object.
"""

from __future__ import annotations

from ..raise_sites import bits, places_mask

_TABLES: dict[int, tuple] = {}      # id(index) -> (module masks, {(module, name): mask})


def _tables(idx) -> tuple[dict, dict]:
    key = id(idx)
    if key not in _TABLES:
        _TABLES.clear()             # one index per process in practice; an update replaces it
        _TABLES[key] = _build(idx)
    return _TABLES[key]


def _module_of(path: str) -> str:
    """`vllm/worker/worker.py` → `vllm.worker.worker`; `vllm/v1/__init__.py` → `vllm.v1`."""
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _build(idx) -> tuple[dict, dict]:
    modules: dict[str, int] = {}
    names: dict[tuple[str, str], int] = {}
    for i in range(idx.site_count):
        for fi, function, _, lines in idx.places(i):
            mask = places_mask(lines)
            module = _module_of(idx.files[fi])
            modules[module] = modules.get(module, 0) | mask
            top = (function or "").split(".")[0]
            if top and top.isidentifier():
                names[(module, top)] = names.get((module, top), 0) | mask
    for rows in idx.import_rows():
        for module, _, lines in rows:
            mask = places_mask(lines)
            modules[module] = modules.get(module, 0) | mask
    # a package existed wherever one of its modules did
    for module, mask in list(modules.items()):
        parts = module.split(".")
        for k in range(1, len(parts)):
            parent = ".".join(parts[:k])
            modules[parent] = modules.get(parent, 0) | mask
    return modules, names


def module_releases(idx, module: str) -> list[str]:
    """The indexed releases in which the index saw `module` (a file or a package), oldest first."""
    mask = _tables(idx)[0].get(module, 0)
    return [idx.releases[i] for i in bits(mask)]


def name_releases(idx, module: str, name: str) -> list[str]:
    """The indexed releases in which `module` (its file, or its package's __init__) defined `name`."""
    mask = _tables(idx)[1].get((module, name), 0)
    return [idx.releases[i] for i in bits(mask)]


def history(idx, releases: list[str], version: str | None) -> dict | None:
    """Where the log's vLLM stands against the releases that had the thing: {"first", "last",
    "gone_after"} when it is newer than every one of them (removed after `last`), {"first", "last",
    "added_in"} when it is older than all of them; None when it is among them, between them (the
    index may just not have seen it there), or unknown while the newest release still has it."""
    if not releases:
        return None
    first, last = releases[0], releases[-1]
    newest = idx.releases[-1]
    release = idx.nearest_release(str(version)) if version else None
    if release is None:
        if version or last == newest:
            return None             # older than the index, or no version and it may still be there
        return {"first": first, "last": last, "gone_after": _next(idx, last), "release": None}
    pos = idx.releases.index
    if pos(release) > pos(last):
        return {"first": first, "last": last, "gone_after": _next(idx, last), "release": release}
    if pos(release) < pos(first):
        return {"first": first, "last": last, "added_in": first, "release": release}
    return None


def _next(idx, release: str) -> str:
    """The indexed release after `release`: the first the index saw without it."""
    i = idx.releases.index(release)
    return idx.releases[i + 1] if i + 1 < len(idx.releases) else release
