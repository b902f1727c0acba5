"""Capacity samples: the counts of each flavor and resource class the leader takes every few
minutes (``matching.trends.Count``), kept for a bounded time and read back as series."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Connection, delete, insert, select

from flavorsmith.db.models import CapacitySample
from flavorsmith.matching.trends import Count, Sample, Scope


@dataclass
class Series:
    """The stored samples of one flavor or resource class, oldest first."""

    scope: Scope
    name: str
    resource_class: str  # the newest sample's
    samples: list[Sample] = field(default_factory=list)


def _utc(at: datetime) -> datetime:
    """``at`` in UTC: SQLite gives back the naive UTC time it was given."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def add(connection: Connection, at: datetime, counts: Iterable[Count]) -> int:
    """Store one sample taken at ``at``: a row per count. The number of rows."""
    rows = [
        {
            "scope": c.scope,
            "name": c.name,
            "taken_at": _utc(at),
            "resource_class": c.resource_class,
            "total": c.total,
            "sellable": c.sellable,
            "used": c.used,
        }
        for c in counts
    ]
    if rows:
        connection.execute(insert(CapacitySample), rows)
    return len(rows)


def prune(connection: Connection, before: datetime) -> int:
    """Delete the samples taken before ``before``; how many were."""
    done = connection.execute(delete(CapacitySample).where(CapacitySample.taken_at < _utc(before)))
    return done.rowcount or 0


def read(
    connection: Connection,
    *,
    since: datetime,
    scope: Scope | None = None,
    names: Collection[str] | None = None,
    resource_class: str | None = None,
) -> list[Series]:
    """The series with samples taken at ``since`` or later, by scope then name; only those of
    ``scope``, of ``names`` and of ``resource_class`` when given."""
    statement = select(
        CapacitySample.scope,
        CapacitySample.name,
        CapacitySample.taken_at,
        CapacitySample.resource_class,
        CapacitySample.total,
        CapacitySample.sellable,
        CapacitySample.used,
    ).where(CapacitySample.taken_at >= _utc(since))
    if scope is not None:
        statement = statement.where(CapacitySample.scope == scope)
    if names is not None:
        statement = statement.where(CapacitySample.name.in_(sorted(names)))
    if resource_class is not None:
        statement = statement.where(CapacitySample.resource_class == resource_class)
    statement = statement.order_by(
        CapacitySample.scope, CapacitySample.name, CapacitySample.taken_at
    )
    found: dict[tuple[str, str], Series] = {}
    for row in connection.execute(statement):
        key = (row.scope, row.name)
        series = found.get(key)
        if series is None:
            series = found[key] = Series(row.scope, row.name, row.resource_class)
        series.resource_class = row.resource_class
        series.samples.append(Sample(_utc(row.taken_at), row.total, row.sellable, row.used))
    # (sorted here: PostgreSQL's collation may order names otherwise than SQLite)
    return sorted(found.values(), key=lambda s: (s.scope, s.name))
