"""The rule book's map of vLLM's source (rules/_vllm_source.json, written by bot/learn/vllm_map.py):
where vLLM raises the messages hand-written rules match, and in which releases the settings their
answers name exist. A small JSON file read on first use; no index, so a paste a rule answers stays
as fast as before.
"""

from __future__ import annotations

import json
import marshal
import os
import re

from bot.base import marshal_cache, regex_cache

from . import releases
from .releases import raised_at, version_key

FILE = "_vllm_source.json"
_CACHE: dict[str, dict | None] = {}
_COMPILED: dict[str, re.Pattern] = {}
_EXC_PREFIX = regex_cache.compile(r"^(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure)"
                         r"|Exception):\s*")


def load(directory: str, *, sites: bool = True) -> dict | None:
    """The map; `sites=False` for a reader of its names alone (release_true.py), which then does not wait for the
    sites, nine tenths of it, to be decoded (3 ms of a cold start's answer): they stay marshalled until asked for."""
    path = os.path.join(directory, FILE)
    if path not in _CACHE:
        _CACHE[path] = _read(path)
    data = _CACHE[path]
    if sites and data is not None and isinstance(data.get("sites"), bytes):
        data["sites"] = marshal.loads(data["sites"])
    return data


def _read(path: str) -> dict | None:
    """The map (0.7 MB of JSON, read by most answers: 11 ms; its marshal copy in the user's cache, 3 ms, which keeps
    the sites as marshalled bytes of their own: `load` decodes them)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (2, st.st_size, st.st_mtime_ns)       # 2: the copy's layout, the sites apart
    cache = marshal_cache.path("vllm-source-map", path)
    data = marshal_cache.load(cache, stamp)
    if not isinstance(data, dict):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        if isinstance(data, dict):
            kept = {**data, "sites": marshal.dumps(data["sites"])} if "sites" in data else data
            marshal_cache.store(cache, stamp, kept)
    return data if isinstance(data, dict) and data.get("format") == 3 else None


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


def _matches(regex: str, text: str) -> bool:
    if not _may_match(regex, text):
        return False
    rx = _COMPILED.get(regex)
    if rx is None:
        rx = _COMPILED[regex] = regex_cache.compile(regex, re.S)
    # a prefix the paste added ("[address=..., pid=610] ...") may come first
    m = rx.fullmatch(text) or rx.match(text) or rx.search(text)
    return bool(m) and m.end() - m.start() >= 0.6 * (len(text) - m.start())


def _most_specific(matching: list, release: str | None, framed) -> dict:
    """Of the sites whose template the message matches, the one that spells out the most; where
    several spell out as much (a template that grew an optional tail in a later release matches the
    old wording too), the one the log's release has, else one that raised at a traceback frame:
    another would name releases the paste cannot come from."""
    top = max(e["literal"] for e in matching)
    tied = [e for e in matching if e["literal"] == top]
    for fits in (lambda e: release in e["at"],
                 lambda e: any(framed(p) for places in e["at"].values() for p in places)):
        hit = next((e for e in tied if fits(e)), None)
        if hit is not None:
            return hit
    return tied[0]


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
    matching = [e for e in entries if _matches(e["regex"], text)]
    if not matching:
        return None

    def framed(p) -> bool:
        return raised_at(p[0], p[2], frames)
    best = _most_specific(matching, release_for(data, version), framed)
    have = sorted(best["at"], key=version_key)
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
