"""Compiled regexes kept between runs. A cold `vllm-doctor diagnose` compiles a hundred or more patterns before it
answers (the reader's, the facts', the rules' that can hit), and Python's `re` parses and compiles each one again in
every process: that was half of the first diagnosis. CPython's compiler hands its result (a list of opcodes and the
group names) to `_sre.compile`; that result is plain data, so it is kept with `marshal_cache`, stamped with the
Python release and `_sre`'s own format, and handed to `_sre.compile` directly on the next run. Each entry is kept as
its own marshalled bytes, decoded when its pattern is asked for: the file holds every pattern any run met (a test
run meets them all: 1.7 MB), and decoding it whole took 6 ms where a run needs a few dozen entries.

Only the steps `re._compiler.compile` itself takes are repeated (3.11 to 3.13 take the same ones); anything that
fails on the way falls back to `re.compile`, so a Python whose internals differ only loses the saving.
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys

try:                                    # CPython's regex engine and compiler; elsewhere, plain re.compile
    import _sre
    from re import _compiler, _parser
except ImportError:                     # pragma: no cover
    _sre = None

from bot.base import marshal_cache

MAX_KEPT = 3000                         # patterns in the file: the rule book has about 900, the reader a few hundred
_STAMP = f"{sys.version}|{getattr(_sre, 'MAGIC', 0)}|{getattr(_sre, 'CODESIZE', 0)}"
_kept: dict | None = None               # (pattern, flags) -> the rest of `_sre.compile`'s arguments, marshalled
_new: dict = {}                         # the same, for what this process compiled afresh


def compile(pattern: str, flags: int = 0) -> re.Pattern:   # noqa: A001 - the name re's callers know
    """`re.compile(pattern, flags)`, from the kept compilation where an earlier run made one."""
    if _sre is None or not isinstance(pattern, str):
        return re.compile(pattern, flags)
    key = (pattern, int(flags))
    kept = _load().get(key) or _new.get(key)
    if kept is not None:
        try:
            return _sre.compile(pattern, *marshal.loads(kept))
        except (TypeError, ValueError, EOFError, RuntimeError):
            pass                        # a kept entry this engine refuses: compiled afresh below
    try:
        args = _compiled(pattern, int(flags))
        rx = _sre.compile(pattern, *args)
    except re.error:
        raise
    except Exception:                   # internals other than 3.11-3.13's: the ordinary way
        return re.compile(pattern, flags)
    if not _new:
        atexit.register(save)
    _new[key] = marshal.dumps(args)
    return rx


def _compiled(pattern: str, flags: int) -> tuple:
    """What `re._compiler.compile` hands `_sre.compile` after the pattern itself."""
    p = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(p, flags)]      # opcodes are int subclasses marshal does not write
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return flags | p.state.flags, code, p.state.groups - 1, groupindex, tuple(indexgroup)


def _path() -> str:
    return marshal_cache.path("regex", os.path.dirname(os.path.abspath(__file__)))


def _load() -> dict:
    global _kept
    if _kept is None:
        kept = marshal_cache.load(_path(), _STAMP)
        _kept = kept if isinstance(kept, dict) else {}
    return _kept


def save() -> None:
    """Add this process's new compilations to the file (at exit: a run that met no new pattern writes nothing). Another
    process may have added its own since this one read the file: they are kept too, up to MAX_KEPT."""
    if not _new:
        return
    on_disk = marshal_cache.load(_path(), _STAMP)
    merged = dict(on_disk) if isinstance(on_disk, dict) else {}
    room = MAX_KEPT - len(_new)
    if len(merged) > room:
        merged = dict(list(merged.items())[-max(room, 0):])
    merged.update(_new)
    marshal_cache.store(_path(), _STAMP, merged)
    _new.clear()
