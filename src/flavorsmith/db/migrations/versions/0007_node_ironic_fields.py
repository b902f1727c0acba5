"""The data fields of an Ironic 39 node that nodes lacked: ownership, retirement, protection,
sharding, the hardware interfaces and the like (not the conductor's working state).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

INTERFACES = (
    "bios",
    "boot",
    "console",
    "deploy",
    "firmware",
    "inspect",
    "management",
    "network",
    "power",
    "raid",
    "rescue",
    "storage",
    "vendor",
)
# Columns the API filters nodes by.
INDEXED = ("owner", "lessee", "conductor_group", "shard", "parent_node")


def columns() -> list[sa.Column[Any]]:
    false = sa.false()
    return [
        sa.Column("owner", sa.String(255), nullable=True),
        sa.Column("lessee", sa.String(255), nullable=True),
        sa.Column("conductor_group", sa.String(255), nullable=False, server_default=""),
        sa.Column("chassis_uuid", sa.String(36), nullable=True),
        sa.Column("instance_name", sa.String(255), nullable=True),
        sa.Column("automated_clean", sa.Boolean(), nullable=True),
        sa.Column("protected", sa.Boolean(), nullable=False, server_default=false),
        sa.Column("protected_reason", sa.Text(), nullable=True),
        sa.Column("retired", sa.Boolean(), nullable=False, server_default=false),
        sa.Column("retired_reason", sa.Text(), nullable=True),
        sa.Column("disable_power_off", sa.Boolean(), nullable=False, server_default=false),
        sa.Column("network_data", sa.JSON(), nullable=False, server_default="{}"),
        sa.Column("boot_mode", sa.String(16), nullable=True),
        sa.Column("secure_boot", sa.Boolean(), nullable=True),
        sa.Column("shard", sa.String(255), nullable=True),
        sa.Column("parent_node", sa.String(36), nullable=True),
        *(sa.Column(f"{name}_interface", sa.String(255), nullable=True) for name in INTERFACES),
    ]


def upgrade() -> None:
    with op.batch_alter_table("nodes") as batch:
        for column in columns():
            batch.add_column(column)
    for name in INDEXED:
        op.create_index(op.f(f"ix_nodes_{name}"), "nodes", [name])


def downgrade() -> None:
    for name in INDEXED:
        op.drop_index(op.f(f"ix_nodes_{name}"), table_name="nodes")
    with op.batch_alter_table("nodes") as batch:
        for column in reversed(columns()):
            batch.drop_column(column.name)
