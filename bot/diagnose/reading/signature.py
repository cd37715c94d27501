"""Failure signatures: an error line with its variable parts masked.

The same failure is printed with a different path, GPU, size, pid or rank every time; masking
those parts turns every printing into one key, so failures can be counted and clustered. This is
Sentry's parameterization idea (src/sentry/grouping/parameterization.py): an ordered list of
named regexes, most specific first, because a general one run early would eat the pieces a
specific one needs (a URL's digits would become <num> and the URL would no longer be found).

Digits glued to letters are kept on purpose: `bfloat16` vs `float16`, `sm_90`, `fp8`, `Qwen3`
name *different* things. Digits that stand alone (`GPU 0`, `pid=4242`, `rank 3`, `12.3 GiB`) are
the variable parts.
"""

from __future__ import annotations

import re
from .proc_tags import PROC_QUALIFIER

MAX_CHARS = 300

# Placeholders look like <name>; suggest.py splits signatures on this to find the stable parts.
PLACEHOLDER = re.compile(r"<(?:num|size|pct|path|url|email|uuid|hex|ip|date|time|ver|model|gpu|str|redacted)>")

# Log headers and process tags, in case a caller hands us a raw line instead of a clean message.
_PREFIXES = [
    re.compile(r"^\s*[\w.-]{1,40}\s+\|\s?"),                                   # docker compose "svc-1 | "
    re.compile(r"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+"),
    re.compile(r"^\s*\([A-Za-z_]\w*(?: " + PROC_QUALIFIER + r")? pid=\d+(?:, ip=[\d.:a-f]+)?\)\s*"),  # (EngineCore_DP0 pid=12)
    re.compile(r"^\s*\[rank\d+\]:\s?"),                                       # torch elastic
    re.compile(r"^\s*(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]\s]+:\d+\]\s?"),
    re.compile(r"^\s*(?:INFO|ERROR|WARNING|CRITICAL):\s+"),                   # uvicorn
]

