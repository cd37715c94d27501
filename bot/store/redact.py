"""Mask secrets before anything is stored or echoed.

People paste whole terminals: `HF_TOKEN=... vllm serve ...`, a `curl -H "Authorization: Bearer ..."`,
a database URL with its password, sometimes a key file. Every text the store writes passes through
`redact`, and JSON-like values through `redact_obj`.

Two ways of finding a secret: by the shape of the value (a token's prefix and alphabet, a URL's
userinfo, a PEM block), and by the name it is assigned to (`HF_TOKEN=…`, `'password': …`,
`MYSQL_PWD=…`, `--api-key …`). Rules are ordered: specific token shapes first (so the mask says
what was found), generic `key=value` assignments last. Each masked span becomes `[REDACTED:<kind>]`; already-masked text is
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

# Key names whose values are secrets. Most END in one of these words, so `hf_token` and
# `OPENAI_API_KEY` are caught but `max_num_batched_tokens`, `tokenizer` and `pad_token_id` are not.
_SECRET_WORD = (
    r"(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|private[_-]?key|client[_-]?secret"
    r"|secret|token|auth|password|passwd|passphrase|credentials?)"
)
# `password`/`passwd` anywhere in a name (`DB_PASSWORD_PROD`, `PASSWD_X`). The short words only as a
# name's last part, after `_`/`-`/`.`: `DB_PASS`, `--db-pass`, `MYSQL_PWD`, not `bypass`, `compass`,
# the shell's `PWD=/home/me` or `OLDPWD` (a flag `--pass` or a dict key `pass` names one alone).
_ANYWHERE_WORD = r"passw(?:or)?d[A-Za-z0-9_.-]*?"
_SHORT_WORD = r"(?:pass|pwd)"
_NAME_CHARS = r"[A-Za-z0-9_.-]"
_SECRET_KEY = (rf"(?:{_NAME_CHARS}*?(?:{_SECRET_WORD}|{_ANYWHERE_WORD})"
               rf"|(?:{_NAME_CHARS}*?[_.-])?pass|{_NAME_CHARS}*?[_.-]pwd)")


class _Rule:
    """A pattern and what replaces its matches (None: the whole match becomes the mask).

    `needles`: strings of which every match holds one. A 100 KB paste costs each pattern a scan
    of about 1.5 ms, and most pastes hold none of the tokens: a substring test skips the scan.
    For a case-insensitive pattern they are lowercase and free of i and s, the two letters
    re.IGNORECASE also matches in a form `str.lower()` keeps (ı and ſ).
    """

    def __init__(self, kind: str, rx: re.Pattern[str], template=None, needles: tuple[str, ...] = ()):
        self.kind, self.rx, self.needles = kind, rx, needles
        self.template = _keep_lines(kind) if template is None else template
        self.ignore_case = bool(rx.flags & re.IGNORECASE)


def _keep_lines(kind: str):
    def sub(m: re.Match[str]) -> str:
        return MASK.format(kind) + "\n" * m.group(0).count("\n")
    return sub


_RULES: list[_Rule] = [
    # PEM private keys, whole block; a paste cut before END is masked to its end.
    _Rule("private-key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S), needles=("-----BEGIN ",)),
    # Passwords in URLs: keep scheme, user and host (they help a diagnosis), mask the password.
    # People paste passwords unencoded, `/` and `@` included, so the password runs to the LAST `@`
    # of the URL that a host follows; a URL without userinfo whose query holds an `@` is told apart
    # by its port (`host:8000/v1?to=a@b` has a port where a password would be).
    _Rule("url-password", re.compile(
        r"\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}://[^\s:/@'\"]{0,128}:)" + _ALREADY + r"(?!\d{1,5}(?:[/?#]|$))"
        r"[^\s'\"]{1,256}(@)(?=[A-Za-z0-9\[][A-Za-z0-9.:\[\]-]{0,255}(?:[/?#\s'\",;)}\]]|$))"),
          r"\1[REDACTED:url-password]\2", ("://",)),
    _Rule("bearer", re.compile(r"\b(Bearer\s+)" + _ALREADY + r"[A-Za-z0-9._~+/=-]{8,}", re.I), r"\1[REDACTED:bearer]",
          ("bearer",)),
    _Rule("basic-auth", re.compile(r"\b(Authorization:\s*Basic\s+)" + _ALREADY + r"[A-Za-z0-9+/=]{8,}", re.I),
          r"\1[REDACTED:basic-auth]", ("author",)),
    _Rule("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), needles=("sk-ant-",)),
    _Rule("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"), needles=("sk-",)),
    _Rule("hf-token", re.compile(r"\bhf_[A-Za-z0-9]{20,}\b"), needles=("hf_",)),
    _Rule("hf-token", re.compile(r"\bapi_org_[A-Za-z0-9]{20,}\b"), needles=("api_org_",)),
    _Rule("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), needles=("xox",)),
    _Rule("slack-token", re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), needles=("xapp-",)),
    _Rule("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
          needles=("https://hooks.slack.com/services/",)),
    _Rule("github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"), needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _Rule("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"), needles=("github_pat_",)),
    _Rule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
          needles=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA")),
    _Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), needles=("AIza",)),
    _Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), needles=("eyJ",)),
    # CLI flags: `--api-key VALUE`, `--hf-token=VALUE`.
    _Rule("secret", re.compile(r"(--" + _SECRET_KEY + r"(?:\s+|=))" + _ALREADY + r"(['\"]?)[^\s'\"]+\2", re.I),
          r"\1\2[REDACTED:secret]\2", ("--",)),
]

# Assignments in env lines, dicts, JSON, YAML, Namespace(...) reprs: `HF_TOKEN=x`, `'api_key': 'x'`,
# `"password": "x"`, `aws_secret_access_key = x`. A quoted value may hold spaces; a bare one ends at
# whitespace or punctuation that closes a dict/call. A match is found from the secret word the key
# ends in, not from the key's start: trying every word of a paste as the start of a key cost
# 20 ms per 100 KB. The lookahead lets the scan skip every position that cannot start a word.
_ASSIGNMENT = re.compile(
    r"""(?=[acpst])((""" + _SECRET_WORD + "|" + _ANYWHERE_WORD + "|" + _SHORT_WORD +
    r""")\b['"]?\s*[:=]\s*)""" + _ALREADY + _NOT_EMPTY + r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'",;)}\]]+)""", re.I)
# What [A-Za-z0-9_] matches under re.IGNORECASE: also İ, ı, ſ and the Kelvin sign.
_KEY_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\u0130\u0131\u017f\u212a")


def _key_can_start(text: str, word_at: int, not_before: int) -> bool:
    """Whether a key `\\b[A-Za-z0-9_.-]*?` can start between `not_before` and the secret word.

    Going back over the key's letters, digits and `_`, the first other character (or the start of
    the text, or where the last mask ended) must not be a word character: `.`, `-`, a space or a
    quote give the word boundary; a letter such as `é` glued to the key does not.
    """
    at = word_at
    while at > not_before and text[at - 1] in _KEY_WORD:
        at -= 1
    if at == 0:
        return True
    before = text[at - 1]
    return not (before.isalnum() or before == "_")


def _short_word_fits(text: str, m: re.Match[str], kept: int) -> bool:
    """In running text `pass` and `pwd` name a secret only as the last part of a longer name
    (`DB_PASS=`, `MYSQL_PWD=`): alone they are words ("forward pass: 1.2 s") or the shell's
    working directory (`PWD=/home/me`)."""
    if m.group(2).lower() not in ("pass", "pwd"):
        return True
    return m.start() > kept and text[m.start() - 1] in "_-."


def _mask_assignments(text: str) -> str:
    parts: list[str] = []
    kept = search_at = 0
    while (m := _ASSIGNMENT.search(text, search_at)) is not None:
        if not _key_can_start(text, m.start(), kept) or not _short_word_fits(text, m, kept):
            search_at = m.start() + 1
            continue
        key = m.group(1)
        parts += [text[kept:m.start()], key, _quoted_mask(m.group(0)[len(key):])]
        kept = search_at = m.end()
    return "".join(parts) + text[kept:] if parts else text


def _quoted_mask(value: str) -> str:
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{quote}{MASK.format('secret')}{quote}"


def redact(text: str | None) -> str | None:
    """`text` with every secret the rules know masked; None stays None."""
    if not text:
        return text
    lower = None
    for rule in _RULES:
        if rule.ignore_case:
            lower = text.lower() if lower is None else lower
        haystack = lower if rule.ignore_case else text
        if rule.needles and not any(n in haystack for n in rule.needles):
            continue
        text, count = rule.rx.subn(rule.template, text)
        if count:
            lower = None            # the masks changed the text
    return _mask_assignments(text)


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
