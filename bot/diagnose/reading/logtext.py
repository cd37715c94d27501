"""Turn a pasted log into clean text: the bytes people paste are rarely what vLLM printed.

Slack escapes and links, Markdown code fences, ANSI colours (with or without the ESC byte, which
copy-paste often loses), carriage returns from tqdm bars and vLLM's ``\\r\\n`` multi-line records.
Everything here works on the whole text at once: per-line Python loops over a 10 MB paste are
what would make the diagnosis slow.
"""

from __future__ import annotations

import bisect
import re
import textwrap

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.base.record import Factory, Record

from .proc_tags import PROC_QUALIFIER

MAX_INPUT_CHARS = 10 * 1024 * 1024
# When a paste is larger than MAX_INPUT_CHARS we keep a window that ends a little after the last
# error marker, so the part that holds the failure survives.
_TAIL_AFTER_LAST_ERROR = 256 * 1024
_ERROR_MARKERS = ("Traceback (most recent call last)", "Error", "ERROR", "Exception")

# a paste whose first line, after leading blank lines, starts indented (matched in place: no copy of the text)
_INDENTED = LazyRe(r"\n*+[ \t]")     # (possessive: 10 MB of line breaks fail at once, not after a backtrack)
_SLACK_LINK = LazyRe(r"<((?:https?|mailto|file|ftp)://[^|>\s]+|[#@!][^|>\s]+)(?:\|([^>\n]*))?>")
# Real escape sequences (colours, cursor moves from tqdm) and colour codes whose ESC byte was lost
# in a copy-paste, e.g. "[1;36m(EngineCore_DP0 pid=87)" (but not "[5ms]" or "[2m]").
# A pager or a web page may also show the ESC byte as the text "ESC" or "^[".
ANSI = _ANSI = regex_cache.compile(r"(?:\x1b|ESC|\^\[|#033)\[[0-9;?]*[A-Za-z]|\x1b[()][AB012]|\[(?:\d{1,3};)*\d{1,3}m(?![\w]*\])")


# Notes the reading leaves for the reader, in the answer's language.
NOTES = {
    "note_binary": {
        "en": "The input looks binary, not like a text log; only its readable text was used.",
        "zh": "输入看起来是二进制数据，不是文本日志；只使用了其中可读的文本。",
    },
    "note_cut": {
        "en": "The input is {mb} MB; only the last {limit} MB that hold errors were read. Paste the first traceback if the answer looks wrong.",
        "zh": "输入有 {mb} MB；只读取了包含错误的最后 {limit} MB。如果回答看起来不对，请贴出第一条 traceback。",
    },
}


def say(key: str, lang: str, **values) -> str:
    return NOTES[key][lang if lang in NOTES[key] else "en"].format(**values)


class CleanText(Record):
    text: str
    notes: list[str] = Factory(list)
    # the lines of `text` that a bare carriage return started (a progress bar's redraws): the paste, as an editor
    # or `grep -n` numbers it, has them on the line before (paste_line)
    cr_lines: list[int] = Factory(list)

    def paste_line(self, line_no: int) -> int:
        """The number the paste itself gives line `line_no` of the text: a bare carriage return split no line of it."""
        return line_no - bisect.bisect_right(self.cr_lines, line_no) if self.cr_lines else line_no


def to_text(data: str | bytes, lang: str = "en") -> tuple[str, list[str]]:
    """Decode whatever we were given; binary and invalid UTF-8 never raise."""
    notes: list[str] = []
    if isinstance(data, bytes):
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            text = data.decode("utf-16", errors="replace")
        elif _looks_binary(data[:65536].decode("utf-8", errors="replace")):
            # Keep the readable ASCII: an error message in a binary blob is ASCII, and a pure-ASCII
            # string is several times cheaper for every later pass than one full of U+FFFD.
            text = data.decode("ascii", errors="ignore")
            notes.append(say("note_binary", lang))
        else:
            text = data.decode("utf-8", errors="replace")
    else:
        text = data
        if _looks_binary(text[:65536]):
            notes.append(say("note_binary", lang))
    return text, notes


def _looks_binary(sample: str) -> bool:
    return bool(sample) and (sample.count("\x00") + sample.count("\ufffd")) > len(sample) * 0.1


