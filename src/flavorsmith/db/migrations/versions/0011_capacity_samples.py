"""Capacity samples: nodes in all, sellable and used per flavor and per resource class, taken
by the leader every few minutes and pruned past their retention (the dashboard's trends).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "capacity_samples",
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resource_class", sa.String(255), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("sellable", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "name", "taken_at", name=op.f("pk_capacity_samples")),
    )
    op.create_index(
        op.f("ix_capacity_samples_taken_at"), "capacity_samples", ["taken_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_capacity_samples_taken_at"), table_name="capacity_samples")
    op.drop_table("capacity_samples")
