"""Engines: SQLite tuned for concurrent writers (WAL, busy timeout), PostgreSQL as is."""

from __future__ import annotations

import functools
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import StaticPool

from flavorsmith.config import ConfigError, sqlite_folder
from flavorsmith.db import deadline
from flavorsmith.db.deadline import Timeouts

# The handles the layers above the stores pass around without speaking SQL themselves.
__all__ = [
    "Connection",
    "Engine",
    "WriterBusy",
    "check_database_url",
    "checkpoint",
    "checkpoint_due",
    "checkpoint_held",
    "copy_log",
    "describe",
    "hold_writes",
    "immediate_writer",
    "is_sqlite",
    "make_engine",
    "ping",
    "read_only_engine",
    "write_now",
    "writer",
]

T = TypeVar("T")

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
    engine.__dict__[_BUSY] = busy_ms
    event.listen(engine, "connect", functools.partial(_sqlite_on_connect, busy_ms=busy_ms))
    event.listen(engine, "begin", _sqlite_on_begin)
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


# Where make_engine keeps a SQLite engine's busy timeout, in milliseconds.
_BUSY = "_flavorsmith_busy_ms"


def _sqlite_on_connect(
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


def _sqlite_on_begin(connection: Any) -> None:
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
    Made once per engine and kept on it (making it cost as much as a short statement)."""
    found: Engine | None = engine.__dict__.get(_WRITER)
    if found is None:
        found = engine.__dict__[_WRITER] = engine.execution_options(writer=True)
    return found


# Where ``writer`` keeps an engine's writing engine.
_WRITER = "_flavorsmith_writer"


def immediate_writer(engine: Engine) -> Engine | None:
    """For a SQLite file: an engine of one connection whose writing transactions never wait,
    for short writes made on the event loop itself (a node's traits: a few statements, a
    fraction of a millisecond, cheaper than the hop to a worker thread and back). Its BEGIN
    fails at once (``database is locked``) when another writer holds the lock, and its one
    connection is never waited for (it serves one transaction at a time, on one thread): the
    caller then does the work on a worker thread as usual. None for any other database (a
    network round trip, or a connection pool that may make it wait, never runs on the loop)
    and for an in-memory SQLite database (one connection, shared with the worker threads).
    Made once per engine and kept on it."""
    if _IMMEDIATE in engine.__dict__:
        found: Engine | None = engine.__dict__[_IMMEDIATE]
        return found
    found = None
    url = engine.url
    database = url.database or ""
    if url.get_backend_name() == "sqlite" and database not in ("", ":memory:"):
        if database.startswith("file:"):  # a URI (a read-only or shared-cache one): as is
            engine.__dict__[_IMMEDIATE] = None
            return None
        found = create_engine(
            url,
            poolclass=StaticPool,
            connect_args={"check_same_thread": False},
            execution_options={"writer": True},
        )
        event.listen(found, "connect", _sqlite_on_connect_immediate)
        event.listen(found, "begin", _sqlite_on_begin)
    engine.__dict__[_IMMEDIATE] = found
    return found


class WriterBusy(Exception):
    """``write_now`` could not start at once: the database is not a SQLite file, or another
    writer holds its lock. Nothing was done."""


def write_now(engine: Engine, work: Callable[[Connection], T]) -> T:
    """``work`` in one writing transaction on ``immediate_writer(engine)``, on this thread
    and without waiting for anything; WriterBusy (nothing done) when that cannot be."""
    immediate = immediate_writer(engine)
    if immediate is None:
        raise WriterBusy("no immediate writer for this database")
    if immediate.__dict__.get(_HELD) is not None:
        raise WriterBusy("a checkpoint of the write-ahead log is due")
    # One Connection kept from write to write (its pool has the one driver connection
    # anyway): a checkout and a return cost a short write a tenth of its time. Any failure
    # closes it, and the next write opens another.
    connection: Connection | None = immediate.__dict__.get(_CONNECTION)
    if connection is None or connection.closed or connection.invalidated:
        connection = immediate.__dict__[_CONNECTION] = immediate.connect()
    try:
        try:
            transaction = connection.begin()
        except (DBAPIError, sqlite3.OperationalError) as exc:
            # BEGIN is sent on the driver's cursor (``_sqlite_on_begin``): its own error.
            driver = exc.orig if isinstance(exc, DBAPIError) else exc
            if getattr(driver, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY:
                raise WriterBusy(str(driver)) from None
            raise
        with transaction:
            result = work(connection)
    except BaseException:
        immediate.__dict__.pop(_CONNECTION, None)
        connection.close()
        raise
    immediate.__dict__[_WRITES] = immediate.__dict__.get(_WRITES, 0) + 1
    return result


# How many writes of ``write_now`` between two checkpoints of the write-ahead log. Its
# connection never checkpoints by itself (a checkpoint copies pages into the database file
# and syncs it: milliseconds on a busy disk, which would stall the event loop); the caller
# has the checkpoint run on a worker thread instead. About SQLite's own default of 1,000
# pages, at a few pages a write.
CHECKPOINT_EVERY = 200

# How long a checkpoint waits for a writer to finish, or for readers to leave the pages it
# copies, before it gives up until the next one (it holds the write lock while it waits for
# readers: writes wait at most this long for it).
CHECKPOINT_WAIT_MS = 20
# How many times a checkpoint is tried while another connection's is running (a writer on a
# worker thread checkpoints by itself, as SQLite does, once the log is long), a while apart.
CHECKPOINT_TRIES = 4

# Where an immediate writer counts its writes since the last checkpoint was due, and keeps
# the Future of the checkpoint that holds its writes (from ``hold_writes`` until
# ``checkpoint`` has run): the one record of a checkpoint to wait for.
_WRITES = "_flavorsmith_writes"
_HELD = "_flavorsmith_held"


def checkpoint_due(engine: Engine) -> bool:
    """Whether ``write_now`` has written enough on ``engine`` since the last time this said
    so for a checkpoint to be run: ``copy_log``, then ``hold_writes`` and ``checkpoint``."""
    immediate = engine.__dict__.get(_IMMEDIATE)
    if immediate is None or immediate.__dict__.get(_WRITES, 0) < CHECKPOINT_EVERY:
        return False
    immediate.__dict__[_WRITES] = 0
    return True


def copy_log(engine: Engine) -> None:
    """A passive checkpoint of a SQLite file's write-ahead log on one of ``engine``'s own
    connections: most of a checkpoint's work (copying pages back into the database file and
    syncing it) while writes go on, so that ``checkpoint`` after it holds writes only briefly.
    A failure is logged, never raised."""
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
    except Exception as exc:  # a disposed engine, a database gone: nothing to stop for
        log.warning("checkpoint of the write-ahead log failed: %s", exc)


def hold_writes(engine: Engine) -> None:
    """``write_now`` refuses (WriterBusy) until ``checkpoint`` has run: the checkpoint then
    finds the write lock free, and no write on the event loop lengthens the log meanwhile.
    ``checkpoint_held`` says so meanwhile, for writers that would rather wait."""
    immediate = immediate_writer(engine)
    if immediate is not None and immediate.__dict__.get(_HELD) is None:
        held: Future[None] = Future()
        held.set_running_or_notify_cancel()  # never cancelled by one who waits for it
        immediate.__dict__[_HELD] = held


def checkpoint_held(engine: Engine) -> Future[None] | None:
    """While ``hold_writes`` holds ``engine``'s writes: a Future done once ``checkpoint`` has
    run (a few milliseconds), for a writer to wait for before it writes; else None."""
    immediate = engine.__dict__.get(_IMMEDIATE)
    if immediate is None:
        return None
    held: Future[None] | None = immediate.__dict__.get(_HELD)
    return held


def checkpoint(engine: Engine) -> None:
    """A restarting checkpoint of a SQLite file's write-ahead log on one of ``engine``'s own
    connections: every page copied back into the database, and the next write starts the
    log again from its beginning. A passive one (which never takes the write lock) cannot
    end with the log reset while writes keep coming: the log then grows without end (hundreds
    of megabytes after a few thousand trait writes) and every commit appends to a longer
    file. This one waits at most CHECKPOINT_WAIT_MS for a writer or readers (or, a few
    times, for another connection's checkpoint to end), else gives up until the next one
    with as much copied as it could. ``write_now`` refuses from ``hold_writes`` until this
    has run (the API's short writes wait for it: ``checkpoint_held``). A failure is logged,
    never raised (the next one, or SQLite's own on another connection, does the work)."""
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            try:
                for _ in range(CHECKPOINT_TRIES):
                    _, pages, _ = connection.exec_driver_sql("PRAGMA wal_checkpoint(RESTART)").one()
                    if pages != -1:  # -1: another connection's checkpoint was running
                        break
                    time.sleep(CHECKPOINT_WAIT_MS / 1000 / CHECKPOINT_TRIES)
            finally:
                busy_ms = int(engine.__dict__.get(_BUSY, SQLITE_BUSY_TIMEOUT_MS))
                connection.exec_driver_sql(f"PRAGMA busy_timeout={busy_ms}")
    except Exception as exc:  # a disposed engine, a database gone: nothing to stop for
        log.warning("checkpoint of the write-ahead log failed: %s", exc)
    finally:
        immediate = engine.__dict__.get(_IMMEDIATE)
        held = None if immediate is None else immediate.__dict__.pop(_HELD, None)
        if held is not None:
            held.set_result(None)


# Where ``immediate_writer`` keeps an engine's never-waiting writer (None: it has none), and
# that writer the Connection ``write_now`` uses.
_IMMEDIATE = "_flavorsmith_immediate"
_CONNECTION = "_flavorsmith_connection"


def _sqlite_on_connect_immediate(dbapi_connection: Any, record: Any) -> None:
    _sqlite_on_connect(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")  # a held lock is an error at once, not a wait
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # see CHECKPOINT_EVERY
    cursor.close()


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
