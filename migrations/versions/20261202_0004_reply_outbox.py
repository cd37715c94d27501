"""The reply outbox: answers stored before they are posted (retried with backoff, resumed after a
restart, posted once), and a message claim's `settled_at` (what to do about it is stored), so
Slack's retry can take over a claim whose replica died before storing its answer.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: Union[str, Sequence[str], None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # Plain ALTER TABLE, never batch mode (see 0003). Claims from before are taken as settled:
    # their messages were answered, or not, by the code of that time.
    op.add_column("seen_events", sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE seen_events SET settled_at = seen_at")
    op.create_table(
        "replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_key", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("channel", sa.String(length=64), nullable=False),
        sa.Column("thread_ts", sa.String(length=32), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("diagnosis_id", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("blocks", sa.JSON(), nullable=False),
        sa.Column("attachment_name", sa.String(length=255), nullable=True),
        sa.Column("attachment", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=255), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("posted_ts", sa.String(length=32), nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('pending', 'posted', 'failed')", name=op.f("ck_replies_status")),
        sa.ForeignKeyConstraint(["diagnosis_id"], ["diagnoses.id"], ondelete="SET NULL",
                                name=op.f("fk_replies_diagnosis_id_diagnoses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_replies")),
        sa.UniqueConstraint("message_key", name=op.f("uq_replies_message_key")),
    )
    op.create_index("ix_replies_status_next_attempt_at", "replies", ["status", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_replies_status_next_attempt_at", table_name="replies")
    op.drop_table("replies")
    op.drop_column("seen_events", "settled_at")
