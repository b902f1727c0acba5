"""Nodes and node traits.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nodes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=True),
        sa.Column("driver", sa.String(255), nullable=False),
        sa.Column("resource_class", sa.String(80), nullable=True),
        sa.Column("provision_state", sa.String(15), nullable=False),
        sa.Column("target_provision_state", sa.String(15), nullable=True),
        sa.Column("power_state", sa.String(15), nullable=True),
        sa.Column("target_power_state", sa.String(15), nullable=True),
        sa.Column("maintenance", sa.Boolean(), nullable=False),
        sa.Column("maintenance_reason", sa.Text(), nullable=True),
        sa.Column("instance_uuid", sa.String(36), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("instance_info", sa.JSON(), nullable=False),
        sa.Column("driver_info", sa.JSON(), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("provision_updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_nodes")),
        sa.UniqueConstraint("uuid", name=op.f("uq_nodes_uuid")),
        sa.UniqueConstraint("name", name=op.f("uq_nodes_name")),
    )
    op.create_index(op.f("ix_nodes_resource_class"), "nodes", ["resource_class"])
    op.create_index(op.f("ix_nodes_provision_state"), "nodes", ["provision_state"])
    op.create_index(op.f("ix_nodes_maintenance"), "nodes", ["maintenance"])
    op.create_table(
        "node_traits",
        sa.Column("node_id", sa.Integer(), nullable=False),
        sa.Column("trait", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(
            ["node_id"], ["nodes.id"], name=op.f("fk_node_traits_node_id_nodes"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("node_id", "trait", name=op.f("pk_node_traits")),
    )
    op.create_index("ix_node_traits_trait_node_id", "node_traits", ["trait", "node_id"])


def downgrade() -> None:
    op.drop_index("ix_node_traits_trait_node_id", table_name="node_traits")
    op.drop_table("node_traits")
    op.drop_index(op.f("ix_nodes_maintenance"), table_name="nodes")
    op.drop_index(op.f("ix_nodes_provision_state"), table_name="nodes")
    op.drop_index(op.f("ix_nodes_resource_class"), table_name="nodes")
    op.drop_table("nodes")
