"""The knowledge sources the pipeline asks, each in its own folder with one face:

    rulebook/   hand-written rules and team rule packs (rules/*.yaml): cause, fix, fixtures
    vllm/       vLLM's own releases: the index of raise sites, arguments and env vars, the family
                answers drawn from it, and the rule book's precomputed map of it
    stack/      the stack beneath vLLM: error codes, pins, ABI and OS tables, raise sites of torch,
                transformers, tokenizers, huggingface_hub and triton

A source offers `candidates(...)`: a Candidate for each root error it can explain, given the log's
messages and facts; and `describe(candidate, facts, lang)`: the values its answers' texts are
filled with. A new source is a new folder with the same face, asked by bot/diagnose/pipeline.py; no
source imports another. What sources share is a module here, beside this face, and no source
itself: scan_raises.py (the raise scanner both indexes' builds run), raise_sites.py (their
templates and matches), data_copies.py (which copy of a source's data is in use: the packaged one,
or a newer one `index update` wrote).
"""

from __future__ import annotations

from bot.base.record import Factory, Record

# The rule families a source answers from its index, which need no patterns (a family rule's texts are filled from
# the index): vLLM's own source (vllm/families.py) and the stack beneath vLLM (stack/stack_families.py). The rule
# book checks a rule's family against both; each source asks for the rules of its own.
VLLM_FAMILIES = ("raise-site", "config-invalid", "name-unknown", "optional-package", "module-gone")
STACK_FAMILIES = ("error-code", "loader", "errno", "pip-conflict", "hub-http", "stack-site", "import-name",
                  "attribute-name", "module-missing", "call-signature", "signal", "unit-exit")


class Candidate(Record):
    """A rule that explains one error message of the log, as a source found it."""
    rule: object                  # the rule book's Rule whose texts answer it (a family rule for the index)
    message: object               # the reading's tracebacks.Message it explains
    position: int                 # order of the message among the log's errors
    confidence: float
    matched_by: str               # pattern | fuzzy | index | environment (versions the paste shows)
    captures: dict = Factory(dict)
    source: object = None         # what the source found about the message (vllm.families.Hit), for family rules

    @property
    def points_above(self) -> bool:
        """Whether this answer yields to an error the paste shows above it: a wrapper's message, a
        hint that reports a death (`points_above`), or a line native code printed as it was killed
        (vLLM kills its own processes after a fatal error: "Killed" then follows the real one)."""
        return self.rule.pointer or bool(getattr(self.message, "native", False))
