"""Advice true for the log's vLLM release: no answer suggests a flag, `LLM()` keyword or `VLLM_*`
variable that release does not have — in the settings it suggests, the ready-to-paste call, or its
fix text. A missing one is left out of the call and named in a caveat, with what the release uses
instead, or that there is nothing.

Presence comes from the rule book's map of vLLM's source (rulebook_map.py: no index to load); a name
the map does not know is looked up in the index itself, already loaded for family answers.
"""

from __future__ import annotations

import os

from bot.diagnose.knowledge.vllm import load_index, rulebook_map
from bot.diagnose.knowledge.vllm.releases import runs

TEXTS = {
    "en": {"gone": "vLLM {version} has no {shown} (it exists in {runs}); it uses {successor} instead.",
           "gone_none": "vLLM {version} has no {shown} (it exists in {runs}), and vLLM names no replacement: leave it out.",
           "newer": "vLLM {version} does not have {shown} yet (it arrives in {first}): upgrade vLLM, or leave it out."},
    "zh": {"gone": "vLLM {version} 没有 {shown}（存在于 {runs}）；这个版本用 {successor} 代替。",
           "gone_none": "vLLM {version} 没有 {shown}（存在于 {runs}），vLLM 也没有给出替代项：去掉它即可。",
           "newer": "vLLM {version} 还没有 {shown}（从 {first} 起才有）：请升级 vLLM，或者去掉它。"},
}


class Releases:
    """Which indexed releases have a name: the rule book's map first, then the index."""

    def __init__(self, rule_path: str, version: str):
        self.version = version
        self.data = rulebook_map.load(os.path.dirname(rule_path), sites=False) if rule_path else None

    def lookup(self, kind: str, key: str) -> tuple[bool | None, dict | None, list[str]]:
        """(present in the log's release, {in, flag, successor}, the versions `in` counts)."""
        if self.data is not None:
            facts = rulebook_map.facts(self.data, kind, key)
            if facts is not None:
                if facts.get("foreign"):
                    return None, None, self.data["versions"]       # not vLLM's: nothing to check
                return rulebook_map.present(self.data, kind, key, self.version), facts, self.data["versions"]
        return self._from_index(kind, key)

    def _from_index(self, kind: str, key: str):
        idx = load_index()
        if idx is None:
            return None, None, []
        latest = idx.env(key) if kind == "env" else idx.arg(key)
        if latest is None:
            return None, None, idx.versions
        present = idx.has_env(key, self.version) if kind == "env" else idx.has_arg(key, self.version)
        facts = {"in": [idx.versions.index(r) for r in latest.releases], "flag": getattr(latest, "flag", None),
                 "successor": latest.replaced_by}
        return present, facts, idx.versions


def _note(rel: Releases, kind: str, key: str, shown: str, lang: str) -> str | None:
    present, facts, releases = rel.lookup(kind, key)
    if present is not False or not facts:
        return None
    have = [releases[i] for i in facts["in"]]
    t = TEXTS.get(lang, TEXTS["en"])
    nearest = rulebook_map.release_for({"releases": releases}, rel.version)     # of the versions
    if nearest and have and releases.index(have[0]) > releases.index(nearest):
        return t["newer"].format(version=rel.version, shown=shown, first=have[0])
    successor = facts.get("successor")
    if successor:
        s_kind, head, field = rulebook_map.successor_name(successor)   # an env var may give way to a flag
        s_present, s_facts, _ = rel.lookup(s_kind, head)
        if s_present is not False:
            flag = (s_facts or {}).get("flag") if s_kind == "arg" else None
            shown_successor = (flag or head) + (f".{field}" if field else "")
            return t["gone"].format(version=rel.version, shown=shown, runs=runs(have, releases),
                                    successor=f"`{shown_successor}`")
    return t["gone_none"].format(version=rel.version, shown=shown, runs=runs(have, releases))


def _shown(kind: str, key: str, facts: dict | None) -> str:
    if kind == "env":
        return f"`{key}`"
    flag = (facts or {}).get("flag")
    return f"`{flag}` / `{key}=`" if flag else f"`{key}=`"


def settings(rule, suggest: dict, env: dict, facts: dict, lang: str) -> tuple[dict, dict, dict, list[str]]:
    """(suggest, env, facts for the ready-to-paste call, caveats), keeping only what the log's
    release has. The user's own arguments are checked when they come from a pasted command (vLLM's
    own "non-default args" line lists only what that release accepted)."""
    version = facts.get("vllm_version")
    if not version:
        return suggest, env, facts, []
    rel = Releases(rule.path, str(version))
    notes, keep, keep_env = [], {}, {}
    for key, value in suggest.items():
        note = _note(rel, "arg", key, _shown("arg", key, rel.lookup("arg", key)[1]), lang) if value is not None else None
        if note:
            notes.append(note)
        else:
            keep[key] = value
    for key, value in env.items():
        note = _note(rel, "env", key, f"`{key}`", lang)
        if note:
            notes.append(note)
        else:
            keep_env[key] = value
    if facts.get("user_args_from") == "paste" and (keep or keep_env):
        given = dict(facts.get("user_args") or {})
        for key in list(given):
            if key != "model" and key not in keep:
                note = _note(rel, "arg", key, _shown("arg", key, rel.lookup("arg", key)[1]), lang)
                if note:
                    notes.append(note)
                    keep.setdefault(key, None)          # None: the call leaves it out
        facts = {**facts, "user_args": given}
    return keep, keep_env, facts, notes


def text_notes(rule, text: str, facts: dict, lang: str, skip: set[str]) -> list[str]:
    """Caveats for names in an answer's text that the log's release lacks (guards and `rules lint`
    keep the rule book's own texts true; this catches what a pack or a filled value adds)."""
    version = facts.get("vllm_version")
    if not version:
        return []
    rel = Releases(rule.path, str(version))
    if rel.data is not None and not rule.family:
        return []           # a book with a map was linted against the index: its own texts hold
    from bot.diagnose.knowledge.rulebook.named import history, names   # only for a pack's or a family's text
    out = []
    for n in names(text):
        kind = "env" if n.kind == "env" else "arg"
        if n.key in skip or history(text, n):
            continue
        note = _note(rel, kind, n.key, _shown(kind, n.key, rel.lookup(kind, n.key)[1]), lang)
        if note and note not in out:
            out.append(note)
    return out
