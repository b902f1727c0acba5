"""Runbooks (Ironic API 1.92): named, ordered clean or service steps, with traits of their own
(1.112), a description, public or owned by a project.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runbooks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("owner", sa.String(255), nullable=True),
        sa.Column("disable_ramdisk", sa.Boolean(), nullable=False),
        sa.Column("traits", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runbooks")),
        sa.UniqueConstraint("uuid", name=op.f("uq_runbooks_uuid")),
        sa.UniqueConstraint("name", name=op.f("uq_runbooks_name")),
    )
    op.create_index(op.f("ix_runbooks_owner"), "runbooks", ["owner"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_runbooks_owner"), table_name="runbooks")
    op.drop_table("runbooks")
