"""Octavia's nil placeholder profile, and service flavors whose name may be null.

Octavia 19 keeps a flavor profile with the nil UUID (``DELETED-PLACEHOLDER``, provider
``DELETED``, flavor data ``{}``; its migration e37941b010db): flavors may be created on it,
and the API hides it. A flavor's name may be null, as in Octavia (NULLs never clash on the
unique name, on SQLite and PostgreSQL alike).

Downgrading names each flavor without a name after its id, and removes the placeholder
unless flavors use it (it then stays, an ordinary profile of the older schema).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

NIL = "00000000-0000-0000-0000-000000000000"
PROFILES = sa.table(
    "flavor_profiles",
    sa.column("id", sa.String(36)),
    sa.column("name", sa.String(255)),
    sa.column("provider_name", sa.String(255)),
    sa.column("flavor_data", sa.String(4096)),
)
FLAVORS = sa.table(
    "service_flavors",
    sa.column("id", sa.String(36)),
    sa.column("name", sa.String(255)),
    sa.column("flavor_profile_id", sa.String(36)),
)


def upgrade() -> None:
    # Unless a downgrade left it in place (used by flavors).
    present = sa.select(PROFILES.c.id).where(PROFILES.c.id == NIL).exists()
    placeholder = sa.select(
        sa.literal(NIL),
        sa.literal("DELETED-PLACEHOLDER"),
        sa.literal("DELETED"),
        sa.literal("{}"),
    ).where(~present)
    op.execute(PROFILES.insert().from_select(list(PROFILES.c), placeholder))
    with op.batch_alter_table("service_flavors") as batch:
        batch.alter_column("name", existing_type=sa.String(255), nullable=True)


def downgrade() -> None:
    op.execute(FLAVORS.update().where(FLAVORS.c.name.is_(None)).values(name=FLAVORS.c.id))
    with op.batch_alter_table("service_flavors") as batch:
        batch.alter_column("name", existing_type=sa.String(255), nullable=False)
    used = sa.select(FLAVORS.c.id).where(FLAVORS.c.flavor_profile_id == NIL).exists()
    op.execute(PROFILES.delete().where(PROFILES.c.id == NIL, ~used))
