"""For the maintainers' dashboard: a paste's GPU, the other program that printed it and the tally
of its votes as columns, and the covering indexes its pages and `rules stats` read through (each
page renders in under 300 ms with 100,000 pastes on PostgreSQL).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: Union[str, Sequence[str], None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

BATCH = 2000
VOTES = ("fixed", "wrong", "partly")


def upgrade() -> None:
    # Plain ALTER TABLE, never batch mode: on SQLite that copies the table and drops the old one,
    # and the drop would cascade to every candidate and vote (foreign keys are on).
    op.add_column("diagnoses", sa.Column("gpu_name", sa.String(length=128), nullable=True))
    op.add_column("diagnoses", sa.Column("other_program", sa.String(length=255), nullable=True))
    for verdict in VOTES:
        op.add_column("diagnoses", sa.Column(f"votes_{verdict}", sa.Integer(), nullable=False,
                                             server_default=sa.text("0")))
    _backfill_facts()
    _backfill_votes()
    for name, table, columns, where in INDEXES:
        partial = {} if where is None else {"postgresql_where": sa.text(where), "sqlite_where": sa.text(where)}
        op.create_index(name, table, columns, **partial)


def downgrade() -> None:
    for name, table, *_ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    for column in (*(f"votes_{v}" for v in reversed(VOTES)), "other_program", "gpu_name"):
        op.drop_column("diagnoses", column)      # SQLite 3.35+ drops a column in place


# (name, table, columns, where): each answers the queries named beside it from the index alone
# (an index-only scan on PostgreSQL, a covering index on SQLite), never reading the wide rows
# with their excerpts and facts.
UNANSWERED = "verdict <> 'diagnosed' AND signature IS NOT NULL"
INDEXES = [
    # rules stats: hits, votes, last hit per rule and release; a rule's page (hits per week)
    ("ix_diagnoses_rule_release", "diagnoses",
     ["top_rule_id", "vllm_version", "created_at", "votes_fixed", "votes_wrong", "votes_partly"], None),
    # overview: pastes per day by outcome, votes per week, top failures of the last two weeks
    ("ix_diagnoses_created_outcome", "diagnoses",
     ["created_at", "verdict", "other_program", "top_rule_id", "votes_fixed", "votes_wrong", "votes_partly"], None),
    # pastes by release and GPU: read in this order, so the database groups them without hashing;
    # also the count of answered pastes
    ("ix_diagnoses_release_gpu", "diagnoses", ["vllm_version", "gpu_name", "verdict", "other_program", "top_rule_id"],
     None),
    # unanswered failures (rules suggest's clusters) with their releases and GPUs
    ("ix_diagnoses_unanswered", "diagnoses",
     ["signature", "vllm_version", "gpu_name", "created_at", "id", "other_program"], UNANSWERED),
    # rules stats: active candidates and shadow rules per rule
    ("ix_diagnosis_candidates_status_rule_id", "diagnosis_candidates", ["status", "rule_id"], None),
]


def _backfill_votes() -> None:
    """The tally of each paste's votes: one per person, their latest (as bot.store.store keeps it)."""
    feedback = sa.table("feedback", *(sa.column(c) for c in ("id", "diagnosis_id", "user_id", "verdict", "created_at")))
    diagnoses = sa.table("diagnoses", sa.column("id"), *(sa.column(f"votes_{v}") for v in VOTES))
    connection = op.get_bind()
    latest: dict[int, dict[str, str]] = {}
    for diagnosis_id, user_id, verdict in connection.execute(
            sa.select(feedback.c.diagnosis_id, feedback.c.user_id, feedback.c.verdict)
            .order_by(feedback.c.created_at, feedback.c.id)):
        latest.setdefault(diagnosis_id, {})[user_id] = verdict
    updates = [{"row_id": diagnosis_id, **{v: list(by_user.values()).count(v) for v in VOTES}}
               for diagnosis_id, by_user in latest.items()]
    for start in range(0, len(updates), BATCH):
        connection.execute(diagnoses.update().where(diagnoses.c.id == sa.bindparam("row_id"))
                           .values({f"votes_{v}": sa.bindparam(v) for v in VOTES}), updates[start:start + BATCH])


def _backfill_facts() -> None:
    """Fill the new columns from the stored facts, in batches (a big table is not read at once).

    other_program repeats what bot.diagnose.not_vllm decided when the paste was diagnosed, as it
    decided it when this migration was written: a data migration must not change with the code.
    """
    diagnoses = sa.table("diagnoses", sa.column("id", sa.Integer), sa.column("facts", sa.JSON),
                         sa.column("gpu_name", sa.String), sa.column("other_program", sa.String))
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(sa.select(diagnoses.c.id, diagnoses.c.facts).where(diagnoses.c.id > last)
                                  .order_by(diagnoses.c.id).limit(BATCH)).all()
        if not rows:
            return
        updates = [{"row_id": row_id, "gpu": _short((facts or {}).get("gpu_name"), 128),
                    "other": _short(_other_program(facts or {}), 255)} for row_id, facts in rows]
        updates = [u for u in updates if u["gpu"] or u["other"]]
        if updates:
            connection.execute(
                diagnoses.update().where(diagnoses.c.id == sa.bindparam("row_id"))
                .values(gpu_name=sa.bindparam("gpu"), other_program=sa.bindparam("other")), updates)
        last = rows[-1][0]


def _other_program(facts: dict) -> str | None:
    if not facts.get("foreign_context") or facts.get("vllm_printed"):
        return None
    if facts.get("vllm_context") and not facts.get("foreign_strict"):
        return None
    return str(facts["foreign_context"])


def _short(value, n: int) -> str | None:
    return None if value is None else str(value)[:n]
