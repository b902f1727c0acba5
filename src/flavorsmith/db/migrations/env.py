"""Alembic environment: runs migrations on the engine handed in by flavorsmith.db.migrate."""

from __future__ import annotations

from alembic import context

from flavorsmith.db.models import Base

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
