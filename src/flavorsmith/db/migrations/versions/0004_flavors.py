"""Nova-compatible flavors, their extra specs and project access.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "flavors",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("flavorid", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("memory_mb", sa.Integer(), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("root_gb", sa.Integer(), nullable=False),
        sa.Column("ephemeral_gb", sa.Integer(), nullable=False),
        sa.Column("swap", sa.Integer(), nullable=False),
        sa.Column("rxtx_factor", sa.Float(), nullable=False),
        sa.Column("vcpu_weight", sa.Integer(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flavors")),
        sa.UniqueConstraint("flavorid", name=op.f("uq_flavors_flavorid")),
        sa.UniqueConstraint("name", name=op.f("uq_flavors_name")),
    )
    op.create_table(
        "flavor_extra_specs",
        sa.Column("flavor_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(
            ["flavor_id"],
            ["flavors.id"],
            name=op.f("fk_flavor_extra_specs_flavor_id_flavors"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("flavor_id", "key", name=op.f("pk_flavor_extra_specs")),
    )
    op.create_table(
        "flavor_projects",
        sa.Column("flavor_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(
            ["flavor_id"],
            ["flavors.id"],
            name=op.f("fk_flavor_projects_flavor_id_flavors"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("flavor_id", "project_id", name=op.f("pk_flavor_projects")),
    )


def downgrade() -> None:
    op.drop_table("flavor_projects")
    op.drop_table("flavor_extra_specs")
    op.drop_table("flavors")
