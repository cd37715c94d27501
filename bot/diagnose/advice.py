"""Values computed from a rule's captures and the log's facts, for the rule's fix text.

Each function takes the values known so far (captures + facts) and returns new ones; a value it
cannot support from the log is left out, so the paragraph that needs it is dropped.
"""

from __future__ import annotations

from typing import Callable

_DERIVERS: dict[str, Callable[[dict, dict], dict]] = {}


def deriver(*rule_ids: str):
    def register(fn):
        for rid in rule_ids:
            _DERIVERS[rid] = fn
        return fn
    return register


def derive(rule_id: str, values: dict, facts: dict) -> dict:
    fn = _DERIVERS.get(rule_id)
    if fn is None:
        return {}
    try:
        return fn(values, facts)
    except (TypeError, ValueError, ZeroDivisionError, KeyError):
        return {}
