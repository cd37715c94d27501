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
_OPEN = re.compile(r'^[^\n{"\']{0,%d}\{"(?:[^\n\\]++|\\[^n\n])*+\\n' % MAX_PREFIX, re.M)
# One "key": "string" pair, the string possibly cut off at the end of the line.
_PAIR = re.compile(r'"(?P<key>[\w.@]+)"\s*:\s*"(?P<value>(?>(?:[^"\\\n]+|\\.)*))')
_CUT_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{0,3})?$')
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
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
        pass                            # an escape JSON does not know ("\\x"): decoded one by one

    def one(m: re.Match) -> str:
        e = m.group(1)
        if e[0] == "u" and len(e) == 5:
            return chr(int(e[1:], 16))
        return _SIMPLE.get(e, e)
    return _ESCAPE.sub(one, s)


# A traceback inside an escaped string that is no record of a JSON log: an API's error body ("detail": "..."), a
# Python repr, a CI step's output, a notebook's JSON, pasted as it is ("...failed.\\nTraceback (most recent call
# last):\\n  File \\"/x/core.py\\", line 12, in run\\nValueError: ..."): a line whose escaped newlines open a
# traceback or a frame, and hold a few of them, is unfolded into its lines.
_ESCAPED_TRACEBACK = re.compile(r'Traceback \(most recent call last\):\\r?\\n|\\n[ \t]*File \\?"[^"\n]{1,400}?\\?", line \d')
_ESCAPED_MARKS = ("call last):\\n", "\\n  File ", "\\n    File ")
MIN_ESCAPED_NEWLINES = 2


# vLLM's request logger: the person's prompt ("Received request X: prompt: '...'" to 0.8, "Request X details: prompt:
# '...'" at DEBUG later) and the model's answer ("Generated response X: output: '...'"): text the users wrote or the
# model said, which may quote any error (a coding assistant asked about a traceback), never this run's own
REQUEST_LOG = r"(?:Received request|Request) \S{1,200}?(?::| details:) prompt: |Generated response \S{1,200}?: output: "
_REQUEST_LOG = re.compile(REQUEST_LOG)


def unfold_strings(text: str) -> str:
    """The text with each line that holds an escaped traceback (_ESCAPED_TRACEBACK) unescaped into its lines."""
    if not any(mark in text for mark in _ESCAPED_MARKS):
        return text
    out: list[str] = []
    done = 0
    for m in _ESCAPED_TRACEBACK.finditer(text):
        if m.start() < done:
            continue                                # a line already unfolded
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        line = text[start:end]
        if line.count("\\n") >= MIN_ESCAPED_NEWLINES and not _REQUEST_LOG.search(line):
            out += [text[done:start], _unescape_text(line)]
        else:
            out.append(text[done:end])
        done = end
        if len(out) > 2 * MAX_RECORDS:
            break
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _unescape_text(line: str) -> str:
    """A line of escaped text, its escapes decoded one by one (a string cut anywhere, quotes and all, decodes)."""
    def one(m: re.Match) -> str:
        e = m.group(1)
        if e[0] == "u" and len(e) == 5:
            return chr(int(e[1:], 16))
        return _SIMPLE.get(e, "\\" + e)
    return _ESCAPE.sub(one, line).replace("\r\n", "\n")
