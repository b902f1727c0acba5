"""Named counters, bumped atomically: the generation numbers that tell caches they are stale."""

from __future__ import annotations

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from flavorsmith.db.models import Counter


def bump(connection: Connection, name: str) -> int:
    """Add one to ``name`` (creating it at 1) inside the caller's transaction; the new value."""
    insert = (postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert)(
        Counter
    )
    statement = (
        insert.values(name=name, value=1)
        .on_conflict_do_update(index_elements=[Counter.name], set_={"value": Counter.value + 1})
        .returning(Counter.value)
    )
    return int(connection.execute(statement).scalar_one())


def read(connection: Connection, name: str) -> int:
    value = connection.execute(select(Counter.value).where(Counter.name == name)).scalar()
    return int(value or 0)
