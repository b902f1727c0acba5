"""Background state: one row per name (``leader``, ``mirror``), written by the process that
runs the background loops and read by every process on the same database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite

from flavorsmith.db.models import BackgroundState
from flavorsmith.store.sql import Prepared


@dataclass(frozen=True)
class Entry:
    """A row as read: who wrote it, when, and what."""

    name: str
    holder: str
    updated_at: datetime
    state: dict[str, Any]


def save(
    connection: Connection, name: str, holder: str, at: datetime, state: dict[str, Any]
) -> None:
    """Create or replace the row ``name`` inside the caller's transaction."""
    insert = (postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert)(
        BackgroundState
    )
    values = {"holder": holder, "updated_at": at, "state": state}
    connection.execute(
        insert.values(name=name, **values).on_conflict_do_update(
            index_elements=[BackgroundState.name], set_=values
        )
    )


def load(connection: Connection, name: str) -> Entry | None:
    row = connection.execute(
        select(BackgroundState.holder, BackgroundState.updated_at, BackgroundState.state).where(
            BackgroundState.name == name
        )
    ).first()
    if row is None:
        return None
    return Entry(name, row.holder, row.updated_at, dict(row.state))


# Whether a row is there, asked on the driver: the node service asks for the mirror's on every
# node write (SQLAlchemy's execute of a select of the row cost a trait write 0.4 ms, a third of
# its time; the row is read whole only when it is there).
_EXISTS = Prepared(select(BackgroundState.name).where(BackgroundState.name == bindparam("name")))


def exists(connection: Connection, name: str) -> bool:
    """Is there a row ``name``?"""
    return _EXISTS.scalar(connection, {"name": name}) is not None


def remove(connection: Connection, name: str) -> None:
    """Delete the row ``name`` (if any) inside the caller's transaction."""
    connection.execute(delete(BackgroundState).where(BackgroundState.name == name))
