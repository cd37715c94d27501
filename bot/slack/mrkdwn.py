"""Rule texts are written in Markdown; Slack reads its own "mrkdwn". Convert, and cut long texts
into pieces that fit a section block without breaking a code block in two."""

from __future__ import annotations

import re

_FENCE = "```"
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
# "**" against a word, never a run of three stars: abseil's crash banner "*** SIGSEGV received at time=... ***" is no bold
_BOLD = re.compile(r"(?<!\*)\*\*(?=[^\s*])([^*\n]+?)(?<=\S)\*\*(?!\*)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.M)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_BULLET = re.compile(r"^(\s*)[-*]\s+", re.M)
_INLINE_CODE = re.compile(r"(`[^`\n]+`)")
# A line that starts something of its own (a list item, heading, quote, indented text) rather
# than continuing the sentence above it.
_OWN_LINE = re.compile(r"^(?:\s|[-*•>#|]|\d+[.)]\s)")


def escape(text: str) -> str:
    """Slack reads &, < and > as markup everywhere, code blocks included."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def from_markdown(md: str) -> str:
    out = []
    for i, part in enumerate(_tables_as_code(md).split(_FENCE)):
        if i % 2:  # inside a fence: keep as is, drop the language tag Slack would show
            body = "\n" + part.split("\n", 1)[1] if re.match(r"[\w+-]+\n", part) else part
            out.append(escape(body))
        else:
            out.append(_prose(part))
    return _FENCE.join(out)


def _tables_as_code(md: str) -> str:
    """Slack draws no tables: show a Markdown table as aligned columns in a code block."""
    lines, out, table = md.split("\n"), [], []
    in_fence = False

    def flush() -> None:
        if not table:
            return
        rows = [[cell.strip().replace("`", "") for cell in row.strip().strip("|").split("|")] for row in table
                if not _TABLE_RULE.match(row)]
        widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(map(len, rows)))]
        out.append(_FENCE)
        out.extend("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows)
        out.append(_FENCE)
        table.clear()

    for line in lines:
        if line.lstrip().startswith(_FENCE):
            in_fence = not in_fence
        if not in_fence and line.lstrip().startswith("|") and line.rstrip().endswith("|"):
            table.append(line)
            continue
        flush()
        out.append(line)
    flush()
    return "\n".join(out)


def unwrap(text: str) -> str:
    """Join hard-wrapped lines of a paragraph: in Markdown a single newline is a space, in
    Slack it is a line break, which makes wrapped rule texts look ragged."""
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        if out and out[-1].strip() and line.strip() and not _OWN_LINE.match(line):
            prev, nxt = out[-1].rstrip(), line.strip()
            out[-1] = prev + ("" if _joins_tight(prev[-1], nxt[0]) else " ") + nxt
        else:
            out.append(line)
    return "\n".join(out)


def _cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


def _joins_tight(before: str, after: str) -> bool:
    """Chinese wraps with no space: a line break between two CJK characters, or after CJK
    punctuation, is no space at all (Latin beside CJK keeps its space)."""
    return (_cjk(before) and _cjk(after)) or ("\u3000" <= before <= "\u303f" or "\uff00" <= before <= "\uffef")


def _prose(text: str) -> str:
    # Bold first: "**Repro of `x`**" spans an inline code piece.
    # Bullets on whole lines before the text is cut at inline code: a piece that starts after a code span
    # ("**Repro of `x`** and") is no line's start.
    pieces = _INLINE_CODE.split(_BOLD.sub(r"*\1*", _BULLET.sub(r"\1• ", unwrap(text))))
    for i, piece in enumerate(pieces):
        if i % 2:
            pieces[i] = escape(piece)
            continue
        piece = escape(piece)
        piece = _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1)}>", piece)
        piece = _HEADING.sub(r"*\1*", piece)
        pieces[i] = piece
    return "".join(pieces)


def code_block(text: str) -> str:
    return f"{_FENCE}\n{escape(text.replace(_FENCE, chr(39) * 3))}\n{_FENCE}"


def shorten(text: str, limit: int, tail: str = "…") -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(tail))].rstrip() + tail


def clip(text: str, limit: int, tail: str = "…") -> tuple[str, bool]:
    """At most `limit` characters of mrkdwn, cut at a boundary with code blocks closed; and
    whether anything was cut."""
    if len(text) <= limit:
        return text, False
    return split(text, limit - len(tail) - 1)[0] + "\n" + tail, True


def split(text: str, limit: int) -> list[str]:
    """Cut mrkdwn into pieces of at most `limit` characters, preferring paragraph then line
    boundaries; a piece that ends inside a code block closes it and the next one reopens it."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        room = limit - len(_FENCE) - 1  # space to close a fence we might cut through
        cut = _cut_point(rest, room)
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip("\n")
        if head.count(_FENCE) % 2:
            head += "\n" + _FENCE
            rest = _FENCE + "\n" + rest
        pieces.append(head)
    if rest:
        pieces.append(rest)
    return pieces


def _cut_point(text: str, room: int) -> int:
    for sep in ("\n\n", "\n", " "):
        at = text.rfind(sep, 0, room)
        if at > room // 2:
            return at
    return room
