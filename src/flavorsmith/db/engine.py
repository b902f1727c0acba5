"""Engines: SQLite tuned for concurrent writers (WAL, busy timeout), PostgreSQL as is."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from flavorsmith.config import sqlite_folder

# How long a SQLite writer waits for another one before giving up.
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    database = parsed.database or ""
    in_memory = database in ("", ":memory:")
    sqlite_folder(database, create=True)  # ConfigError unless it exists or is the default
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if in_memory:
        kwargs["poolclass"] = StaticPool
    engine = create_engine(url, **kwargs)
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself, so writers can take the lock up front.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_on_begin(connection: Any) -> None:
    # A transaction that will write asks for the write lock at BEGIN: two deferred transactions
    # that both upgrade to writers deadlock, and SQLite then fails one with "database is locked".
    mode = "IMMEDIATE" if connection.get_execution_options().get("writer") else "DEFERRED"
    connection.exec_driver_sql(f"BEGIN {mode}")


def writer(engine: Engine) -> Engine:
    """The engine for transactions that write: on SQLite they take the write lock at BEGIN."""
    return engine.execution_options(writer=True)


def consistent(engine: Engine) -> Engine:
    """An engine whose transactions see one snapshot (SQLite's WAL readers always do)."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


def describe(url: str) -> str:
    """The URL without its password, for logs and start-up messages."""
    return make_url(url).render_as_string(hide_password=True)
