"""Is this bot able to answer? `/readyz` asks (`/healthz` only says the process is alive), and
`serve` asks once before it starts.

Ready means: the database answers, it is at the newest migration this vllm-doctor ships, and the
rule book is loaded. A database that is down is an outage the bot rides out (it spools); one that
was never migrated is a deployment mistake, and serving on it would silently turn off the
dedupe of Slack retries, so `serve` refuses it unless told to migrate.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.base.errors import SetupError
from bot.store import migrate
from bot.store.engine import display
from bot.store.store import is_outage

log = logging.getLogger(__name__)


class NotMigrated(SetupError):
    """The database is reachable but not at the newest migration; str() is one line for the operator."""


def schema_problem(store: Any, head: str | None) -> str | None:
    """Why the database is not at `head`, or None when it is. Raises SQLAlchemyError when unreachable."""
    current = store.current()
    if current == head:
        return None
    where = display(store.url)
    return (f"the database {where} is at {current or 'no revision (empty)'}, not at the newest migration {head}: "
            "run `vllm-doctor db upgrade` (or start with `serve --migrate`)")


def check_database(store: Any, *, migrate_later: bool) -> bool:
    """Before serving: True when the database must be upgraded first (`serve --migrate`).

    Raises NotMigrated for a reachable database that is not at the newest migration, unless it is
    to be migrated; a database that cannot be reached is an outage the bot rides out.
    """
    try:
        problem = schema_problem(store, migrate.head())
    except SQLAlchemyError as e:
        if migrate_later or not is_outage(e):
            raise
        log.warning("database %s unreachable (%s); serving anyway: records are spooled and /readyz answers 503 "
                    "until it is back", display(store.url), type(e).__name__)
        return False
    if problem and not migrate_later:
        raise NotMigrated(problem)
    return problem is not None


def upgrade(store: Any) -> None:
    before = store.current()
    log.info("database %s upgraded from %s to %s", display(store.url), before or "an empty database", store.upgrade())


class Readiness:
    """`ready()` → (ready, JSON-able details: the reason when not ready)."""

    def __init__(self, store: Any, book: Any) -> None:
        self.store = store
        self.book = book
        self.head = migrate.head()      # the migrations ship with the code: read them once

    def __call__(self) -> tuple[bool, dict]:
        if self.book is None or not len(self.book):
            return False, {"ready": False, "reason": "the rule book is not loaded"}
        try:
            problem = schema_problem(self.store, self.head)
        except SQLAlchemyError as e:
            return False, {"ready": False, "reason": f"the database is unreachable ({type(e).__name__})"}
        if problem:
            return False, {"ready": False, "reason": problem}
        return True, {"ready": True, "database": self.head, "rule_book": self.book.version, "rules": len(self.book)}
