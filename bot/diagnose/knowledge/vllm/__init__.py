"""vLLM's own releases as a knowledge source, answered after the hand-written rules.

    index.py         the index: every release's raise sites, engine arguments, env vars and
                     optional imports (data/, built by build/)
    releases.py      which indexed release describes a version
    families.py      the candidates: a message vLLM raises, a config field pydantic rejected, a name
                     the release lacks, an optional package vLLM imported
    answers.py       the values a family answer (or a hand-written rule the index completes) is
                     filled with
    conditions.py    a raise site's enclosing condition, in words
    knobs.py         the knobs behind a check that are no engine argument (request fields, parsers)
    reads.py         the names a check reads that stand for a knob of another name, or the model's
    direction.py     which way a check wants the knobs it compares (or tests on/off) moved
    missing.py       the package to install when a check stands for an optional import that failed
    rulebook_map.py  the rule book's map of vLLM's source (rules/_vllm_source.json): where a
                     hand-written rule's message is raised, and which releases have the names it uses
    synthesis.py     a raise site's message synthesised from its template
    pack.py          the index's compact on-disk form
    build/           `vllm-doctor index build`: the index from vLLM's wheels

This face is all the pipeline calls. It imports nothing on its own: a paste a hand-written rule
answers never loads the index, nor the modules that read it.
"""

from __future__ import annotations

import os

from bot.diagnose.knowledge import VLLM_FAMILIES     # the families this source answers

# Hand-written rules about names a release lacks: their text says, from the index, which
# releases had the name and what replaced it (answers.for_rule); the tool-call rules list the
# release's parsers; a request key an old server refused, which releases' requests have it.
COMPLETES = ("unexpected-keyword-argument", "cli-bad-args", "tool-call-parser-missing", "tool-call-parse-failed",
             "request-field-forbidden")


def load_index():
    """The index of vLLM's releases, loaded on first use (None when the data is not installed)."""
    from . import index
    return index.load()


def candidates(book, found: list, strong: list, text: str, facts: dict) -> list:
    """A family candidate for the first real error the index knows (at most one), for a paste no
    hand-written rule answers; `found` are the rule book's candidates, best first."""
    from .families import find
    return find(book, found, strong, text, facts)


def describe(c, values: dict, facts: dict, lang: str) -> dict:
    """What the index adds to an answer's values: a family answer's whole text, or the history of
    the names a hand-written rule in COMPLETES is about."""
    if c.source is not None:
        if c.rule.family not in VLLM_FAMILIES:
            return {}                   # another source's answer
        from .answers import values as family_values
        return family_values(c, facts, lang)
    if c.rule.id in COMPLETES:
        from .answers import for_rule
        if not facts.get("vllm_version"):
            # no version line: the release whose raise site is the traceback's own frame
            found = (site(c, facts) or {}).get("frame_releases")
            facts = {**facts, "vllm_version": found[-1]} if found else facts
        return for_rule(c.rule.id, values, facts, lang)
    return {}


def site(c, facts: dict) -> dict | None:
    """Where vLLM raises the candidate's message (`vllm_source` of a diagnosis): from the index for a
    family answer, from the rule book's map for a hand-written one (no index to load)."""
    version = facts.get("vllm_version")
    version = str(version) if version else None
    found = getattr(c.source, "site", None)
    if found is not None:
        from .families import where
        return where(found, version, facts.get("vllm_frames"))
    if c.rule.family:
        return None
    from . import rulebook_map
    data = rulebook_map.load(os.path.dirname(c.rule.path))
    return rulebook_map.site(data, c.rule.id, c.message.text, version, facts.get("vllm_frames")) if data else None
