"""Regexes compiled on first use. The CLI compiles every module-level pattern it imports before it
reads the paste, and most patterns serve few pastes: the cold start (1.5x `import yaml, rapidfuzz`)
has no room for compiling them all."""

from __future__ import annotations

from bot.base import regex_cache


class LazyRe:
    """Stands in for `re.compile(pattern, flags)` until a method of it is first used. The methods it hands out
    are kept on the instance, so a pattern used per line costs a plain attribute lookup after the first."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str):
        rx = self.__dict__.get("_rx")
        if rx is None:
            rx = self.__dict__["_rx"] = regex_cache.compile(self.pattern, self.flags)
        value = getattr(rx, name)
        self.__dict__[name] = value
        return value
