"""Which language to answer in: the user's own choice first, else the language of the words
around the log (not the log itself, which is English whoever pastes it)."""

from __future__ import annotations

import re

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff01-\uff5e]")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Lines that are log output rather than someone talking: level prefixes, vLLM's process tags,
# traceback frames, exception lines, timestamps.
_LOG_LINE = re.compile(
    r"""^\s*(?:
        (?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b
      | \(\w+(?:_\w+)*\s+pid=\d+\)
      | Traceback\b | File\ " | \^+\s*$
      | [\w.]*(?:Error|Exception|Warning|Interrupt)\b
      | \[rank\d+\] | \d{4}-\d\d-\d\d | \d\d:\d\d:\d\d
      | [A-Za-z_][\w.]*\(.*\)\s*$
    )""",
    re.X,
)


def surrounding_words(text: str) -> str:
    """The text outside code blocks, minus lines that look like log output."""
    outside = _FENCED.sub("\n", text)
    return "\n".join(line for line in outside.splitlines() if line.strip() and not _LOG_LINE.match(line))


def guess(text: str) -> str | None:
    """'zh' or 'en' from the words around the log; None when there are none to judge by."""
    words = surrounding_words(text)
    cjk = len(_CJK.findall(words))
    latin = len(_WORD.findall(words))
    if cjk == 0 and latin == 0:
        return None
    # One Chinese character carries about as much as one English word.
    return "zh" if cjk >= 2 and cjk >= latin else "en"


def choose(user_choice: str | None, text: str) -> str:
    if user_choice in ("en", "zh"):
        return user_choice
    return guess(text) or "en"
