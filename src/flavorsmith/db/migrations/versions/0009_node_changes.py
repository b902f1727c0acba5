"""The node change log: which nodes each node generation changed, so a cache can follow.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "node_changes",
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("created", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("generation", "uuid", name=op.f("pk_node_changes")),
    )


def downgrade() -> None:
    op.drop_table("node_changes")
