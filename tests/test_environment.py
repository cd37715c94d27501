"""Every environment variable the code reads is in the README's settings table, with who reads it,
and the deploy examples pass every one their component reads: nothing set in an env file is
silently ignored, and nothing the code reads is undocumented."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
# Read by a library on our behalf (platformdirs), so no line of ours names it.
LIBRARY = {"XDG_DATA_HOME"}
# Where files go and which rule book to use instead of the shipped one: the deploy files decide
# the first ones themselves (volumes, StateDirectory), and the last is for rule authors.
NOT_DEPLOYED = {"XDG_CACHE_HOME", "XDG_DATA_HOME", "VLLM_DOCTOR_DATA_DIR", "VLLM_DOCTOR_RULES"}
# Which component runs which modules (a name read in a module counts for each component running it).
RUNS = {
    # `serve --http` also serves the dashboard (its sign-in settings are in bot/dashboard/auth.py).
    "bot": ("bot/base/", "bot/slack/", "bot/http/", "bot/store/", "bot/diagnose/", "bot/repro/safety.py",
            "bot/repro/queue.py", "bot/dashboard/auth.py", "bot/watch/"),
    "worker": ("bot/base/", "bot/repro/", "bot/store/", "bot/diagnose/"),
    "CLI": ("bot/base/", "bot/cli/", "bot/learn/", "bot/repro/cli.py", "bot/store/", "bot/diagnose/", "bot/watch/"),
    "dashboard": ("bot/base/", "bot/dashboard/", "bot/http/", "bot/store/", "bot/diagnose/"),
}


def _is_environment(node: ast.expr) -> bool:
    """os.environ, or a parameter called env that stands for it (`env = os.environ if env is None ...`)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "env")


def read_by_code() -> dict[str, set[str]]:
    """Variable -> the files that read it: os.environ.get/[...], os.getenv, env.get, named constants."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            key = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                if node.func.attr == "get" and _is_environment(node.func.value) or node.func.attr == "getenv":
                    key = node.args[0]
            elif isinstance(node, ast.Subscript) and _is_environment(node.value):
                key = node.slice
            name = key.value if isinstance(key, ast.Constant) else constants.get(getattr(key, "id", None))
            if isinstance(name, str) and NAME.match(name):
                found.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return found


def readme_table() -> dict[str, set[str]]:
    """Variable -> its "read by" cell, from the settings table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### 2. Settings (environment variables)", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \|", section, re.M)
    table = {name: {r.strip() for r in readers.split(",")} for name, readers in rows}
    assert len(table) == len(rows), "a variable is in the table twice"
    return table


def components(files: set[str]) -> set[str]:
    return {c for c, prefixes in RUNS.items() if any(f.startswith(prefixes) for f in files)}


def test_the_scan_sees_what_the_code_reads():
    code = read_by_code()
    assert {"SLACK_BOT_TOKEN", "DATABASE_URL", "PORT", "HOST", "VLLM_DOCTOR_LANG", "VLLM_DOCTOR_RULES",
            "VLLM_DOCTOR_LOCAL_RULES", "NO_COLOR", "VLLM_PYTHON", "REPRO_MAX_GPU_MEMORY_UTILIZATION"} <= set(code)
    assert not {"CONTENT_LENGTH", "PATH_INFO", "QUERY_STRING"} & set(code)   # a WSGI environ is not the environment


def test_the_readme_table_lists_every_variable_the_code_reads_and_no_other():
    code, table = read_by_code(), readme_table()
    assert sorted(set(code) - set(table)) == []
    assert sorted(set(table) - set(code) - LIBRARY) == []


def test_the_readme_says_who_reads_each_variable():
    for name, files in read_by_code().items():
        said = readme_table()[name]
        actual = components(files)
        if said == {"all"}:
            assert actual == set(RUNS), (name, files)
        else:
            assert said <= actual, (name, said, files)


def env_file_names(path: Path) -> set[str]:
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", path.read_text(encoding="utf-8"), re.M))


def wanted(component: str) -> set[str]:
    return {name for name, readers in readme_table().items()
            if (component in readers or "all" in readers) and name not in NOT_DEPLOYED}


def test_compose_and_the_bot_env_file_pass_every_variable_the_bot_reads():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    env = compose["services"]["bot"]["environment"]
    assert set(env) == wanted("bot")
    assert compose["services"]["migrate"]["environment"] == env
    assert env_file_names(ROOT / "deploy" / "bot.env.example") == wanted("bot")


def test_the_worker_env_file_names_every_variable_the_worker_reads():
    assert env_file_names(ROOT / "deploy" / "worker" / "worker.env.example") >= wanted("worker")
