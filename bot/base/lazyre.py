"""Regexes compiled on first use. The CLI compiles every module-level pattern it imports before it
reads the paste, and most patterns serve few pastes: the cold start (1.5x `import yaml, rapidfuzz`)
has no room for compiling them all."""

from __future__ import annotations

import re


class LazyRe:
    """Stands in for `re.compile(pattern, flags)` until a method of it is first used."""

    __slots__ = ("pattern", "flags", "_rx")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags, self._rx = pattern, flags, None

    def __getattr__(self, name: str):
        if self._rx is None:
            self._rx = re.compile(self.pattern, self.flags)
        return getattr(self._rx, name)
