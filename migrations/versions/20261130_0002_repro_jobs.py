"""Repro jobs and their steps (one probe process each); bot/repro fills them in.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: Union[str, Sequence[str], None] = "0001"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("model_path", sa.Text(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("requested_by", sa.String(length=64), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("channel", sa.String(length=64), nullable=True),
        sa.Column("thread_ts", sa.String(length=32), nullable=True),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sa.String(length=255), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("diagnosis_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("source IN ('slack', 'cli')", name=op.f("ck_jobs_source")),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed', 'cancelled')",
                           name=op.f("ck_jobs_status")),
        sa.ForeignKeyConstraint(["diagnosis_id"], ["diagnoses.id"], ondelete="SET NULL",
                                name=op.f("fk_jobs_diagnosis_id_diagnoses")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    # The worker's claim query: WHERE status = 'queued' ORDER BY priority, id.
    op.create_index("ix_jobs_status_priority_id", "jobs", ["status", "priority", "id"])

    op.create_table(
        "job_steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("step_no", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("rule_id", sa.String(length=128), nullable=True),
        sa.Column("output_excerpt", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('preflight', 'bare', 'add', 'fix')", name=op.f("ck_job_steps_kind")),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], ondelete="CASCADE",
                                name=op.f("fk_job_steps_job_id_jobs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_job_steps")),
    )
    op.create_index(op.f("ix_job_steps_job_id"), "job_steps", ["job_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_job_steps_job_id"), table_name="job_steps")
    op.drop_table("job_steps")
    op.drop_index("ix_jobs_status_priority_id", table_name="jobs")
    op.drop_table("jobs")
