"""The layout holds: no import circles, no import that climbs a floor, a pure core.

Read from the code's own imports (ast, also those inside functions); nothing is imported here.
"""

from __future__ import annotations

import ast
import os
from collections import defaultdict
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"

# Lowest first. A module may import its own floor and the floors below it, never one above.
FLOORS = (
    "bot.base",                    # records, versions, resources, errors, shared options
    "bot.diagnose.reading",        # the log made plain: messages and facts
    "bot.diagnose.knowledge",      # the sources: the rule book, vLLM's releases, ...
    "bot.diagnose.answering",      # rank, values, release-true advice, the report
    "bot.diagnose",                # the pipeline and the core's face
    "bot.store",
    "bot.watch",                   # reads PyPI; keeps the indexes of vLLM and of the stack up to date
    "bot.learn",
    "bot.http",
    "bot.repro",
    "bot.dashboard",
    "bot.slack",
    "bot.cli",
)
CORE = "bot.diagnose"
# What the pure core never imports: Slack, databases, HTTP, servers.
NOT_IN_CORE = ("slack_bolt", "slack_sdk", "sqlalchemy", "alembic", "psycopg", "psycopg2", "waitress",
               "urllib.request", "http.client", "http.server", "requests", "httpx", "socket", "jinja2")
# Module names every room may have, each meaning that room's own one.
ROLE_NAMES = {"__init__.py", "__main__.py", "cli.py", "app.py"}


def _module(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """module -> every module name it imports (the package's own and others), as written."""
    out: dict[str, set[str]] = {}
    for path in BOT.rglob("*.py"):
        mod = _module(path)
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                names.add(base)
                names |= {f"{base}.{a.name}" for a in node.names}
        out[mod] = names
    return out


IMPORTS = _imports()
MODULES = set(IMPORTS)


def _own(name: str) -> str | None:
    """The project module an imported name refers to (a name imported from a module is that module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _graph() -> dict[str, set[str]]:
    g: dict[str, set[str]] = defaultdict(set)
    for mod, names in IMPORTS.items():
        for n in names:
            target = _own(n) if n.startswith("bot") else None
            # a module importing its own package's __init__ (from . import x) is not an edge to it
            if target and target != mod and not (mod.startswith(target + ".") and target in MODULES):
                g[mod].add(target)
    return g


def _floor(mod: str) -> int:
    best = max((f for f in FLOORS if mod == f or mod.startswith(f + ".")), key=len)
    return FLOORS.index(best)


def _circles(g: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(set(g) | {w for ws in g.values() for w in ws}):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    assert _circles(_graph()) == []


def test_every_module_is_on_a_floor():
    assert [m for m in MODULES if m != "bot" and not any(m == f or m.startswith(f + ".") for f in FLOORS)] == []


def test_no_import_climbs_a_floor():
    climbs = [f"{m} -> {t}" for m, targets in _graph().items() for t in targets
              if t != "bot" and _floor(t) > _floor(m)]
    assert climbs == []


KNOWLEDGE = BOT / "diagnose" / "knowledge"


def _source(mod: str) -> str | None:
    """The knowledge source a module belongs to: a sub-package of knowledge/ (rulebook, vllm, ...).
    A module directly in knowledge/ (the Candidate face, the raise scanner) is what sources share."""
    parts = mod.split(".")
    if mod.startswith("bot.diagnose.knowledge.") and (KNOWLEDGE / parts[3]).is_dir():
        return parts[3]
    return None


def test_no_knowledge_source_imports_another():
    """Each source is asked by the pipeline alone; what two share lives below them."""
    crossing = [f"{m} -> {t}" for m, targets in _graph().items() for t in targets
                if _source(m) and _source(t) and _source(m) != _source(t)]
    assert crossing == []


def test_the_core_imports_no_slack_database_http_or_edge():
    bad = []
    for mod, names in IMPORTS.items():
        if not (mod == CORE or mod.startswith(CORE + ".")):
            continue
        for n in names:
            if any(n == x or n.startswith(x + ".") for x in NOT_IN_CORE):
                bad.append(f"{mod} imports {n}")
            target = _own(n) if n.startswith("bot") else None
            if target and target != "bot" and _floor(target) > _floor(CORE):
                bad.append(f"{mod} imports the edge {target}")
    assert bad == []


def test_no_two_modules_of_one_name():
    seen = defaultdict(list)
    for path in BOT.rglob("*.py"):
        if path.name not in ROLE_NAMES:
            seen[path.name].append(str(path.relative_to(BOT)))
    assert {n: p for n, p in seen.items() if len(p) > 1} == {}


def test_a_climbing_import_is_caught():
    """The check itself: an edge's module imported from the core would be a climb."""
    assert _floor("bot.slack.app") > _floor("bot.diagnose.pipeline") > _floor("bot.diagnose.answering.rank")
    assert _floor("bot.diagnose.knowledge.vllm.index") < _floor("bot.diagnose.answering.report")
    assert _circles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]


def test_a_source_is_a_folder_of_knowledge_and_what_they_share_sits_beside_them():
    assert _source("bot.diagnose.knowledge.vllm.build.wheels") == "vllm"
    assert _source("bot.diagnose.knowledge.stack") == "stack"
    assert _source("bot.diagnose.knowledge.scan_raises") is None and _source("bot.diagnose.knowledge") is None
