"""Outcome store: diagnoses and their candidate rules, feedback, seen Slack events, user prefs.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: Union[str, Sequence[str], None] = None
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "diagnoses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uid", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("channel", sa.String(length=64), nullable=True),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("thread_ts", sa.String(length=32), nullable=True),
        sa.Column("message_ts", sa.String(length=32), nullable=True),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("answered", sa.Boolean(), nullable=False),
        sa.Column("signature", sa.String(length=512), nullable=True),
        sa.Column("root_text", sa.Text(), nullable=True),
        sa.Column("root_exc_type", sa.String(length=255), nullable=True),
        sa.Column("root_line_no", sa.Integer(), nullable=True),
        sa.Column("top_rule_id", sa.String(length=128), nullable=True),
        sa.Column("top_confidence", sa.Float(), nullable=True),
        sa.Column("vllm_version", sa.String(length=64), nullable=True),
        sa.Column("rulebook_version", sa.String(length=64), nullable=True),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("excerpt", sa.Text(), nullable=True),
        sa.CheckConstraint("source IN ('slack', 'cli', 'repro')", name=op.f("ck_diagnoses_source")),
        sa.CheckConstraint("verdict IN ('diagnosed', 'wrapper_only', 'unsure', 'no_error')",
                           name=op.f("ck_diagnoses_verdict")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_diagnoses")),
        sa.UniqueConstraint("uid", name=op.f("uq_diagnoses_uid")),
    )
    op.create_index(op.f("ix_diagnoses_created_at"), "diagnoses", ["created_at"])
    op.create_index(op.f("ix_diagnoses_signature"), "diagnoses", ["signature"])
    op.create_index(op.f("ix_diagnoses_top_rule_id"), "diagnoses", ["top_rule_id"])

    op.create_table(
        "diagnosis_candidates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("diagnosis_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("rule_id", sa.String(length=128), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("level", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=True),
        sa.Column("evidence", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('active', 'shadow')", name=op.f("ck_diagnosis_candidates_status")),
        sa.ForeignKeyConstraint(["diagnosis_id"], ["diagnoses.id"], ondelete="CASCADE",
                                name=op.f("fk_diagnosis_candidates_diagnosis_id_diagnoses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_diagnosis_candidates")),
    )
    op.create_index(op.f("ix_diagnosis_candidates_diagnosis_id"), "diagnosis_candidates", ["diagnosis_id"])
    op.create_index(op.f("ix_diagnosis_candidates_rule_id"), "diagnosis_candidates", ["rule_id"])

    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uid", sa.String(length=36), nullable=False),
        sa.Column("diagnosis_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.CheckConstraint("verdict IN ('fixed', 'wrong', 'partly')", name=op.f("ck_feedback_verdict")),
        sa.ForeignKeyConstraint(["diagnosis_id"], ["diagnoses.id"], ondelete="CASCADE",
                                name=op.f("fk_feedback_diagnosis_id_diagnoses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feedback")),
        sa.UniqueConstraint("uid", name=op.f("uq_feedback_uid")),
    )
    op.create_index(op.f("ix_feedback_diagnosis_id"), "feedback", ["diagnosis_id"])

    op.create_table(
        "seen_events",
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_seen_events")),
    )
    op.create_index(op.f("ix_seen_events_seen_at"), "seen_events", ["seen_at"])

    op.create_table(
        "user_prefs",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_prefs")),
    )


def downgrade() -> None:
    op.drop_table("user_prefs")
    op.drop_index(op.f("ix_seen_events_seen_at"), table_name="seen_events")
    op.drop_table("seen_events")
    op.drop_index(op.f("ix_feedback_diagnosis_id"), table_name="feedback")
    op.drop_table("feedback")
    op.drop_index(op.f("ix_diagnosis_candidates_rule_id"), table_name="diagnosis_candidates")
    op.drop_index(op.f("ix_diagnosis_candidates_diagnosis_id"), table_name="diagnosis_candidates")
    op.drop_table("diagnosis_candidates")
    op.drop_index(op.f("ix_diagnoses_top_rule_id"), table_name="diagnoses")
    op.drop_index(op.f("ix_diagnoses_signature"), table_name="diagnoses")
    op.drop_index(op.f("ix_diagnoses_created_at"), table_name="diagnoses")
    op.drop_table("diagnoses")
