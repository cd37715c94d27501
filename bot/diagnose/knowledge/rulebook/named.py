"""The vLLM settings a text names: command-line flags, `LLM()` keywords and `VLLM_*` variables.

Used to keep advice true for a release: `rules lint` checks every name in a rule's text against
the index of vLLM's releases, and a diagnosis checks the names it suggests against the log's release.
"""

from __future__ import annotations


from bot.base import regex_cache

_FLAG = regex_cache.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])")
_ENV = regex_cache.compile(r"\b(VLLM_[A-Z0-9]+(?:_[A-Z0-9]+)*)\b")
_CALL = regex_cache.compile(r"\b(?:LLM|EngineArgs|AsyncEngineArgs)\(")
_KEYWORD = regex_cache.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s*=(?!=)")
_INLINE_KEYWORD = regex_cache.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)=[^`\s][^`]*`")
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
        if not _other_program(text, m.start()):
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


# Commands whose flags are their own, not vLLM's: `pip install --force-reinstall`, `docker run
# --gpus`, `python bench.py --config`.
_OTHER_COMMAND = regex_cache.compile(r"\b(?:pip3?|uv|conda|docker|podman|kubectl|nvidia-smi|huggingface-cli|hf|torchrun|"
                            r"ray|git|curl|wget|srun|sbatch|ulimit|python3?(?:\s+-\w+)*\s+(?!-m\s+vllm)[\w./-]+\.py)\b")
_VLLM_COMMAND = regex_cache.compile(r"\bvllm\s+\w|-m\s+vllm\b|api_server|vllm-openai")


def _other_program(text: str, at: int) -> bool:
    """Whether the flag at `at` follows another program's command on its line or in its code span."""
    line_start = text.rfind("\n", 0, at) + 1
    before = text[line_start:at]
    tick = before.rfind("`")
    if tick >= 0 and before.count("`") % 2 == 1:
        before = before[tick + 1:]              # inside inline code: that span is the command
    other = None
    for other in _OTHER_COMMAND.finditer(before):
        pass
    if other is None:
        return False
    return not _VLLM_COMMAND.search(before[other.end():])


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


# A name the text gives as history, not as advice to use it. Within its clause (text between `.`,
# `;`, `:`, parentheses or a line end): a name before a rename or removal ("`--task` became ...",
# "X → Y", "X and Y were removed", "X is gone") or after a word that takes it away ("removed X",
# "leave X out", "instead of X", "the old X") is *old*; a name after a rename ("→ Y", "became Y",
# "moved into Y", "renamed to Y", "replaced by Y") is its *successor*.
_CLAUSE_END = regex_cache.compile(r"[.;:()\n](?:\s|$)|[()\n]")
_AFTER_OLD = regex_cache.compile(r"→|->|\bbecame\b|\bbecomes\b|\bis now\b|\bwas renamed\b|\bwere renamed\b|\brenamed to\b|"
                        r"\bmoved into\b|\bmoved to\b|\bwas replaced\b|\bwere replaced\b|\breplaced by\b|"
                        r"\bwas removed\b|\bwere removed\b|\bis deprecated\b|\bare deprecated\b|\bis gone\b|"
                        r"\bare gone\b|\bis ignored\b|\bno longer\b|变为|改名|并入|被移除|已删除|已移除|已被移除")
_BEFORE_OLD = regex_cache.compile(r"(?:\bremoved|\bdeprecated|\bdropped|\brenamed|\b[Ll]eave|\b[Dd]rop|\b[Rr]emove|instead of|"
                         r"\bold|\bolder|\bformer|\blegacy|删除|移除|弃用|去掉|代替|旧的|旧版)\W{0,12}$")
_BEFORE_SUCCESSOR = regex_cache.compile(r"(?:→|->|\bbecame|\bbecomes|\bis now|\brenamed to|\bmoved into|\bmoved to|"
                               r"\breplaced by|\breplaced with|变为|改名为|并入)"
                               r"(?:[\s`'\"]*(?:--[\w-]+|VLLM_\w+)[\s`'\"]*(?:[,/]|\band\b|\bor\b)?)*[\s`'\"]*$")


def _clause(text: str, at: int, end: int) -> tuple[str, str]:
    """The text of the name's clause before it and after it."""
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, at)]
    start = starts[-1] if starts else 0
    stop = _CLAUSE_END.search(text, end)
    return text[start:at], text[end: stop.start() if stop else len(text)]


_NEXT_NAME = regex_cache.compile(r"--[a-z][\w-]*|\bVLLM_[A-Z0-9_]+")
_CONNECTORS = regex_cache.compile(r"[`'\"\s,/]*(?:(?:and|or|和|或|、)[`'\"\s,/]*)?")


def _own(after: str) -> str:
    """What follows a name up to the next name, except across a plain list ("X and Y were removed")."""
    pos = 0
    while True:
        m = _NEXT_NAME.search(after, pos)
        if m is None:
            return after
        if not _CONNECTORS.fullmatch(after[pos:m.start()]):
            return after[:m.start()]
        pos = m.end()


def role(text: str, name: Name) -> str | None:
    """"old" (named as what was renamed or taken away), "successor" (named as what replaced it),
    or None (advice: use it)."""
    end = name.start + len(name.shown)
    before, after = _clause(text, name.start, end)
    if before.count("`") % 2 and "`" in after:
        # inside a code span (`--speculative-model X --num-speculative-tokens 5` → ...): the span is one thing
        close = after.index("`") + 1
        before = before[:before.rfind("`")]
        after = after[:close] + _own(after[close:])
    else:
        after = _own(after)
    if _BEFORE_OLD.search(before) or _AFTER_OLD.search(after):
        return "old"
    if _BEFORE_SUCCESSOR.search(before):
        return "successor"
    return None


def history(text: str, name: Name) -> bool:
    """The text names it as what was renamed or taken away, not as advice to use it."""
    return role(text, name) == "old"
