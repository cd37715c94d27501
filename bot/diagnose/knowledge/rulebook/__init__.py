"""The hand-written rule book as a knowledge source: rules/*.yaml and the team rule packs on top.

    book.py    load, validate and compile the rules (cached as JSON)
    packs.py   team rule packs loaded on top of the shipped book
    guards.py  `[vllm SPEC]` version guards on a rule text's paragraphs
    match.py   the candidates: patterns over the log's messages, rapidfuzz for reworded ones
    named.py   the flags, keywords and variables a text names
"""

from .book import Rule, RuleBook, RuleError
from .match import answers, candidates, holds_for, strong_messages, wrappers
from .packs import load_rulebook, local_packs

__all__ = ["Rule", "RuleBook", "RuleError", "load_rulebook", "local_packs",
           "answers", "candidates", "holds_for", "strong_messages", "wrappers"]
