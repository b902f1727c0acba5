"""What every store module shares, written once: rows as dicts, the locked lookup, keyset pages
in SQL and the transaction-scoped unique check. Generation counters live in
:mod:`flavorsmith.store.generations`.

Callers above the store pass a :class:`Connection` (or an :class:`Engine`) through; both are
re-exported here so that services and handlers name their types without importing the database
toolkit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, Engine, Select, and_, false, literal, or_
from sqlalchemy.exc import IntegrityError

from flavorsmith.errors import NotFound

__all__ = [
    "Connection",
    "Duplicate",
    "Engine",
    "as_dict",
    "fetch_all",
    "fetch_one",
    "find",
    "keyset",
    "locked",
    "unique",
]

S = TypeVar("S", bound=Select[Any])


def as_dict(row: Any) -> dict[str, Any]:
    """A result row as a plain dict of column name to value."""
    return dict(row._mapping)


def fetch_all(connection: Connection, statement: Any) -> list[dict[str, Any]]:
    return [as_dict(r) for r in connection.execute(statement)]


def fetch_one(connection: Connection, statement: Any) -> dict[str, Any] | None:
    found = connection.execute(statement).first()
    return None if found is None else as_dict(found)


def locked(connection: Connection, statement: S, lock: bool) -> S:
    """``statement`` locking the rows it reads until the transaction ends, when ``lock``:
    SELECT ... FOR UPDATE on PostgreSQL; SQLite needs nothing, since a writer holds the
    database's only write lock from its first statement (see ``db.engine.writer``)."""
    if lock and connection.dialect.name == "postgresql":
        return statement.with_for_update()
    return statement


def find(
    connection: Connection, statement: Select[Any], *, missing: str, lock: bool = False
) -> dict[str, Any]:
    """The one row ``statement`` selects (locked with ``lock``); NotFound(``missing``) if none."""
    found = fetch_one(connection, locked(connection, statement, lock))
    if found is None:
        raise NotFound(missing)
    return found


def keyset(
    statement: S,
    column: Any,
    ident: Any,
    *,
    ascending: bool,
    after: tuple[Any, Any] | None = None,
    limit: int | None = None,
) -> S:
    """A keyset page of ``statement`` in SQL: ordered by ``column`` then the unique ``ident``
    (NULLs first ascending, last descending, on both databases), starting after the row whose
    (column, ident) values are ``after``, at most ``limit`` rows."""
    if ascending:
        statement = statement.order_by(column.asc().nulls_first(), ident.asc())
    else:
        statement = statement.order_by(column.desc().nulls_last(), ident.desc())
    if after is not None:
        statement = statement.where(_beyond(column, ident, after, ascending))
    if limit is not None:
        statement = statement.limit(limit)
    return statement


def _beyond(
    column: Any, ident: Any, after: tuple[Any, Any], ascending: bool
) -> ColumnElement[bool]:
    value, marker_id = after
    id_after: ColumnElement[bool] = ident > marker_id if ascending else ident < marker_id
    if column.key == ident.key:
        return id_after
    if value is None:
        same = and_(column.is_(None), id_after)
        return or_(same, column.isnot(None)) if ascending else same
    value = literal(value, column.type)  # a bound value, even for True and False
    beyond = column > value if ascending else column < value
    rest: ColumnElement[bool] = false() if ascending else column.is_(None)
    return or_(beyond, and_(column == value, id_after), rest)


class Duplicate(Exception):
    """A write broke a unique or foreign-key constraint (a concurrent writer won the race)."""


@contextmanager
def unique(connection: Connection) -> Iterator[None]:
    """Run the writes inside in a savepoint; a constraint violation rolls back only them and
    raises :class:`Duplicate`, leaving the transaction usable."""
    try:
        with connection.begin_nested():
            yield
    except IntegrityError:
        raise Duplicate from None
