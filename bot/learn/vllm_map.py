"""What the index of vLLM's releases says about the hand-written rule book, written down ahead of time:
`rules/_vllm_source.json`, made by `vllm-doctor rules sources`, checked by `rules lint`.

A hand-written answer carries where vLLM raises its message (`vllm_source`) and keeps its advice
true for the user's release, but a paste a rule answers must not pay for loading the 1.3 MB index.
So this precomputes, from the index:

    sites   rule id → the raise sites whose message the rule matches: the rule run over every site's
            synthesised message, and the index's match of each of its fixtures' evidence
    names   every flag, `LLM()` keyword and `VLLM_*` variable the rules' texts and settings name, and
            every setting a deriver can suggest (and their successors) → the versions (every release
            PyPI serves, `versions`) that have it, its flag, its successor

bot/diagnose/knowledge/vllm/rulebook_map.py reads it at diagnosis time (a small JSON file, no index).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.diagnose.answering import advice
from bot.diagnose.knowledge.rulebook.named import names
from bot.diagnose.knowledge.vllm.rulebook_map import successor_name

FILE = "_vllm_source.json"
FORMAT = 3
MAX_SITES = 40              # per rule: a broad pattern matches many messages; the first ones suffice
MIN_LITERAL = 12            # a template with less fixed text than this says too little to claim a site
FIXTURE_SCORE = 85          # the index's own score for a fixture's message (a reworded one counts too)
# an exception class the evidence names anywhere ("GLM-4.5V-FP8 + tp=4: RuntimeError: size_n = ..."): the
# index only checks a class at the start, so a C++ TORCH_CHECK quoted after prose matched Python's
# `AssertionError` "{} is not divisible by {}" (ensure_divisibility) and every such paste named that site
_NAMED_EXC = re.compile(r"\b((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):\s")


def path_for(book) -> Path:
    return Path(book.directory) / FILE


def build(book, idx, fixtures_root: Path | None, reports: dict | None = None) -> dict:
    """`reports`: {fixture path: its report under this very book}, where the caller has them (lint)."""
    hand = [r for r in book if not r.family and r.pack == "shipped"]
    sites: dict[str, dict[int, object]] = {r.id: {} for r in hand}
    if fixtures_root is not None and fixtures_root.is_dir():
        _from_fixtures(book, idx, fixtures_root, sites, reports or {})
    _from_synthesised(hand, idx, sites)
    return {
        "format": FORMAT,
        "releases": idx.releases,
        "versions": idx.versions,
        "sites": {rid: [_site_entry(s) for s in found.values()][:MAX_SITES]
                  for rid, found in sorted(sites.items()) if found},
        "names": _names(hand, idx),
    }


def _from_fixtures(book, idx, root: Path, sites: dict, reports: dict) -> None:
    """The raise site of the message each fixture's own rule answered (real pastes first)."""
    from bot.diagnose import diagnose

    from . import fixtures
    for fx in fixtures.all_fixtures(root):
        if fx.expect not in sites:
            continue
        report = reports.get(fx.path)
        best = (report if report is not None else diagnose(fx.data, book=book)).best
        if best is None or best.rule_id != fx.expect:
            continue
        found = idx.match(best.evidence)
        named = {m.group(1).rsplit(".", 1)[-1] for m in _NAMED_EXC.finditer(best.evidence)}
        if found and named and found[0].site.exc not in named:
            continue            # the paste names another exception: not this site's message
        if found and found[0].score >= FIXTURE_SCORE:
            # every site the message matches as well as the best: the same message as its releases each build it
            # (vLLM 0.28 began cutting the failed processes at 1000 characters: two templates, one text)
            for hit in found:
                if hit.score == found[0].score and hit.site.literal_chars >= MIN_LITERAL \
                        and (not named or hit.site.exc in named):
                    sites[fx.expect].setdefault(hit.site.id, hit.site)


def _from_synthesised(rules, idx, sites: dict) -> None:
    """Every raise site whose synthesised message (as an exception line) a rule's pattern matches."""
    from bot.diagnose.knowledge.vllm.synthesis import synthesise
    everything = lambda when: True          # noqa: E731 - a pattern's own `when` needs facts we do not have
    for site in idx.sites:
        if site.literal_chars < MIN_LITERAL:
            continue
        line = f"{site.exc}: {' '.join(synthesise(site).split())}"
        for rule in rules:
            if rule.search(line, everything) is not None:
                sites[rule.id].setdefault(site.id, site)


def _site_entry(site) -> dict:
    where = site.where
    latest = where[-1]
    # every place of each release, whole: a "Raised in" line is one place's file, function and
    # line (a message raised in two files must not join one's file with the other's function)
    at: dict[str, list] = {}
    for w in where:
        at.setdefault(w["release"], []).append([w["file"], w["function"], w["line"]])
    return {"exc": site.exc, "regex": site.regex.pattern, "literal": site.literal_chars,
            "file": latest["file"], "function": latest["function"], "at": at}


def _names(rules, idx) -> dict:
    """Presence per indexed release of every name a hand-written answer may show or suggest."""
    wanted: dict[str, str] = {}
    for rule in rules:
        for lang in ("en", "zh"):
            for text in (rule.title[lang], rule.cause[lang], rule.fix[lang]):
                for n in names(text):
                    wanted.setdefault(n.key, "env" if n.kind == "env" else "arg")
        for key in rule.fix_settings:
            wanted.setdefault(key, "arg")
        for key in rule.fix_env:
            wanted.setdefault(key, "env")
    for key in advice.SUGGESTED:
        wanted.setdefault(key, "arg")
    out = {}
    while wanted:
        for key, kind in sorted(wanted.items()):
            # a name vLLM never had (pip's, docker's) is recorded too, so nobody loads the index to learn it
            out[f"{kind}:{key}"] = _presence(idx, key, kind) or {"foreign": True}
        # a successor is named in a caveat: its presence and flag come from here too
        successors = {f["successor"] for f in out.values() if f.get("successor")}
        # (a dotted one, `structured_outputs_config.backend`, by the argument that takes the config)
        wanted = {name: kind for kind, name, _ in map(successor_name, successors) if f"{kind}:{name}" not in out}
    return dict(sorted(out.items()))


def _presence(idx, key: str, kind: str) -> dict | None:
    latest = idx.env(key) if kind == "env" else idx.arg(key)
    if latest is None:
        return None                     # not vLLM's (pip's, docker's): nothing to check
    have = [i for i, rel in enumerate(idx.versions)
            if (idx.env(key, rel) if kind == "env" else idx.arg(key, rel)) is not None]
    out: dict = {"in": have}
    if kind == "arg" and latest.flag:
        out["flag"] = latest.flag
    if latest.replaced_by:
        out["successor"] = latest.replaced_by
    return out


def render(data: dict) -> str:
    return json.dumps(data, indent=0, sort_keys=True, ensure_ascii=False) + "\n"


def write(book, idx, fixtures_root: Path | None) -> Path:
    path = path_for(book)
    path.write_text(render(build(book, idx, fixtures_root)), encoding="utf-8")
    return path


def stale(book, idx, fixtures_root: Path | None, reports: dict | None = None) -> str | None:
    """Why the committed map is not what `rules sources` would write now, or None when it is."""
    path = path_for(book)
    if not path.is_file():
        return f"{path.name} is missing: run `vllm-doctor rules sources`"
    if path.read_text(encoding="utf-8") != render(build(book, idx, fixtures_root, reports)):
        return f"{path.name} is out of date with the rules or the index: run `vllm-doctor rules sources`"
    return None
