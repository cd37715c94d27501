"""Mask secrets before anything is stored or echoed.

People paste whole terminals: `HF_TOKEN=... vllm serve ...`, a `curl -H "Authorization: Bearer ..."`,
a database URL with its password, sometimes a key file. Every text the store writes passes through
`redact`, and JSON-like values through `redact_obj`.

Rules are ordered: specific token shapes first (so the mask says what was found), generic
`key=value` assignments last. Each masked span becomes `[REDACTED:<kind>]`; already-masked text is
left alone, so redacting twice gives the same text. Line breaks inside a masked span are kept, so
line numbers of the text around it do not move.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "[REDACTED:{}]"
# Not already masked, and not a value that says "no secret here" (which helps a diagnosis).
_ALREADY = r"(?!['\"]?\[REDACTED)"
_NOT_EMPTY = r"(?!(?:None|null|True|False|true|false|''|\"\")(?![\w-]))"

# Key names whose values are secrets: they END in one of these words, so `hf_token` and
# `OPENAI_API_KEY` are caught but `max_num_batched_tokens`, `tokenizer` and `pad_token_id` are not.
_SECRET_KEY = (
    r"[A-Za-z0-9_.-]*?"
    r"(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|private[_-]?key|client[_-]?secret"
    r"|secret|token|auth|password|passwd|passphrase|credentials?)"
)

_RULES: list[tuple[str, re.Pattern[str], str | None]] = [
    # PEM private keys, whole block; a paste cut before END is masked to its end.
    ("private-key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S), None),
    # Passwords in URLs: keep scheme, user and host (they help a diagnosis), mask the password.
    ("url-password", re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@'\"]+:)" + _ALREADY + r"[^\s@/'\"]+(@)"),
     r"\1[REDACTED:url-password]\2"),
    ("bearer", re.compile(r"\b(Bearer\s+)" + _ALREADY + r"[A-Za-z0-9._~+/=-]{8,}", re.I), r"\1[REDACTED:bearer]"),
    ("basic-auth", re.compile(r"\b(Authorization:\s*Basic\s+)" + _ALREADY + r"[A-Za-z0-9+/=]{8,}", re.I),
     r"\1[REDACTED:basic-auth]"),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), None),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"), None),
    ("hf-token", re.compile(r"\bhf_[A-Za-z0-9]{20,}\b"), None),
    ("hf-token", re.compile(r"\bapi_org_[A-Za-z0-9]{20,}\b"), None),
    ("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), None),
    ("slack-token", re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), None),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), None),
    ("github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"), None),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"), None),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"), None),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), None),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), None),
    # CLI flags: `--api-key VALUE`, `--hf-token=VALUE`.
    ("secret", re.compile(r"(--" + _SECRET_KEY + r"(?:\s+|=))" + _ALREADY + r"(['\"]?)[^\s'\"]+\2", re.I),
     r"\1\2[REDACTED:secret]\2"),
    # Assignments in env lines, dicts, JSON, YAML, Namespace(...) reprs: `HF_TOKEN=x`, `'api_key': 'x'`,
    # `"password": "x"`, `aws_secret_access_key = x`. A quoted value may hold spaces; a bare one ends at
    # whitespace or punctuation that closes a dict/call.
    ("secret", re.compile(
        r"""(\b""" + _SECRET_KEY + r"""\b['"]?\s*[:=]\s*)""" + _ALREADY + _NOT_EMPTY +
        r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'",;)}\]]+)""", re.I),
     lambda m: m.group(1) + _quoted_mask(m.group(0)[len(m.group(1)):])),
]


def _quoted_mask(value: str) -> str:
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{quote}{MASK.format('secret')}{quote}"


def _keep_lines(kind: str):
    def sub(m: re.Match[str]) -> str:
        return MASK.format(kind) + "\n" * m.group(0).count("\n")
    return sub


def redact(text: str | None) -> str | None:
    """`text` with every secret the rules know masked; None stays None."""
    if not text:
        return text
    for kind, rx, template in _RULES:
        text = rx.sub(_keep_lines(kind) if template is None else template, text)
    return text


_NOT_SECRET_VALUES = (None, True, False)
_SECRET_NAME = re.compile(r"^" + _SECRET_KEY + r"$", re.I)


def redact_obj(value: Any) -> Any:
    """A JSON-like value with its strings redacted and the values of secret-named keys masked."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and _SECRET_NAME.match(k) and v not in _NOT_SECRET_VALUES \
                    and not isinstance(v, (int, float)):
                out[k] = MASK.format("secret")
            else:
                out[k] = redact_obj(v)
        return out
    if isinstance(value, (list, tuple)):
        return [redact_obj(v) for v in value]
    return value
