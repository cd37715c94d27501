"""Logging for the long-running commands (`serve`, `dashboard`): one format, the level from
LOG_LEVEL, and the libraries' start-up chatter kept below it.

An operator reads the first lines of a start to see whether it worked; Alembic's per-connection
INFO lines ("Context impl PostgresqlImpl.", "Will assume transactional DDL.", one pair per
migration check) say nothing they can act on, so they show only at DEBUG. What vllm-doctor
migrated it logs itself.
"""

from __future__ import annotations

import logging

from bot.base.errors import SetupError

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def level_from(value: str | None) -> str:
    """LOG_LEVEL's value as a level name; unset or empty is INFO, anything else a SetupError."""
    level = (value or "").strip().upper() or "INFO"
    if level not in LEVELS:
        raise SetupError(f"LOG_LEVEL={level[:40]} is not a level: use DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return level


def setup(level: str) -> None:
    logging.basicConfig(level=level, format=FORMAT)
    if level != "DEBUG":
        logging.getLogger("alembic").setLevel(logging.WARNING)
