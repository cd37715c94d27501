"""Log records printed as one JSON object a line, turned back into the lines a text log would show.

A JSON log formatter (python-json-logger, GPUStack's worker logs, a container runtime's json-file
driver) prints each record on one line and puts the traceback in a string field, its newlines and
quotes escaped: `{"message": "...", "exc_info": "Traceback ...\\n  File \\"...\\", line 1 ..."}`.
Read as it is, the traceback is one long line no frame or exception pattern can see. Here such a
record becomes what a text formatter prints: its message (after its level, the way uvicorn writes
one, so a WARNING stays a warning), then the traceback's own lines.

Only a line that opens a JSON object and holds an escaped newline is touched: a record without
one already reads as a line, and vLLM's own text (prompts quoted with `\\n`) never opens with `{"`.
A record cut short by the paste (no closing brace) is read field by field up to where it stops.
"""

from __future__ import annotations

import json
import re

from bot.base.lazyre import LazyRe
from .proc_tags import PROC_QUALIFIER

# Fields that hold the record's text: the message first, then what logging appends after it.
MESSAGE_KEYS = ("message", "msg", "log", "textPayload", "text", "event")
TRACE_KEYS = ("exc_info", "exc_text", "exception", "stack_trace", "stacktrace", "traceback", "stack",
              "error", "err")
LEVEL_KEYS = ("levelname", "level", "severity", "log.level")
_LEVELS = {"INFO": "INFO", "WARN": "WARNING", "WARNING": "WARNING", "ERROR": "ERROR",
           "CRITICAL": "CRITICAL", "FATAL": "CRITICAL"}
MAX_RECORDS = 2000
MAX_RECORD_CHARS = 1024 * 1024  # a longer record is read up to there, as one cut short
MAX_PREFIX = 80                 # a container or collector prefix before the object ("svc-1  | ")
# A line that opens an object (after a short prefix with no quote: JSON a message quotes, such as a
# prompt, is not a record) and holds an escaped newline further on.
# Possessive: linear in the line, whatever it holds.
_OPEN = LazyRe(r'^[^\n{"\']{0,%d}\{"(?:[^\n\\]++|\\[^n\n])*+\\n' % MAX_PREFIX, re.M)
# One "key": "string" pair, the string possibly cut off at the end of the line.
_PAIR = LazyRe(r'"(?P<key>[\w.@]+)"\s*:\s*"(?P<value>(?>(?:[^"\\\n]+|\\.)*))')
_CUT_ESCAPE = LazyRe(r'\\(?:u[0-9a-fA-F]{0,3})?$')
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "b": "", "f": ""}


def unpack(text: str) -> str:
    """The text with every JSON-record line holding an escaped newline rewritten as lines."""
    found = _candidates(text)
    if not found:
        return text
    out: list[str] = []
    done = 0
    for m in found:
        pos = text.find('{"', m.start())
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        lines = _record_lines(text[pos:min(end, pos + MAX_RECORD_CHARS)])
        if lines:
            out += [text[done:pos], "\n".join(lines)]
            done = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _candidates(text: str) -> list[re.Match]:
    """The first and the last lines that may be records, like the error lines of tracebacks.py: a
    10 MB log of such records holds half a million, and the middle ones are never read."""
    head, tail = MAX_RECORDS * 3 // 4, MAX_RECORDS // 4
    found = []
    for m in _OPEN.finditer(text):
        found.append(m)
        if len(found) == head:
            break
    else:
        return found
    low, size = found[-1].end(), 64 * 1024
    while True:
        start = max(low, text.rfind("\n", low, max(low, len(text) - size)) + 1)   # a line's start
        last = list(_OPEN.finditer(text, start))
        if len(last) >= tail or start == low:
            return found + last[-tail:]
        size *= 4


def _record_lines(segment: str) -> list[str]:
    fields = _fields(segment)
    if not fields:
        return []
    texts = [fields[k] for k in (*MESSAGE_KEYS, *TRACE_KEYS) if isinstance(fields.get(k), str) and fields[k].strip()]
    if not any("\n" in t for t in texts):
        return []                           # the escaped newline was elsewhere: nothing to unfold
    level = next((_LEVELS.get(str(fields[k]).upper()) for k in LEVEL_KEYS if k in fields), None)
    lines = "\n".join(t.rstrip("\n") for t in texts).split("\n")
    if level and lines:
        lines[0] = f"{level}:    {lines[0]}"
    return lines