def bound(text: str, limit: int = MAX_INPUT_CHARS, lang: str = "en") -> tuple[str, list[str]]:
    if len(text) <= limit:
        return text, []
    last = max(text.rfind(m) for m in _ERROR_MARKERS)
    end = len(text) if last < 0 else min(len(text), last + _TAIL_AFTER_LAST_ERROR)
    start = max(0, end - limit)
    cut = text.find("\n", start)
    start = start if cut < 0 else cut + 1
    note = say("note_cut", lang, mb=f"{len(text) / (1024 * 1024):.1f}", limit=limit // (1024 * 1024))
    return text[start:end], [note]


def unescape_slack(text: str) -> str:
    if _has_slack_link(text):
        text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    if "&" in text:
        # a copy from a web page or an issue's HTML also escapes quotes ("&#39;", "&#x27;", "&quot;") and spaces
        for entity, char in _COMMON_ENTITIES:     # the usual ones in C (a lambda per entity: 1.7 s on 10 MB of them)
            if entity in text:
                text = text.replace(entity, char)
        if "&#" in text and text.count("&#") <= MAX_NUMERIC_ENTITIES:
            import html     # here: its table of entities cost every cold start 1.4 ms to import
            text = _HTML_ENTITY.sub(lambda m: html.unescape(m.group()).replace("\xa0", " "), text)
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return text


# the entities a page writes for quotes, spaces and the like (not "&lt;", "&gt;", "&amp;": Slack's three, above);
# a name without its semicolon ("&para" in a URL's query) is left as it is
MAX_NUMERIC_ENTITIES = 20_000       # a page's copy holds a few; hundreds of thousands (a Python call each) are no log
_COMMON_ENTITIES = (("&quot;", '"'), ("&#34;", '"'), ("&#39;", "'"), ("&#x27;", "'"), ("&apos;", "'"), ("&nbsp;", " "))
_HTML_ENTITY = LazyRe(r"&(?:quot|apos|nbsp|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});")


def clean(data: str | bytes, lang: str = "en") -> CleanText:
    text, notes = to_text(data, lang)
    text, more = bound(text, lang=lang)
    notes += more
    # Each step first asks whether it has anything to do, with a one-character test where it can
    # (a memchr): a plain log pays for a few of those, not for a rewrite of the text per step. A
    # carriage return printed as "^M" is dropped line by line, where lines are read (tracebacks).
    text = unescape_slack(text)
    # A paste copied from a rendered page (or a chat that links what looks like an address) carries
    # Markdown links inside the log's own words: "segment [/dev/shm/nccl-x](https://host/dev/shm/nccl-x)"
    if "](http" in text:
        text = _MARKDOWN_LINK.sub(r"\1", text)
    if "`" in text:
        text = _FENCE.sub("\n", text) if "```" in text else text
    # Colour codes with their ESC byte; those whose ESC a copy-paste lost ("[1;36m", or "ESC[" and
    # "^[[" as a pager shows it) are removed from each line as it is read (tracebacks.py): finding
    # them here would cost a scan of the whole text, "[" being in every vLLM line.
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    # A JSON log formatter's records, their tracebacks in escaped strings (jsonlog.py); before the
    # carriage returns, which an escaped "\r\n" turns into.
    if "\\" in text and "\\n" in text:     # a backslash first: one memchr
        from .jsonlog import unfold_strings, unpack
        # (then a traceback in an escaped string that is no record: an API's error body, a repr, pasted as it is)
        text = unfold_strings(unpack(text) if '{"' in text else text)
    cr_lines: list[int] = []
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            # (beyond MAX_CR_LINES the lines are numbered as read: a Python step per redraw cost seconds on 10 MB)
            cr_lines = _cr_lines(text) if text.count("\r") <= MAX_CR_LINES else []
            text = text.replace("\r", "\n")
    if _double_spaced(text):
        text = text.replace("\n\n", "\n")
        cr_lines = []                   # (numbered as the text is read: the paste's own numbers are twice as far)
    if "\x00" in text:                  # PostgreSQL refuses NUL in text; other controls are harmless
        text = text.replace("\x00", "")
    # Docker BuildKit puts the step and the seconds since it started before each line a RUN printed ("#12 54.11 ",
    # or "54.11 " in the summary of the step that failed): pip's and uv's lines are read at their margin
    if _buildkit_shown(text):
        text = _buildkit_unprefixed(text)
    # A paste copied from a terminal that cut every long line at its width: the lines rejoined first, so that a frame,
    # a record's header and its message are each on one line again
    if len(text) > WRAP_MIN_WIDTH * MIN_WRAPPED_LINES:
        width = _wrap_width(text)
        if width:
            text = _unwrapped(text, width)
            cr_lines = []
    # A log whose line breaks were lost (copied from a rendered page, or a form that keeps one line): its records,
    # frames and exceptions each on a line again
    if RELINE_MIN_CHARS < len(text) <= RELINE_MAX_CHARS and _run_together(text):
        text = "\n".join(_relined(line) if len(line) > RELINE_MIN_CHARS else line for line in text.split("\n"))
        cr_lines = []
    # A paste indented as a whole (Markdown's indented code block, a quote copied from a page or an editor) is
    # read at its margin: indented, every line would read as the continuation of a message none starts
    if _INDENTED.match(text):
        text = textwrap.dedent(text)
    # pip prints a failed build's output near the end of its log: the last 256 KB are searched
    if text.find("[end of output]", max(0, len(text) - PIP_TAIL)) >= 0:
        text = _dedent_pip_output(text)
    return CleanText(text=text, notes=notes, cr_lines=cr_lines)


# Terminal widths a paste may have been hard-wrapped at (tracebacks.py joins a message's lines cut at one of them)
WRAP_WIDTHS = frozenset((80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250))
WRAP_MIN_WIDTH = min(WRAP_WIDTHS)
MIN_WRAPPED_LINES = 3           # lines of exactly the width, at least
WRAPPED_SHARE = 0.25            # of the lines longer than half of it
_WRAP_SAMPLE = 65536
# A line that starts a record of its own, never the rest of a line cut above it: a process tag, a vLLM or dated
# header, a traceback's opening or one of its frames
_NEW_RECORD = LazyRe(r"\((?:[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")? )?pid=\d+|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d "
                     r"|\[?\d{4}-\d\d-\d\d[T ]\d|Traceback \(most recent|During handling of|The above exception|  File \"")


