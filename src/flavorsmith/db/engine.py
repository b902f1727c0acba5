"""Engines: SQLite tuned for concurrent writers (WAL, busy timeout), PostgreSQL as is."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from flavorsmith.config import ConfigError, sqlite_folder
from flavorsmith.db import deadline
from flavorsmith.db.deadline import Timeouts

# The handles the layers above the stores pass around without speaking SQL themselves.
__all__ = [
    "Connection",
    "Engine",
    "check_database_url",
    "describe",
    "is_sqlite",
    "make_engine",
    "ping",
    "read_only_engine",
    "writer",
]

log = logging.getLogger("flavorsmith.db")

URL_FORMS = "sqlite:///PATH or postgresql+psycopg://USER@HOST/DATABASE"


def check_database_url(url: str) -> str:
    """``url`` when it names a database this service can open; else ConfigError saying why."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError(f"{url!r} is not a database URL: write {URL_FORMS}") from None
    shown = parsed.render_as_string(hide_password=True)
    parts = [parsed.username, parsed.host, parsed.database, *map(str, parsed.query.values())]
    if any("\x00" in part for part in parts if part):
        # libpq would stop at it and open the database named by what comes before.
        raise ConfigError(f"{shown}: a NUL character (%00) cannot be part of a database URL")
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgres", "postgresql") and (backend, driver) != ("postgresql", "psycopg"):
        fixed = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=True)
        raise ConfigError(f"{shown}: write {fixed} (the psycopg 3 driver this service ships)")
    if backend == "sqlite":
        if driver not in ("", "pysqlite"):
            raise ConfigError(f"{shown}: write {URL_FORMS}")
        sqlite_folder(parsed.database or "")
        return url
    if backend != "postgresql":
        raise ConfigError(f"{shown}: unsupported database {backend!r}: write {URL_FORMS}")
    return url


# How long a SQLite writer waits for another one before giving up.
SQLITE_BUSY_TIMEOUT_MS = 30_000


# How long a PostgreSQL connection attempt may take (unless the URL sets connect_timeout): a
# database host that drops packets must not hold a request, or a worker thread, for minutes.
PG_CONNECT_TIMEOUT_S = 5


def make_engine(url: str, timeouts: Timeouts | None = None) -> Engine:
    """An engine for ``url``. On PostgreSQL: TCP keepalives and ``tcp_user_timeout`` always;
    with ``timeouts`` (the service's), every wait bounded as well — connecting, a free pooled
    connection, each statement on the server and each call on the client (db/deadline.py).
    What the URL's query sets wins over both."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        connect = timeouts.connect if timeouts is not None else PG_CONNECT_TIMEOUT_S
        wanted: dict[str, Any] = {"connect_timeout": connect, **deadline.KEEPALIVES}
        if timeouts is not None:
            wanted["options"] = timeouts.server_options()
        connect_args = {k: v for k, v in wanted.items() if k not in parsed.query}
        pool: dict[str, Any] = {"pool_timeout": timeouts.pool} if timeouts is not None else {}
        engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args, **pool)
        if timeouts is not None:
            deadline.bound(engine, timeouts)
        return engine
    database = parsed.database or ""
    in_memory = database in ("", ":memory:")
    sqlite_folder(database, create=True)  # ConfigError unless it exists or is the default
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if in_memory:
        kwargs["poolclass"] = StaticPool
    engine = create_engine(url, **kwargs)
    busy_ms = int(timeouts.busy * 1000) if timeouts is not None else SQLITE_BUSY_TIMEOUT_MS
    event.listen(engine, "connect", functools.partial(sqlite_on_connect, busy_ms=busy_ms))
    event.listen(engine, "begin", sqlite_on_begin)
    return engine


def read_only_engine(url: str, *, timeout_s: int = 1) -> Engine | None:
    """An engine that can only read, for quick looks such as shell completion: a SQLite file
    opened read-only (None when the file does not exist: nothing is ever created), a
    PostgreSQL server given ``timeout_s`` to answer."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, connect_args={"connect_timeout": timeout_s})
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    path = Path(database).expanduser()
    if not path.is_file():
        return None
    return create_engine(
        f"sqlite:///file:{path}?mode=ro&uri=true", connect_args={"timeout": timeout_s}
    )


def sqlite_on_connect(
    dbapi_connection: Any, _record: Any, busy_ms: int = SQLITE_BUSY_TIMEOUT_MS
) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself, so writers can take the lock up front.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def sqlite_on_begin(connection: Any) -> None:
    # A transaction that will write asks for the write lock at BEGIN: two deferred transactions
    # that both upgrade to writers deadlock, and SQLite then fails one with "database is locked".
    # Sent on the driver's cursor: SQLAlchemy's execute cost more than the BEGIN itself, on
    # every transaction (the driver's errors are known to db/outage.py).
    mode = "IMMEDIATE" if connection.get_execution_options().get("writer") else "DEFERRED"
    cursor = connection.connection.cursor()
    try:
        cursor.execute(f"BEGIN {mode}")
    finally:
        cursor.close()


def writer(engine: Engine) -> Engine:
    """The engine for transactions that write: on SQLite they take the write lock at BEGIN.
    Made on each call (a few microseconds, against tens for the emptiest transaction)."""
    return engine.execution_options(writer=True)


def ping(engine: Engine) -> None:
    """One round trip to the database; the driver's error when it cannot be reached."""
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def consistent(engine: Engine) -> Engine:
    """An engine whose transactions see one snapshot (SQLite's WAL readers always do)."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


def describe(url: str) -> str:
    """The URL without its password, for logs and start-up messages."""
    return make_url(url).render_as_string(hide_password=True)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def new_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL when it does not exist yet (this command would create it)."""
    parsed = make_url(url)
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return None
    if name.startswith("file:"):
        return None
    path = Path(name)
    return None if path.exists() else path


def row_counts(engine: Engine) -> dict[str, int]:
    """Every table's row count: what a command that wrote nothing leaves as it found it."""
    with engine.connect() as connection:
        names = inspect(connection).get_table_names()
        return {
            name: int(connection.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one())
            for name in names
        }
