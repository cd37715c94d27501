"""`rules lint`: every flag, `LLM()` keyword and `VLLM_*` variable a rule's text names must exist in
every vLLM release the text is shown for, as the index of vLLM's releases knows them (its
`versions`: every release PyPI serves from 0.5.0 on, so a guard's boundary is checked exactly).

A paragraph is shown for the releases of the rule's `versions` that its version guard
(`[vllm SPEC]`) keeps. A name that some of those releases lack fails, with the guard that would
fit. Not checked: names no indexed release has (pip's, docker's and plugins' own flags, another
program's command line), and names the text gives as history (named.role): the old name of a rename
or removal anywhere ("`--task` became ...", "X was removed", "leave X out"), and its successor in
the cause (in the fix a successor is advice, so it must exist where the paragraph is shown).
"""

from __future__ import annotations

import re

from bot.base.versions import in_range
from bot.diagnose.knowledge.rulebook import guards
from bot.diagnose.knowledge.rulebook.named import Name, names, role


def present(idx, name: Name, release: str) -> bool:
    if name.kind == "env":
        return idx.env(name.name, release) is not None
    return idx.arg(name.key, release) is not None


def known(idx, name: Name) -> bool:
    return (idx.env(name.name) if name.kind == "env" else idx.arg(name.key)) is not None


def paragraphs(text: str):
    """(guard specifier or None, paragraph body) of a rule text."""
    for para in re.split(r"\n[ \t]*\n", text):
        yield guards.split(para)


def problems(book, idx) -> list[str]:
    out = []
    for rule in book:
        releases = [r for r in idx.versions if in_range(r, rule.versions or ">=0")]
        for key in ("title", "cause", "fix"):
            for spec, body in paragraphs(getattr(rule, key)["en"]):
                shown = [r for r in releases if spec is None or in_range(r, spec)]
                for name in names(body):
                    # history is no advice: the old name anywhere, its successor in the cause
                    told = role(body, name)
                    if not shown or not known(idx, name) or told == "old" or (told and key != "fix"):
                        continue
                    missing = [r for r in shown if not present(idx, name, r)]
                    if missing:
                        out.append(f"{rule.id}: {key} names `{name.shown}`, which vLLM {_span(missing)} lacks "
                                   f"(of the releases this paragraph is shown for, {_span(shown)}); "
                                   f"{_advice(idx, name, shown)}")
        out += _settings(rule, idx, releases)
    return out


def _settings(rule, idx, releases: list[str]) -> list[str]:
    """`fix_settings` and `fix_env` are suggested to every release of the rule's range."""
    out = []
    for kind, keys in (("keyword", rule.fix_settings), ("env", rule.fix_env)):
        for key in keys:
            name = Name(kind, key, 0)
            if not known(idx, name):
                out.append(f"{rule.id}: {'fix_env' if kind == 'env' else 'fix_settings'} names `{key}`, "
                           "which no indexed vLLM release has")
                continue
            missing = [r for r in releases if not present(idx, name, r)]
            if missing:
                out.append(f"{rule.id}: {'fix_env' if kind == 'env' else 'fix_settings'} names `{key}`, which "
                           f"vLLM {_span(missing)} lacks; narrow the rule's `versions`")
    return out


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}…{releases[-1]}"


def _advice(idx, name: Name, shown: list[str]) -> str:
    have = [r for r in shown if present(idx, name, r)]
    if not have:
        return "drop it, or guard the paragraph for the releases that have it"
    if have == shown[shown.index(have[0]):]:
        return f"guard the paragraph with [vllm >={have[0]}] (the first release that has it)"
    j = idx.versions.index(have[-1])
    after = idx.versions[j + 1] if j + 1 < len(idx.versions) else None
    return f"guard the paragraph with [vllm <{after}]" + (f" (last in {have[-1]})" if after else "")
