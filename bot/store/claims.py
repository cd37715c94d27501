"""Writing message claims as settled, in the caller's transaction: for a claim made or settled
while the database was down (spooled), and for the claim of a message whose reply is stored."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from .models import SeenEvent


def write_claims(session: Session, keys: list[str], when: dt.datetime) -> None:
    """Each key claimed and settled at `when`; a claim that exists (another replica's, or this
    one's from before) is kept, and settled if it was not."""
    table = SeenEvent.__table__
    insert = (postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert)(table)
    for key in keys:
        stmt = insert.values(event_id=key, seen_at=when, settled_at=when)
        session.execute(stmt.on_conflict_do_update(
            index_elements=[table.c.event_id],
            set_={"settled_at": func.coalesce(table.c.settled_at, stmt.excluded.settled_at)}))