RELINE_MIN_CHARS = 400         # lines this long on average: a log run together, its line breaks lost
RELINE_MAX_CHARS = 1 << 20     # (a paste copied from a page or a form: more is a file, its lines kept)
RELINE_MIN_MARKS = 3           # of a record's, a frame's or a traceback's starts inside it
_RELINE_CHUNK = 65536


def _run_together(text: str) -> bool:
    """Whether the text has fewer line breaks than one per RELINE_MIN_CHARS characters: counted a chunk at a time, as
    a log's first lines have enough of them (counting a whole megabyte's cost 0.3 ms)."""
    breaks = 0
    for at in range(0, len(text), _RELINE_CHUNK):
        breaks += text.count("\n", at, at + _RELINE_CHUNK)
        if breaks * RELINE_MIN_CHARS >= len(text):
            return False
    return True


# Where a line of a log starts, once the breaks are gone: a process tag, a vLLM or dated header, a traceback's opening,
# its frames, Python's words between chained tracebacks; and an exception's name after a frame's code line
_LINE_START = LazyRe(r"\((?:[A-Za-z_][\w-]*(?: " + PROC_QUALIFIER + r")? )?pid=\d+\)"
                     r"|(?<!\) )(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d"
                     r"|Traceback \(most recent call last\):|During handling of the above exception"
                     r"|The above exception was the direct cause|File \"[^\"\n]{1,400}\", line \d+")
_FRAME_TAIL_EXC = LazyRe(r"(?<= )(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)(?=: | *$)")


def _relined(line: str) -> str:
    """A long line split where a log's lines start, when it holds a few of those starts: a log run together into
    one line. A line that is only long is left as it is."""
    starts = [m.start() for m in _LINE_START.finditer(line)]
    if len(starts) < RELINE_MIN_MARKS:
        return line
    out = []
    for a, b in zip([0, *starts], [*starts, len(line)]):
        piece = line[a:b].rstrip()
        if not piece.strip():
            continue
        if piece.startswith("File \""):
            # the frame's code line runs on into the exception raised under it
            exc = _FRAME_TAIL_EXC.search(piece, piece.find(", in ") + 1)
            if exc:
                out += ["  " + piece[:exc.start()].rstrip(), piece[exc.start():]]
                continue
            piece = "  " + piece
        out.append(piece)
    return "\n".join(out)


