"""What every listener needs besides the Slack payload: settings and the store.

Listeners get it as `context["deps"]` (a global middleware puts it there), so they stay plain
functions whose other arguments bolt injects by name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from bot.slack.lang import choose
from bot.slack.settings import Settings


@dataclass
class Deps:
    settings: Settings
    store: Any  # bot.store.Store; typed loosely so this module imports without a database
    book: Any   # the rule book every paste is diagnosed with: the shipped book and the team packs
    replies: Any = None     # bot.slack.replies.Replies: channel answers go out through the outbox
    # Language choices seen by this process, so a modal can be opened in the user's language
    # before any database work (a trigger_id lives three seconds).
    _langs: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def cached_lang(self, user: str | None) -> str:
        with self._lock:
            return self._langs.get(user or "", "en")

    def user_lang(self, user: str | None) -> str | None:
        if not user:
            return None
        lang = self.store.get_user_lang(user)
        if lang:
            with self._lock:
                self._langs[user] = lang
        return lang

    def set_user_lang(self, user: str, lang: str) -> None:
        self.store.set_user_lang(user, lang)
        with self._lock:
            self._langs[user] = lang

    def answer_lang(self, user: str | None, words: str) -> str:
        return choose(self.user_lang(user), words)


def get(context: Any) -> Deps:
    return context["deps"]
