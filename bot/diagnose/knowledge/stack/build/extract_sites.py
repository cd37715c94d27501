"""One release's raise sites, env reads and exception classes, from the source of its files.

The raise scanner the vLLM index's build uses too (knowledge/scan_raises.py) finds the sites:
templates from f-strings, %, .format, concatenation and messages built in a variable, and exception
classes that word their own message. A site is kept by the rule the vLLM index keeps its own by
(scan_raises.py: at least MIN_LITERAL_WORDS words and MIN_LITERAL_CHARS characters of literal text,
not a text Python itself prints): a message made mostly of its fields cannot be told apart. The
facts are cached by this module's source, with the scanners', so a change here rescans.
"""

from __future__ import annotations

import ast
import re

from bot.diagnose.knowledge import scan_raises
from bot.diagnose.knowledge.scan_raises import MIN_LITERAL_CHARS, MIN_LITERAL_WORDS, PYTHON_TEXTS

from .. import site_match
from . import scan_env_reads



def keep(path: str, site: dict, classes: dict, out: list) -> bool:
    """A site worth matching: enough literal words and characters, and not a text Python prints."""
    parts = scan_raises.own_wording(site, classes) or site.get("parts")
    if not parts:
        return False
    words, chars = scan_raises.literal_stats(parts)
    if words < MIN_LITERAL_WORDS or chars < MIN_LITERAL_CHARS:
        return False
    template = scan_raises.render(parts)
    if PYTHON_TEXTS.fullmatch(site_match.shape(template)):
        return False
    out.append({"exc": site["exc"], "template": template, "file": path, "line": site["line"],
                "function": site["function"], "condition": site["condition"]})
    return True


_EXCEPTION = re.compile(r"(?:Error|Exception|Warning|Failure|Exit|Interrupt)$")


def exception_classes(classes: dict[str, dict], where: dict[str, str]) -> dict[str, dict]:
    """{class: {"bases", "file"}} of the classes that are exceptions: named like one, or derived
    (through the module's own classes) from one."""
    def is_exception(name: str, depth: int = 0) -> bool:
        if _EXCEPTION.search(name):
            return True
        rec = classes.get(name)
        return bool(rec) and depth < 8 and any(is_exception(b, depth + 1) for b in rec["bases"] if b)
    return {name: {"bases": [b for b in rec["bases"] if b], "file": where[name]}
            for name, rec in classes.items() if is_exception(name)}


def extract(sources: dict[str, str]) -> dict:
    """The facts of one release's files: {"raises", "envs", "classes", "counts"}."""
    raws, classes, envs, where = [], {}, [], {}
    counts = {"files": 0, "unparsed": 0, "sites": 0, "kept": 0}
    for path, text in sorted(sources.items()):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            counts["unparsed"] += 1
            continue
        counts["files"] += 1
        raws += [(path, s) for s in scan_raises.scan(tree)]
        found = scan_raises.exception_messages(tree)
        classes.update(found)
        where.update({name: path for name in found})
        envs += [{**e, "file": path} for e in scan_env_reads.scan(tree)]
    raises: list[dict] = []
    for path, site in raws:
        counts["sites"] += 1
        counts["kept"] += keep(path, site, classes, raises)
    return {"raises": raises, "envs": envs, "classes": exception_classes(classes, where), "counts": counts}