# (name, regex, replacement), applied in this order.
_MASKS: list[tuple[str, re.Pattern[str], str]] = [
    # Already-redacted secrets: one shape, whatever kind of secret it was.
    ("redacted", re.compile(r"\[REDACTED:[\w-]+\]"), "<redacted>"),
    # Exception types: torch 2.1 prints torch.cuda.OutOfMemoryError, later torch.OutOfMemoryError;
    # pydantic_core._pydantic_core.ValidationError is pydantic's ValidationError. Keep the class.
    ("exc_module", re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))\b"), r"\1"),
    # Before paths and numbers: these contain slashes, dots and digits of their own.
    ("url", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"`<>()\[\]{},]+"), "<url>"),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "<email>"),
    ("uuid", re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    # pydantic echoes the whole input: `input_value=ArgsKwargs((), {...}), input_type=ArgsKwargs`.
    ("pydantic_input", re.compile(r"input_value=.*?(?=, input_type=|\]|$)"), "input_value=<str>"),
    # Absolute, home, relative and Windows paths; a bare word/word is left to the model rule.
    ("path", re.compile(r"(?:(?<![\w.:/-])(?:~|\.{1,2})?/(?:[\w.@+%-]+/)*[\w.@+%-]*[\w@+%-]/?|\b[A-Za-z]:\\(?:[^\s\\'\"]+\\)*[^\s\\'\"]*)"), "<path>"),
    # Hugging Face repo ids (org/name): the name side carries a version, size or dash, which keeps
    # constants such as 'namespace/repo_name' or words like and/or and tokens/s intact.
    ("model", re.compile(r"(?<![\w./-])(?=[\w.-]*[A-Za-z][\w.-]*/)[A-Za-z0-9][\w.-]*/"
                         r"(?=[\w.-]*[A-Za-z])(?=[\w.-]*[\d.-])[\w.-]*[A-Za-z0-9](?![\w/])"), "<model>"),
    ("ip", re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    ("hex", re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    # Bare hashes and ids (commit shas, cache keys): long, and mixing letters with digits.
    ("hash", re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"), "<hex>"),
    ("date", re.compile(r"\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b"), "<date>"),
    ("time", re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), "<time>"),
    # GPU names vary with the machine, not with the failure ("Your Tesla T4 GPU has ...").
    ("gpu", re.compile(
        r"\b(?:NVIDIA\s+)?(?:(?:GeForce|Tesla|Quadro|TITAN|Radeon|Instinct)\s+)(?:(?:RTX|GTX|Pro|PRO)\s+)?[\w-]+"
        r"(?:\s+(?:Ti|SUPER|PCIe|SXM\d?|NVL|HBM\d?e?|\d+\s?GB))*"
        r"|\bNVIDIA\s+(?:(?:RTX|GTX)\s+)?[A-Z]*\d+[\w-]*(?:\s+(?:Ti|SUPER|PCIe|SXM\d?|NVL|HBM\d?e?|\d+\s?GB))*"),
     "<gpu>"),
    # Sizes before plain numbers: "20.00 MiB" and "20 MiB" are one shape, as are "13.31 MiB" and "2 GiB".
    ("size", re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|bytes?|[KMGT]iB)\b"), "<size>"),
    ("pct", re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?%"), "<pct>"),
    # Versions: three or more parts, with local/post tags (2.13.0+cu130, 0.6.3.post1).
    ("version", re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[.+-]?[A-Za-z]+\d*)*(?!\w|\.\d)"), "<ver>"),
    # Ranks and parallel indexes glued to their name: Worker_TP3, EngineCore_DP1, rank0, cuda:1.
    ("rank", re.compile(r"(?<![A-Za-z])(TP|PP|DP|EP|rank|Rank|RANK|cuda:|gpu:)(\d+)\b"), r"\1<num>"),
    # Numbers with a unit glued on: 600s, 30ms, 4x.
    ("unit", re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?=(?:ms|us|ns|s|m|h|x)\b)"), "<num>"),
    # A sentence may end right after a number ("capability 7.5."); a dot then a digit may not.
    ("float", re.compile(r"(?<![\w.])[-+]?\d+\.\d+(?:[eE][-+]?\d+)?(?!\w|\.\d)"), "<num>"),
    # Also after a dot: layer indexes in parameter names (model.layers.17.mlp) vary per paste.
    ("int", re.compile(r"(?<![\w])[-+]?\d+(?![\w])"), "<num>"),
    # A quoted value a user typed, echoed back: "invalid choice: 'torch.bfloat16'", "got 'x'".
    ("user_value", re.compile(r"""((?:invalid choice|got|received|Invalid value|unknown value)[:]?\s+)(['"`])[^'"`\n]{1,200}\2""",
                              re.I), r"\1\2<str>\2"),
]

_SPACES = re.compile(r"\s+")
# A period, then space, then what starts a sentence; "e.g. compilation" and "v0.6. " do not end one.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)\.\s+(?=[A-Z\[(<`'\"])")
MIN_SENTENCE_CHARS = 40


def signature(line: str) -> str:
    """The failure's key: `line` with paths, numbers, sizes, ids and names masked."""
    text = _SPACES.sub(" ", (line or "").strip())
    text = _strip_prefixes(text)
    for _name, rx, replacement in _MASKS:
        text = rx.sub(replacement, text)
    text = _first_sentences(text.strip())
    # Some releases end a message with a period and some do not.
    return _truncate(text.rstrip(" .;,"), MAX_CHARS)


def _strip_prefixes(text: str) -> str:
    for _ in range(6):   # prefixes stack: "vllm-1 | (EngineCore pid=1) ERROR ... [core.py:1] ..."
        for rx in _PREFIXES:
            m = rx.match(text)
            if m and m.end():
                text = text[m.end():]
                break
        else:
            return text
    return text


def _first_sentences(text: str) -> str:
    """The message up to the end of its first sentence, or its second when the first is too short
    to name a failure ("OutOfMemoryError: CUDA out of memory.").

    vLLM keeps the first sentence of a message and rewrites what follows between releases ("Try
    increasing `gpu_memory_utilization` when initializing the engine." grew a docs link in 0.15
    and a note on CPU memory in 0.22), and a paste may glue the next log line onto the message.
    """
    end = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.start() + 1
        if end >= MIN_SENTENCE_CHARS:
            return text[:end]
    return text


def _truncate(text: str, limit: int) -> str:
    """Cut at a word boundary: vLLM changes the tails of its messages between releases, and a
    half placeholder would not match anything."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip()


def stable_parts(sig: str) -> list[str]:
    """The literal pieces of a signature, between its placeholders."""
    return [p for p in PLACEHOLDER.split(sig)]
