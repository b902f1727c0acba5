"""What every store module shares, written once: rows as dicts, the locked lookup, keyset pages
in SQL and the transaction-scoped unique check. Generation counters live in
:mod:`flavorsmith.store.generations`. (Callers above the store name the Connection and
Engine types through :mod:`flavorsmith.db.engine`.)"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import (
    ColumnElement,
    Connection,
    FromClause,
    Select,
    Table,
    and_,
    false,
    literal,
    or_,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql import Executable

from flavorsmith.errors import NotFound

__all__ = [
    "Duplicate",
    "Prepared",
    "RowWriter",
    "as_dict",
    "fetch_all",
    "fetch_one",
    "find",
    "keyset",
    "keyset_by",
    "locked",
    "unique",
]

S = TypeVar("S", bound=Select[Any])


def as_dict(row: Any) -> dict[str, Any]:
    """A result row as a plain dict of column name to value."""
    return dict(row._mapping)


def fetch_all(connection: Connection, statement: Any) -> list[dict[str, Any]]:
    """Every row as a dict (``as_dict``'s), the column names read once for all of them."""
    result = connection.execute(statement)
    keys = list(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result.all()]


def fetch_one(
    connection: Connection, statement: Any, params: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    found = connection.execute(statement, params).first()
    return None if found is None else as_dict(found)


class RowWriter:
    """Bulk INSERTs naming every column given, as the DB-API cursor's executemany of tuples
    (no per-row work in SQLAlchemy: no Python defaults, no parameter dicts). ``value(name, v)``
    is ``v`` as the driver takes it (the column type's bind processor, as SQLAlchemy would
    apply it: JSON text, SQLite's datetime text), so rows are stored exactly as Core stores
    them, on SQLite and PostgreSQL alike."""

    def __init__(self, connection: Connection, table: FromClause, names: Sequence[str]) -> None:
        dialect = connection.dialect
        self.connection = connection
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.processors = [
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
        ]
        # Columns a row may leave out when NULL: no server default would fill them instead.
        self._nullable = [table.c[name].server_default is None for name in names]
        self._quote = dialect.identifier_preparer.quote
        self._table = table.name if isinstance(table, Table) else str(table)
        self._mark = "?" if dialect.paramstyle == "qmark" else "%s"  # qmark, format, pyformat

    def value(self, name: str, value: Any) -> Any:
        process = self.processors[self.index[name]]
        return value if process is None else process(value)

    def row(self, values: Mapping[str, Any]) -> list[Any]:
        """A row of ``values`` by column name (every column of the writer's), processed."""
        return [self.value(name, values[name]) for name in self.names]

    def insert(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert ``rows``, leaving out the columns that are NULL in every row and have no
        server default (not named, they are NULL all the same; the database binds fewer
        values)."""
        if not rows:
            return
        used = [
            i
            for i, nullable in enumerate(self._nullable)
            if not nullable or any(row[i] is not None for row in rows)
        ]
        quote = self._quote
        sql = (
            f"INSERT INTO {quote(self._table)} "
            f"({', '.join(quote(self.names[i]) for i in used)}) "
            f"VALUES ({', '.join([self._mark] * len(used))})"
        )
        pick = operator.itemgetter(*used)
        picked = [pick(row) for row in rows] if len(used) > 1 else [(pick(r),) for r in rows]
        self.connection.exec_driver_sql(sql, picked)


def locked(connection: Connection, statement: S, lock: bool) -> S:
    """``statement`` locking the rows it reads until the transaction ends, when ``lock``:
    SELECT ... FOR UPDATE on PostgreSQL; SQLite needs nothing, since a writer holds the
    database's only write lock from its first statement (see ``db.engine.writer``)."""
    if lock and connection.dialect.name == "postgresql":
        return statement.with_for_update()
    return statement


def find(
    connection: Connection,
    statement: Select[Any],
    *,
    missing: str,
    lock: bool = False,
    params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The one row ``statement`` selects (locked with ``lock``), with its bound ``params``;
    NotFound(``missing``) if none."""
    found = fetch_one(connection, locked(connection, statement, lock), params)
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
    """A keyset page of ``statement`` in SQL: ordered by ``column`` then the unique ``ident``,
    both in the same direction (NULLs first ascending, last descending, on both databases),
    starting after the row whose (column, ident) values are ``after``, at most ``limit``
    rows."""
    if column.key == ident.key:
        return keyset_by(
            statement,
            [],
            ident,
            ident_ascending=ascending,
            after=None if after is None else (after[1],),
            limit=limit,
        )
    return keyset_by(
        statement, [(column, ascending)], ident, ident_ascending=ascending, after=after, limit=limit
    )


def keyset_by(
    statement: S,
    keys: Sequence[tuple[Any, bool]],
    ident: Any,
    *,
    ident_ascending: bool = True,
    after: tuple[Any, ...] | None = None,
    limit: int | None = None,
) -> S:
    """A keyset page of ``statement`` in SQL, ordered by several ``keys`` (column, ascending),
    each with NULLs first ascending and last descending, then by the unique ``ident``;
    ``after`` holds the values of the row to start after: one per key, then its ident."""
    order = [c.asc().nulls_first() if up else c.desc().nulls_last() for c, up in keys]
    statement = statement.order_by(*order, ident.asc() if ident_ascending else ident.desc())
    if after is not None:
        statement = statement.where(_beyond([*keys, (ident, ident_ascending)], after))
    if limit is not None:
        statement = statement.limit(limit)
    return statement


def _beyond(keys: Sequence[tuple[Any, bool]], values: Sequence[Any]) -> ColumnElement[bool]:
    """Rows strictly after ``values`` in the order of ``keys``: equal on the first keys and
    beyond on the next one, for some split."""
    alternatives: list[ColumnElement[bool]] = []
    equal: list[ColumnElement[bool]] = []
    for (column, ascending), value in zip(keys, values, strict=True):
        alternatives.append(and_(*equal, _past(column, value, ascending)))
        equal.append(column.is_(None) if value is None else column == _bound(column, value))
    return or_(*alternatives)


def _past(column: Any, value: Any, ascending: bool) -> ColumnElement[bool]:
    if value is None:  # NULLs come first ascending, last descending
        return column.isnot(None) if ascending else false()
    bound = _bound(column, value)
    return column > bound if ascending else or_(column < bound, column.is_(None))


def _bound(column: Any, value: Any) -> Any:
    return literal(value, column.type)  # a bound value, even for True and False


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


class _Compiled:
    """One statement in one database's SQL: the text, its parameters in the driver's order
    with their defaults and the conversions SQLAlchemy would apply, and the result columns."""

    def __init__(self, statement: Any, dialect: Dialect, column_keys: Sequence[str] | None):
        compiled = statement.compile(dialect=dialect, column_keys=column_keys)
        self.sql = compiled.string
        self.positional = bool(dialect.positional)
        names = list(compiled.positiontup or ()) if self.positional else list(compiled.binds)
        # (the name in the SQL, the name the caller gives, given or a default, the conversion)
        self.params: list[tuple[str, str, bool, Any, Callable[[Any], Any] | None]] = []
        for name in names:
            bind = compiled.binds[name]
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            self.params.append((name, bind.key, bind.required, bind.value, convert))
        self.columns: list[str] = []
        if isinstance(statement, Select):
            for column in statement.selected_columns:
                impl = column.type.dialect_impl(dialect)
                if impl.result_processor(dialect, None) is not None:
                    raise TypeError(
                        f"{column.key}: its values need converting; read it with execute"
                    )
                self.columns.append(str(column.key))

    def values(self, given: Mapping[str, Any]) -> Any:
        out = []
        for _, key, required, default, convert in self.params:
            value = given[key] if required or key in given else default
            out.append(value if convert is None or value is None else convert(value))
        if self.positional:
            return tuple(out)
        return {name: value for (name, *_), value in zip(self.params, out, strict=True)}


class Prepared:
    """A Core statement compiled once per kind of database and run on the transaction's own
    driver cursor: what SQLAlchemy's execute does for a cached statement (the same SQL, the
    same parameter conversions) without its per-call machinery, which cost several times the
    statement on SQLite. For the short statements of hot writes; a select only of columns
    whose values the driver returns as they are (integers and strings)."""

    def __init__(self, statement: Executable, *, column_keys: Sequence[str] | None = None):
        self.statement = statement
        self.column_keys = column_keys
        self._compiled: dict[tuple[str, str], _Compiled] = {}

    def _for(self, connection: Connection) -> _Compiled:
        dialect = connection.dialect
        key = (dialect.name, dialect.paramstyle)
        found = self._compiled.get(key)
        if found is None:
            found = self._compiled[key] = _Compiled(self.statement, dialect, self.column_keys)
        return found

    def _cursor(self, connection: Connection, params: Mapping[str, Any] | None) -> Any:
        compiled = self._for(connection)
        cursor = connection.connection.cursor()
        try:
            cursor.execute(compiled.sql, compiled.values(params or {}))
        except BaseException:
            cursor.close()
            raise
        return cursor

    def run(self, connection: Connection, params: Mapping[str, Any] | None = None) -> int:
        """Execute once with ``params``; how many rows it changed."""
        cursor = self._cursor(connection, params)
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()

    def run_many(self, connection: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
        compiled = self._for(connection)
        cursor = connection.connection.cursor()
        try:
            cursor.executemany(compiled.sql, [compiled.values(row) for row in rows])
        finally:
            cursor.close()

    def first(
        self, connection: Connection, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The first row the select returns, as a dict of column name to value; None if none."""
        compiled = self._for(connection)
        cursor = self._cursor(connection, params)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else dict(zip(compiled.columns, row, strict=True))

    def scalar(self, connection: Connection, params: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row (None if no row)."""
        cursor = self._cursor(connection, params)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else row[0]

    def column(self, connection: Connection, params: Mapping[str, Any] | None = None) -> list[Any]:
        """The first column of every row."""
        cursor = self._cursor(connection, params)
        try:
            return [row[0] for row in cursor.fetchall()]
        finally:
            cursor.close()


@dataclass(frozen=True)
class Page:
    """A keyset page that knows whether rows precede and follow it (Octavia's lists link
    both ways)."""

    rows: list[dict[str, Any]]
    more_before: bool  # rows precede the page
    more_after: bool  # rows follow it
