"""The vLLM settings a text names: command-line flags, `LLM()` keywords and `VLLM_*` variables.

Used to keep advice true for a release: `rules lint` checks every name in a rule's text against
the index of vLLM's releases, and a diagnosis checks the names it suggests against the log's release.
"""

from __future__ import annotations

import re

_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])")
_ENV = re.compile(r"\b(VLLM_[A-Z0-9]+(?:_[A-Z0-9]+)*)\b")
_CALL = re.compile(r"\b(?:LLM|EngineArgs|AsyncEngineArgs)\(")
_KEYWORD = re.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s*=(?!=)")
_INLINE_KEYWORD = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)=[^`\s][^`]*`")
# Our own and other programs' variables that share the prefix.
NOT_VLLM_ENV = ("VLLM_DOCTOR_",)


class Name:
    __slots__ = ("kind", "name", "start")

    def __init__(self, kind: str, name: str, start: int):
        self.kind, self.name, self.start = kind, name, start       # kind: flag | keyword | env

    @property
    def shown(self) -> str:
        return f"--{self.name}" if self.kind == "flag" else self.name

    @property
    def key(self) -> str:
        """The engine argument's name (`max_model_len` for `--max-model-len`), or the variable."""
        return self.name.replace("-", "_") if self.kind == "flag" else self.name

    def __repr__(self) -> str:
        return f"Name({self.kind}, {self.shown})"


def names(text: str) -> list[Name]:
    """Every flag, `LLM(...)` keyword and VLLM_* variable in `text`, in order, each once per kind."""
    found: dict[tuple[str, str], Name] = {}
    for m in _FLAG.finditer(text):
        found.setdefault(("flag", m.group(1)), Name("flag", m.group(1), m.start()))
    for m in _ENV.finditer(text):
        if not m.group(1).startswith(NOT_VLLM_ENV):
            found.setdefault(("env", m.group(1)), Name("env", m.group(1), m.start()))
    for call in _CALL.finditer(text):
        for kw, at in _call_keywords(text, call.end()):
            found.setdefault(("keyword", kw), Name("keyword", kw, at))
    for m in _INLINE_KEYWORD.finditer(text):
        found.setdefault(("keyword", m.group(1)), Name("keyword", m.group(1), m.start(1)))
    return sorted(found.values(), key=lambda n: n.start)


def _call_keywords(text: str, start: int):
    """The keywords of a call whose arguments start at `start` (to its closing parenthesis)."""
    depth, i, arg_start = 0, start, start
    while i < len(text) and i - start < 2000:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch in "'\"":
            end = text.find(ch, i + 1)
            i = end if end > 0 else i
        elif ch == "," and depth == 0:
            yield from _keyword_at(text, arg_start, i)
            arg_start = i + 1
        i += 1
    yield from _keyword_at(text, arg_start, i)


def _keyword_at(text: str, start: int, end: int):
    m = _KEYWORD.match(text[start:end].lstrip())
    if m:
        yield m.group(1), start + (len(text[start:end]) - len(text[start:end].lstrip()))


# A name the text gives as history or as what to take away, not as advice to use it: right before
# a rename (`--task` → `--runner`, "X became Y", "X was renamed to Y", "X moved into Y", "X was
# replaced by Y") or right after "removed", "deprecated", "leave", "drop", "remove", "instead of".
_HISTORY_AFTER = re.compile(r"^[`'\"]?[^\n`]{0,40}?`?\s*(?:→|->|became\b|becomes\b|is now\b|was renamed\b|were renamed\b|"
                            r"renamed to\b|moved into\b|moved to\b|was replaced\b|were replaced\b|replaced by\b|"
                            r"was removed\b|were removed\b|is deprecated\b|are deprecated\b|变为|改名|并入|被移除|已删除|已移除)")
_HISTORY_BEFORE = re.compile(r"(?:removed|deprecated|dropped|renamed|[Ll]eave|[Dd]rop|[Rr]emove|instead of|"
                             r"删除|移除|弃用|去掉|代替)\W{0,12}$")


def history(text: str, name: Name) -> bool:
    """The text names it as what was renamed or removed, not as advice."""
    end = name.start + len(name.shown)
    return bool(_HISTORY_AFTER.match(text[end:end + 60]) or _HISTORY_BEFORE.search(text[max(0, name.start - 40):name.start]))
