"""Turn a diagnosis Report into a plain, redacted, JSON-ready record.

The record is what gets written, or spooled to a file when the database is down, so it is built
once, redacted once, and holds only JSON types (times as ISO strings).
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from bot.diagnose import not_vllm
from bot.diagnose.reading.signature import signature

from .models import FEEDBACK_VERDICTS, SOURCES, utcnow
from .redact import redact, redact_obj

EXCERPT_CHARS = 8 * 1024
# Most of the excerpt goes before the root error: that is where its traceback is; what follows
# it is mostly the wrappers that re-raise it.
_BEFORE_SHARE = 0.75


def new_uid() -> str:
    return str(uuid.uuid4())


def diagnosis_record(report, *, source: str, text: str | bytes, channel=None, user=None, thread_ts=None,
                     message_ts=None, lang: str = "en") -> dict[str, Any]:
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    if isinstance(text, bytes):      # diagnose() takes bytes too; a paste is never refused for its encoding
        text = text.decode("utf-8", errors="replace")
    root = report.root
    root_text = redact(root.text) if root is not None else None
    facts = _jsonable(redact_obj(dict(report.facts or {})))
    candidates = [_candidate(d, rank, "active") for rank, d in enumerate(report.diagnoses)]
    candidates += [_candidate(d, rank, "shadow") for rank, d in enumerate(report.shadow)]
    top = next((c for c in candidates if c["status"] == "active"), None)
    return {
        "uid": new_uid(),
        "created_at": utcnow().isoformat(),
        "source": source,
        "channel": _short(channel, 64),
        "user_id": _short(user, 64),
        "thread_ts": _short(thread_ts, 32),
        "message_ts": _short(message_ts, 32),
        "lang": _short(lang, 8) or "en",
        "verdict": report.verdict,
        "answered": report.verdict == "diagnosed",
        "signature": signature(root_text)[:512] if root_text else None,
        "root_text": root_text,
        "root_exc_type": _short(getattr(root, "exc_type", None), 255),
        "root_line_no": getattr(root, "line_no", None),
        "top_rule_id": top["rule_id"] if top else None,
        "top_confidence": top["confidence"] if top else None,
        "vllm_version": _short(facts.get("vllm_version"), 64),
        "gpu_name": _short(facts.get("gpu_name"), 128),
        "other_program": _short(not_vllm(facts), 255),
        "rulebook_version": _short(report.rulebook_version, 64),
        "facts": facts,
        "excerpt": excerpt(redact(text or ""), root_text, getattr(root, "line_no", None)),
        "candidates": candidates,
    }


def feedback_record(diagnosis_id: int, verdict: str, *, user: str, reason: str | None) -> dict[str, Any]:
    if verdict not in FEEDBACK_VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(FEEDBACK_VERDICTS)}, not {verdict!r}")
    return {
        "uid": new_uid(),
        "created_at": utcnow().isoformat(),
        "diagnosis_id": int(diagnosis_id),
        "verdict": verdict,
        "user_id": _short(user, 64),
        "reason": redact(reason) if reason else None,
    }


def excerpt(text: str, root_text: str | None, root_line_no: int | None, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of whole lines around the root error (the tail if none).

    `text` must be redacted already: cutting first could split a private key block and leave
    its body without the BEGIN line that the redaction looks for.
    """
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    at = _find_root_line(lines, root_text, root_line_no)
    if at is None:
        return _tail(lines, limit)
    first = last = at
    used = len(lines[at][:limit]) + 1
    before_budget = int(limit * _BEFORE_SHARE)
    while first > 0 and used + len(lines[first - 1]) + 1 <= before_budget:
        first -= 1
        used += len(lines[first]) + 1
    while last + 1 < len(lines) and used + len(lines[last + 1]) + 1 <= limit:
        last += 1
        used += len(lines[last]) + 1
    while first > 0 and used + len(lines[first - 1]) + 1 <= limit:
        first -= 1
        used += len(lines[first]) + 1
    return "\n".join(lines[first:last + 1])[:limit]


def _find_root_line(lines: list[str], root_text: str | None, line_no: int | None) -> int | None:
    """Index of the line that prints the root error.

    The report numbers lines of the *cleaned* text (Slack escapes and code fences removed), so
    the number is a hint: look for the error's own words and take the hit nearest to it.
    """
    hint = None if line_no is None else min(max(line_no - 1, 0), len(lines) - 1)
    if root_text:
        needle = root_text.strip().split("\n")[0][:60]
        hits = [i for i, line in enumerate(lines) if needle and needle in line]
        if hits:
            return min(hits, key=lambda i: abs(i - (hint or 0)))
    return hint


def _tail(lines: list[str], limit: int) -> str:
    out: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 1 > limit:
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(reversed(out)) if out else lines[-1][-limit:]


def _candidate(d, rank: int, status: str) -> dict[str, Any]:
    confidence = float(d.confidence)
    return {
        "rank": rank,
        "rule_id": str(d.rule_id)[:128],
        "confidence": confidence if math.isfinite(confidence) else 0.0,
        "level": _short(d.level, 16),
        "status": status,
        "line_no": getattr(d, "line_no", None),
        "evidence": _short(redact(getattr(d, "evidence", None)), 2000),
    }


def _short(value, n: int) -> str | None:
    return None if value is None else str(value)[:n]


def _jsonable(value):
    """Facts may hold tuples, numbers or odd objects parsed from a log; keep JSON types only."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return str(value)