def _drawn(line: str) -> bool:
    """Whether a line that fills the terminal's width was drawn to it, not cut at it: a box's or a table's side (rich's
    traceback box "│ ... │", nvidia-smi's "| ... |") or a rule ("==== FAILURES ====", "----", "____ test_x ____")."""
    end = line[-3:]
    return bool(end) and ("\u2500" <= end[-1] <= "\u257f" or end[-1] in "|+"
                          or (len(end) == 3 and end[0] == end[1] == end[2] and end[0] in "=-_*#~"))


def _wrap_width(text: str) -> int | None:
    """The terminal width the paste was hard-wrapped at: its longest line (in its first 64 KB) is a terminal's width,
    at least MIN_WRAPPED_LINES lines are exactly that long, and they are a good share of its long lines (a log whose
    longest line happens to be 120 characters has one or two such lines among many shorter long ones)."""
    lines = text[:_WRAP_SAMPLE].split("\n")[:-1 if len(text) > _WRAP_SAMPLE else None]
    lengths = [len(line) for line in lines]
    width = max(lengths, default=0)
    if width not in WRAP_WIDTHS:
        return None
    at = sum(1 for line in lines if len(line) == width and not _drawn(line))
    long = sum(n > width // 2 for n in lengths)
    return width if at >= MIN_WRAPPED_LINES and at >= WRAPPED_SHARE * long else None


MAX_REJOINED = 16384        # characters of one rejoined line, at most (a paste of nothing but full lines is no log)


def _unwrapped(text: str, width: int) -> str:
    """Each line exactly `width` long joined to the line after it, unless that one starts a record of its own."""
    out: list[str] = []
    run: list[str] = []         # the pieces of the line being rejoined (joined once: += on a long line is quadratic)
    size = 0
    for line in text.split("\n"):
        if run and width <= size < MAX_REJOINED and size % width == 0 \
                and not _drawn(run[-1] if len(run[-1]) >= 3 else "".join(run[-3:])) and not _NEW_RECORD.match(line):
            run.append(line)
            size += len(line)
            continue
        if run:
            out.append("".join(run))
        run, size = [line], len(line)
    out.append("".join(run))
    return "\n".join(out)


MAX_CR_LINES = 50_000       # bare carriage returns numbered back to the paste's lines (about 0.1 s)


def _cr_lines(text: str) -> list[int]:
    """The line numbers that each bare carriage return of `text` starts once it is a line break (one count of the
    line feeds between two of them, not a pass per line)."""
    out, line = [], 1
    parts = text.split("\r")
    for part in parts[:-1]:
        line += part.count("\n") + 1
        out.append(line)
    return out


# BuildKit's plain progress ("#12 54.11 ERROR: ..."), and its summary of a failed step, which keeps the time alone
# (" > [4/6] RUN pip install ...:" / "54.11 ERROR: ..." / "------" / "ERROR: failed to solve: process ... did not
# complete successfully"): a bare time is taken for BuildKit's only where the paste shows that summary
# (the line break spelled out, not "^" under re.M: a pattern that starts with a literal is scanned for it in C, where
# "^" is tried at every character, 100 ms on 10 MB of every paste; the first line is matched on its own)
_BUILDKIT_STEP_TIME = LazyRe(r"#\d{1,4} \d{1,6}\.\d{1,3}(?: |\n|$)")
_BUILDKIT_STEP_TIME_NL = LazyRe(r"\n#\d{1,4} \d{1,6}\.\d{1,3}(?: |\n|$)")
_BUILDKIT_TIME = LazyRe(r"\d{1,6}\.\d{1,3}(?: |\n|$)")
_BUILDKIT_TIME_NL = LazyRe(r"\n\d{1,6}\.\d{1,3}(?: |\n|$)")
_BUILDKIT_MARKS = ("did not complete successfully: exit code", "\n------\n > [")
_BUILDKIT_PREFIX = LazyRe(r"^(?:#\d{1,4} )?\d{1,6}\.\d{1,3}(?: |$)", re.M)


def _buildkit_shown(text: str) -> bool:
    # (a step's line starts with "#": a log without one says no in a memchr, not a regex pass, 0.4 ms a megabyte)
    if "#" in text and (_BUILDKIT_STEP_TIME.match(text) or _BUILDKIT_STEP_TIME_NL.search(text)):
        return True
    return any(m in text for m in _BUILDKIT_MARKS) and bool(_BUILDKIT_TIME.match(text) or _BUILDKIT_TIME_NL.search(text))


def _buildkit_unprefixed(text: str) -> str:
    """The text without BuildKit's step numbers and times at the start of its lines, each run of such lines moved
    back to the margin as a whole (pip indents a build's output under "[N lines of output]"; a run all indented
    would read as the continuation of a message none starts), keeping its inner indentation. Only the prefixed lines
    are visited: one such line in a long paste costs that line, not a Python step per line of the paste."""
    out: list[str] = []
    done = 0                                        # the text before it is in `out`
    run: list[str] = []                             # the current run's lines, prefixes taken off
    run_end = -1                                    # where the current run's last line ends
    for m in _BUILDKIT_PREFIX.finditer(text):
        if run and m.start() != run_end + 1:        # a line between: the run ended
            out.append(_to_margin(run))
            out.append(text[run_end:m.start()])
            run = []
        elif not run:
            out.append(text[done:m.start()])
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        run.append(text[m.end():end])
        run_end = done = end
    if run:
        out.append(_to_margin(run))
    out.append(text[done:])
    return "".join(out)


def _to_margin(run: list[str]) -> str:
    body = [line for line in run if line.strip()]
    cut = min((len(b) - len(b.lstrip()) for b in body), default=0)
    if cut:
        run = [line[cut:] if line[:cut].isspace() else line.lstrip() for line in run]
    return "\n".join(run)


PIP_TAIL = 256 * 1024
_PIP_BLOCK_START = LazyRe(r"\[\d+ lines? of output\]\s*$")


def _dedent_pip_output(text: str) -> str:
    """pip shows a failed build's own output indented under "╰─> [N lines of output]", down to
    "[end of output]": read at that depth, its traceback's exception line looks like code. Each such
    block (or what a paste kept of it) is moved back to the margin, keeping its inner indentation."""
    lines = text.split("\n")
    for end in [i for i, line in enumerate(lines) if line.strip() == "[end of output]"]:
        start = end
        while start > 0:
            prev = lines[start - 1]
            if _PIP_BLOCK_START.search(prev) or (prev.strip() and not prev[:2].isspace()):
                break
            start -= 1
        block = [line for line in lines[start:end + 1] if line.strip()]
        if not block:
            continue
        cut = min(len(line) - len(line.lstrip()) for line in block)
        for i in range(start, end + 1):
            lines[i] = lines[i][cut:] if lines[i][:cut].isspace() else lines[i].lstrip()
    return "\n".join(lines)


_MARKDOWN_LINK = LazyRe(r"\[([^\[\]\n]{1,400})\]\(https?://[^()\s]{1,800}\)")

# A code fence, with the language an opening fence names ("```python", "```log"): left on a line of
# its own, the word was read as the start of the message below it (LLM_Foreign_Block#1). Only a
# lowercase word alone on the fence's line: "```ValueError: ..." on one line is the message itself.
_FENCE = LazyRe(r"```(?:[a-z][\w+.-]{0,15}[ \t]*(?=\r?\n))?")

# Python never prints a blank line after a traceback frame nor after pydantic's "N validation
# errors for X": one there, with blank lines between nearly all lines, is a chat or issue tool
# that double-spaced the paste.
# (Two patterns, each opening with its literal text: a search for that is fast.)
_SPACED_OUT = (regex_cache.compile(r'File "[^"\n]{1,1000}", line \d+, in [^\n]{0,1000}\n[ \t]*\n'),
               regex_cache.compile(r"validation errors? for [A-Za-z_]\w*[ \t]*\n[ \t]*\n"))
DOUBLE_SPACED = 0.8             # the share of line breaks that are blank lines in such a paste


def _double_spaced(text: str) -> bool:
    """Whether a tool put a blank line after every line: read as it is, a frame would lose its
    code and a pydantic error its message, each cut off the line it continues."""
    for part in (text[:4096], text):    # a log's first lines say no at once (counting 1 MB: 1 ms)
        breaks = part.count("\n")
        if not breaks or 2 * part.count("\n\n") < DOUBLE_SPACED * breaks:
            return False
    return any(rx.search(text) for rx in _SPACED_OUT)


_LINK_STARTS = ("http", "#", "@", "!", "mailto", "file", "ftp")


def _has_slack_link(text: str) -> bool:
    """Whether Slack wrapped something in <...>: a log has many "<" ("<module>", "<frozen ...>")."""
    pos = text.find("<")
    while pos >= 0:
        if text.startswith(_LINK_STARTS, pos + 1):
            return True
        pos = text.find("<", pos + 1)
    return False
