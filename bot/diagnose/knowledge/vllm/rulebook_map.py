"""The rule book's map of vLLM's source (rules/_vllm_source.json, written by bot/learn/vllm_map.py):
where vLLM raises the messages hand-written rules match, and in which releases the settings their
answers name exist. A small JSON file read on first use; no index, so a paste a rule answers stays
as fast as before.
"""

from __future__ import annotations

import json
import os
import re

from . import releases
from .releases import raised_at, version_key

FILE = "_vllm_source.json"
_CACHE: dict[str, dict | None] = {}
_COMPILED: dict[str, re.Pattern] = {}
_EXC_PREFIX = re.compile(r"^(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure)"
                         r"|Exception):\s*")


def load(directory: str) -> dict | None:
    path = os.path.join(directory, FILE)
    if path not in _CACHE:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            _CACHE[path] = data if data.get("format") == 3 else None
        except (OSError, ValueError):
            _CACHE[path] = None
    return _CACHE[path]


def release_for(data: dict, version: str | None) -> str | None:
    """The indexed release (of the map's `releases`, whose raise sites it holds) that describes the
    version: its minor's last patch (releases.py)."""
    return releases.release_for(data["releases"], version)


def _may_match(regex: str, text: str) -> bool:
    """Whether the message holds the longest word the site's template spells out: a template is
    words joined by `\\s*` and placeholders, so a message without that word cannot match, and the
    regex (a millisecond to compile, several per rule) is never built for it."""
    if "|" in regex:
        return True
    word = max((p for p in regex.split(r"\s*") if p.isalnum()), key=len, default="")
    return word in text


def site(data: dict, rule_id: str, message: str, version: str | None, frames=()) -> dict | None:
    """`vllm_source` for a hand-written rule's message: the rule's raise site whose template the
    message matches (the most specific one), in the log's release when the map knows it, else in
    the newest release whose place is one of the traceback's frames (file and line), else the
    newest; one place, whole."""
    entries = data["sites"].get(rule_id)
    if not entries:
        return None
    text = " ".join(message.split())
    text = _EXC_PREFIX.sub("", text, count=1)
    best = None
    for e in entries:
        if not _may_match(e["regex"], text):
            continue
        rx = _COMPILED.get(e["regex"])
        if rx is None:
            rx = _COMPILED[e["regex"]] = re.compile(e["regex"], re.S)
        # a prefix the paste added ("[address=..., pid=610] ...") may come first
        m = rx.fullmatch(text) or rx.match(text) or rx.search(text)
        if m and m.end() - m.start() >= 0.6 * (len(text) - m.start()) and (best is None or e["literal"] > best["literal"]):
            best = e
    if best is None:
        return None
    have = sorted(best["at"], key=version_key)

    def framed(p) -> bool:
        return raised_at(p[0], p[2], frames)
    matched = [] if version else [r for r in have if any(framed(p) for p in best["at"][r])]
    rel = release_for(data, version)
    rel = rel if rel in best["at"] else matched[-1] if matched else have[-1]
    file, function, line = sorted(best["at"][rel], key=lambda p: not framed(p))[0]
    out = {"file": file, "function": function, "line": line, "releases": have, "release": rel,
           "exception": best["exc"]}
    if matched:
        out["frame_releases"] = matched
    return out


def present(data: dict, kind: str, key: str, version: str | None) -> bool | None:
    """Whether the log's release has an engine argument (kind "arg") or variable ("env"), exact for
    every release PyPI serves (the map's `versions`): None when the map does not know the name or
    the release."""
    facts = data["names"].get(f"{kind}:{key}")
    found = releases.locate(data["versions"], version)
    if facts is None or found is None or facts.get("foreign"):
        return None
    a, b = found[0] in facts["in"], found[1] in facts["in"]
    return a if a == b else None


def facts(data: dict, kind: str, key: str) -> dict | None:
    return data["names"].get(f"{kind}:{key}")


def successor_name(successor: str) -> tuple[str, str, str]:
    """(kind, name, field) of what replaced a name: a `VLLM_*` variable ("env"), or an argument
    ("arg"), dotted when it is a field of the config the argument takes
    (`structured_outputs_config.backend` -> ("arg", "structured_outputs_config", "backend"))."""
    if successor.startswith("VLLM_"):
        return "env", successor, ""
    name, _, field = successor.partition(".")
    return "arg", name, field