def _fields(segment: str) -> dict:
    """The object's top-level fields; a record cut short is read pair by pair."""
    try:
        obj, _ = json.JSONDecoder().raw_decode(segment)
    except ValueError:
        fields: dict = {}
        for m in _PAIR.finditer(segment):       # the first of a key: a nested object's comes later
            fields.setdefault(m.group("key"), m.group("value"))
        return {k: _unescape(v) for k, v in fields.items()}
    return obj if isinstance(obj, dict) else {}


def _unescape(s: str) -> str:
    """A JSON string's body, decoded; one cut off inside an escape loses that escape."""
    if "\\" not in s:
        return s
    try:
        return json.loads('"' + _CUT_ESCAPE.sub("", s) + '"', strict=False)
    except ValueError:
        return _unescape_text(s)        # an escape JSON does not know ("\\x"): decoded one by one


# A traceback inside an escaped string that is no record of a JSON log: an API's error body ("detail": "..."), a
# Python repr, a CI step's output, a notebook's JSON, pasted as it is ("...failed.\\nTraceback (most recent call
# last):\\n  File \\"/x/core.py\\", line 12, in run\\nValueError: ..."): a line whose escaped newlines open a
# traceback or a frame, and hold a few of them, is unfolded into its lines. (The traceback's opening is followed by an
# escaped "\\n" or "\\r\\n"; a frame may follow a prefix on its line, "\\n[rank0]:   File \\"...".)
_ESCAPED_TRACEBACK = (r'(?P<tb>Traceback \(most recent call last\):(?:\\r)?\\n)'
                      r'|\\n(?P<frame>[ \t]*File \\?"[^"\n]{1,400}?\\?", line \d)')
MIN_ESCAPED_NEWLINES = 2
# A log's records inside an escaped string, no traceback among them (a healthy run's log, a hang, a CLI's refusal):
# escaped newlines each followed by a record's head (vLLM's header, with its process tag or not, or a dated line). A
# line holding MIN_ESCAPED_RECORDS of them is a log, unfolded into its lines.
_ESCAPED_RECORD = (r'\\n(?:\((?:[A-Za-z_][\w-]*(?: ' + PROC_QUALIFIER + r')? )?pid=\d+(?:, ip=[\d.:a-f]+)?\) ?)?'
                   r'(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d)')
# Each searched for only where the text holds a mark of it (a search stops at each escaped newline: a text of a
# million of them and neither costs no search); both in one pass where it holds marks of both
_TRACEBACK_MARKS = ("call last):\\n", "call last):\\r\\n", "\\n  File ", "\\n    File ")
_RECORD_MARKS = ("\\nINFO ", "\\nWARNING ", "\\nERROR ", "\\nDEBUG ", "\\nCRITICAL ", "\\n(", "\\n[", "\\n1", "\\n2")
MAX_RECORD_SCAN = 1024 * 1024    # a longer paste is not searched for records (each mark's search costs ms there)
_ESCAPED_SEARCH = {(True, False): LazyRe(_ESCAPED_TRACEBACK), (False, True): LazyRe(_ESCAPED_RECORD),
                   (True, True): LazyRe(_ESCAPED_TRACEBACK + "|" + _ESCAPED_RECORD)}
MIN_ESCAPED_RECORDS = 2
# A whole paste that is one escaped string (a log copied out of a JSON field, json.dumps of a log, a notebook's
# output): a line that is nearly all of the paste and holds MIN_WHOLE_NEWLINES escaped newlines, or ends in one (a
# file's text ends in its last line's newline), is its lines. Read as it is, the paste is one line: its last 8 KB
# read as what a hung run printed last, and any error word in it as the error of a healthy run.
MIN_WHOLE_NEWLINES = 4
_ENDS_ESCAPED = LazyRe(r'\\n["\']?\s*$')
WHOLE_SHARE = 0.8
MAX_WHOLE_LINES = 64            # a paste of more real lines than this is not one string


