"""The knowledge sources the pipeline asks, each in its own folder with one face:

    rulebook/   hand-written rules and team rule packs (rules/*.yaml): cause, fix, fixtures
    vllm/       vLLM's own releases: the index of raise sites, arguments and env vars, the family
                answers drawn from it, and the rule book's precomputed map of it

A source offers `candidates(...)`: a Candidate for each root error it can explain, given the log's
messages and facts; and `describe(candidate, facts, lang)`: the values its answers' texts are
filled with. A new source (the stack beneath vLLM, a newer vLLM release) is a new folder with the
same face, asked by bot/diagnose/pipeline.py; no source imports another.
"""

from __future__ import annotations

from bot.base.record import Factory, Record


class Candidate(Record):
    """A rule that explains one error message of the log, as a source found it."""
    rule: object                  # the rule book's Rule whose texts answer it (a family rule for the index)
    message: object               # the reading's tracebacks.Message it explains
    position: int                 # order of the message among the log's errors
    confidence: float
    matched_by: str               # pattern | fuzzy | index
    captures: dict = Factory(dict)
    source: object = None         # what the source found about the message (vllm.families.Hit), for family rules
