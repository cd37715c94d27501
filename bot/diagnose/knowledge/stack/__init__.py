"""Knowledge of the stack beneath vLLM, as a source the pipeline asks after the rule book and
vLLM's own families: error codes (CUDA, NCCL, NVML, and the statuses of cuBLAS, cuDNN and CUDA's
other math libraries), errno, signals and limits, the dynamic
loader's messages, cache folders and the variables that move them, pins per vLLM and torch
release, CUDA → driver, shared library → wheel, GLIBCXX → GCC, and the raise sites of torch,
transformers, tokenizers, huggingface_hub and triton.

    stack_index.py   the index's lookups (data/, made by build/ from the packages themselves)
    site_match.py    a package's messages matched to their raise sites
    stack_families.py  the candidates: which message a stack family answers (error-code, loader,
                     errno, pip-conflict, hub-http, stack-site)
    hub_http.py      huggingface_hub's HTTP errors read by class: status, repo, revision, file
    stack_answers.py   the values the family rules' texts are filled with
    environment.py   where no error line is answered: versions the paste shows that cannot work together
    build/           `vllm-doctor index build-stack`

This face is all the pipeline calls. It imports nothing on its own: a paste a hand-written rule
answers never loads the index, nor the modules that read it.
"""

from __future__ import annotations

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.diagnose.knowledge import STACK_FAMILIES as FAMILIES     # the families this source answers

# Inductor's precompiled C++ headers, <tmp>/torchinductor_<user>/precompiled_headers whatever TORCHINDUCTOR_CACHE_DIR
# says (torch 2.13 _inductor/codecache.py: _HEADER_DIR = os.path.join(default_cache_dir(), "precompiled_headers"), "we
# explicitly use default_cache_dir here"; cache_dir_utils.default_cache_dir: tempfile.gettempdir() and "torchinductor_" +
# getpass.getuser(), which reads LOGNAME, USER, LNAME, USERNAME first), made by _precompile_header for CPU kernels when
# config.cpp_cache_precompile_headers (TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS, "1" by default): TMPDIR moves them.
# Here, not in stack_answers: disk-full's deriver reads it too, and importing this module loads no index.
INDUCTOR_HEADERS = LazyRe(r"[/\\]torchinductor_[^/\\]+[/\\]precompiled_headers(?:[/\\]|$)")


def candidates(book, found: list, strong: list, text: str, facts: dict) -> list:
    """A stack family candidate for the first real error the index knows (at most one), for a paste
    no hand-written rule answers; `found` are the other sources' candidates, best first."""
    from .stack_families import find
    return find(book, found, strong, text, facts)


def environment_candidates(book, facts: dict, text: str) -> list:
    """For a paste that shows no error any source answers: a rule's answer for versions it shows that cannot work
    together (a driver older than torch's CUDA major, a GPU torch's CUDA cannot target, torch's CPU build beside an
    NVIDIA GPU); at most one, from the paste's own line that shows the fact (environment.py)."""
    if not facts.get("stack_context") or facts.get("foreign_context"):
        return []
    from .environment import candidates as found
    return found(book, facts, text)


def tokenizer_attr_versioned(messages, book) -> bool | None:
    """The fact `tokenizer_attr_versioned` (attribute_names.py): whether the first `<Tokenizer> has no attribute
    <name>` message names an attribute some transformers release's tokenizers have and another's lack. The wording is
    what the book's patterns that ask for this fact match (transformers-version-mismatch's), read from them. None, and
    nothing loaded, where no message says "has no attribute" (or no pattern asks)."""
    messages = [m for m in messages if " has no attribute " in m]
    if not messages:
        return None
    wordings = [regex_cache.compile(rule.pattern_sources[i]) for rule in book
                for i, when in enumerate(rule.pattern_when) if when and "tokenizer_attr_versioned" in when]
    # (only those that name the class and the attribute, which the fact reads: a pattern without them asks, not tells)
    wordings = [rx for rx in wordings if {"cls", "symbol"} <= set(rx.groupindex)]
    if not wordings:
        return None
    from .attribute_names import tokenizer_attr_versioned as versioned
    from .stack_index import load
    return versioned(messages, wordings, load)


def xid_shown(strong: list) -> bool:
    """Whether a message is the NVIDIA driver's Xid line (cheap: the index is not loaded to tell)."""
    return any("Xid (" in m.text for m in strong)


def xid_candidates(book, strong: list, facts: dict) -> list:
    """Where a hand-written rule answers (an illegal memory access, an NCCL error), the Xid beside it that the GPU or
    the driver caused (Xid 79, 48, 94, 95, 119, ...), which is the root of what the rule explains; none for an Xid of
    the program's own doing (13, 31, 43)."""
    if not facts.get("stack_context"):
        return []
    from .stack_families import xid_root
    return xid_root(book, strong)


# Consequences whose own answer names the root once vLLM's platform check said why it found no CUDA platform
# (reading/facts.platform_probe: NVML's error, no GPU, a CPU build): they no longer yield to the code above them.
PROBE_READERS = frozenset({"device-infer-failed"})


def yielded(book, found: list, facts: dict | None = None) -> set[str]:
    """The hand-written answers among `found` that a stack family rule `supersedes`, when they are
    all there is: a consequence ("No CUDA GPUs are available", "Failed to infer device type") of
    CUDA or NVML failing to start, whose code printed above it (torch's warning "CUDA
    initialization: ... Error 803: ...") is the root. Empty when another answer stands."""
    over = {i for r in book if r.family in FAMILIES and r.status == "active" for i in r.supersedes}
    answers = {c.rule.id for c in found if not c.points_above and c.rule.status == "active"
               and c.rule.level != "hint" and not c.rule.family}
    if facts and facts.get("platform_probe") not in (None, "no_platform"):
        answers -= PROBE_READERS
    return answers if answers and answers <= over else set()


def root_above(book, found: list, strong: list, facts: dict | None = None) -> bool:
    """Whether a consequence `yielded` answers, with a message above it that names CUDA or NVML (only
    then are the stack's modules loaded: a paste a rule answers otherwise never loads them)."""
    ids = yielded(book, found, facts)
    if not ids:
        return False
    first = min(c.position for c in found if c.rule.id in ids)
    return any(names_cuda(m.text) for m in strong[:first])


def names_cuda(text: str) -> bool:
    """Whether a message names CUDA or NVML (where a consequence's root may be)."""
    low = text.lower()
    return "cuda" in low or "nvml" in low


def describe(c, values: dict, facts: dict, lang: str) -> dict:
    """The values of a stack family answer's text: what failed, why here, what to change."""
    if c.source is None or getattr(c.source, "family", None) not in FAMILIES:
        return {}
    from .stack_answers import values as family_values
    return family_values(c, facts, lang)