# vLLM's request logger: the person's prompt ("Received request X: prompt: '...'" to 0.8, "Request X details: prompt:
# '...'" at DEBUG later) and the model's answer ("Generated response X: output: '...'"): text the users wrote or the
# model said, which may quote any error (a coding assistant asked about a traceback), never this run's own
REQUEST_LOG = r"(?:Received request|Request) \S{1,200}?(?::| details:) prompt: |Generated response \S{1,200}?: output: "
_REQUEST_LOG = LazyRe(REQUEST_LOG)


def unfold_strings(text: str) -> str:
    """The text with each line of escaped text that holds a traceback (_ESCAPED_TRACEBACK) or a log's records
    (_ESCAPED_RECORD), or that is the whole paste (MIN_WHOLE_NEWLINES), unescaped into its lines."""
    spans = _escaped_lines(text)
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for start, end in spans:
        out += [text[done:start], _unescape_text(text[start:end])]
        done = end
    out.append(text[done:])
    return "".join(out)


def _escaped_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line to unfold, in order: the whole paste's line, then one pass over the rest of the text,
    a line at a time, up to MAX_RECORDS lines."""
    if "\\n" not in text:             # (JSON records' newlines, unpacked already)
        return []
    found = _whole_paste(text)
    marks = (any(m in text for m in _TRACEBACK_MARKS),
             len(text) <= MAX_RECORD_SCAN and any(m in text for m in _RECORD_MARKS))
    rx = _ESCAPED_SEARCH.get(marks)
    gaps, at = [], 0
    for start, end in sorted(found.items()):
        gaps.append((at, start))
        at = end
    gaps.append((at, len(text)))
    for lo, hi in gaps if rx is not None else ():
        m = rx.search(text, lo, hi)
        while m is not None and len(found) < MAX_RECORDS:
            start, end = _line_at(text, m.start(), m.end())
            records = 0
            while m is not None:
                if m.lastgroup in ("tb", "frame"):
                    if text.count("\\n", start, end) >= MIN_ESCAPED_NEWLINES:
                        found[start] = end
                    break
                records += 1
                if records == MIN_ESCAPED_RECORDS:
                    found[start] = end
                    break
                m = rx.search(text, m.end(), end)
            m = rx.search(text, end, hi)
    return [(s, e) for s, e in sorted(found.items()) if not _REQUEST_LOG.search(text, s, e)]


def _whole_paste(text: str) -> dict[int, int]:
    """{start: end} of the line that is the whole paste in one escaped string (MIN_WHOLE_NEWLINES), if any."""
    if not _few_lines(text, MAX_WHOLE_LINES):
        return {}
    size, start = len(text.strip()), 0
    for line in text.split("\n"):
        if len(line) >= WHOLE_SHARE * size and "\\n" in line \
                and (line.count("\\n") >= MIN_WHOLE_NEWLINES or _ENDS_ESCAPED.search(line[-8:])):
            return {start: start + len(line)}
        start += len(line) + 1
    return {}


def _few_lines(text: str, most: int) -> bool:
    """Whether the text has at most `most` line breaks (found one by one: counting all of 10 MB costs more)."""
    at = -1
    for _ in range(most + 1):
        at = text.find("\n", at + 1)
        if at < 0:
            return True
    return False


def _line_at(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) of the line that holds text[start:end]."""
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def _unescape_text(line: str) -> str:
    """A line of escaped text, its escapes decoded (a string cut anywhere, quotes and all, decodes); an escape JSON
    does not know ("\\x") is kept as it is. Between escaped backslashes every backslash opens an escape, so each
    is replaced in one pass of str.replace: a regex with a Python call per escape took most of a second on 10 MB."""
    parts = line.split("\\\\")
    for i, part in enumerate(parts):
        if "\\" not in part:
            continue
        for escape, char in _REPLACED:
            part = part.replace(escape, char)
        if "\\u" in part:
            part = _UNICODE.sub(lambda m: chr(int(m.group(1), 16)), part)
        parts[i] = part
    return "\\".join(parts).replace("\r\n", "\n")


_REPLACED = tuple(("\\" + e, c) for e, c in _SIMPLE.items() if e != "\\")
_UNICODE = LazyRe(r"\\u([0-9a-fA-F]{4})")
