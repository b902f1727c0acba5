"""Provider flavor framework: flavor profiles and service flavors.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "flavor_profiles",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("provider_name", sa.String(255), nullable=False),
        sa.Column("flavor_data", sa.String(4096), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flavor_profiles")),
    )
    op.create_table(
        "service_flavors",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("flavor_profile_id", sa.String(36), nullable=False),
        sa.ForeignKeyConstraint(
            ["flavor_profile_id"],
            ["flavor_profiles.id"],
            name=op.f("fk_service_flavors_flavor_profile_id_flavor_profiles"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_service_flavors")),
        sa.UniqueConstraint("name", name=op.f("uq_service_flavors_name")),
    )


def downgrade() -> None:
    op.drop_table("service_flavors")
    op.drop_table("flavor_profiles")
