"""The immediate writer: short writes on a SQLite file that never wait, and the checkpoints of
the write-ahead log they leave to worker threads.

One ``ImmediateWriter`` per application (``api.services.Services.immediate``, made by
``create_app``), which owns everything it keeps: its engine of one connection, the Connection
kept from write to write, the count of writes since the last checkpoint was due and the
Future of the checkpoint that holds writes."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

from flavorsmith.db.engine import sqlite_on_begin, sqlite_on_connect

T = TypeVar("T")

log = logging.getLogger("flavorsmith.db")

# How many writes of ``write`` between two checkpoints of the write-ahead log. Its connection
# never checkpoints by itself (a checkpoint copies pages into the database file and syncs it:
# milliseconds on a busy disk, which would stall the event loop); the caller has the
# checkpoint run on a worker thread instead. About SQLite's own default of 1,000 pages, at a
# few pages a write.
CHECKPOINT_EVERY = 200

# How long a checkpoint waits for a writer to finish, or for readers to leave the pages it
# copies, before it gives up until the next one (it holds the write lock while it waits for
# readers: writes wait at most this long for it).
CHECKPOINT_WAIT_MS = 20
# How many times a checkpoint is tried while another connection's is running (a writer on a
# worker thread checkpoints by itself, as SQLite does, once the log is long), a while apart.
CHECKPOINT_TRIES = 4


# How long ``write_when_free`` first waits for another writer's lock, and at most between two
# tries (SQLite's own busy handler waits from 1 to 100 ms).
FIRST_PAUSE_S = 0.001
LONGEST_PAUSE_S = 0.05


class WriterBusy(Exception):
    """``ImmediateWriter.write`` could not start at once: another writer holds the lock
    (``error``: the driver's, "database is locked"), or a checkpoint holds writes. Nothing was
    done."""

    def __init__(self, message: str, error: BaseException | None = None) -> None:
        super().__init__(message)
        self.error = error


class ImmediateWriter:
    """For a SQLite file: writing transactions that never wait, for short writes made on the
    event loop itself (a node's traits: a few statements, a fraction of a millisecond,
    cheaper than the hop to a worker thread and back). Its BEGIN fails at once (``database
    is locked``) when another writer holds the lock, and its one connection is never waited
    for (it serves one transaction at a time, on one thread): the caller then does the work
    on a worker thread as usual. ``for_engine`` says None for any other database (a network
    round trip, or a connection pool that may make it wait, never runs on the loop) and for
    an in-memory SQLite database (one connection, shared with the worker threads)."""

    def __init__(self, engine: Engine, busy_s: float | None = None) -> None:
        """``engine``: the application's engine of a SQLite file (its checkpoints run there);
        ``busy_s``: how long ``write_when_free`` waits for another writer's lock (None: as long
        as ``engine``'s connections wait, read from one the first time it is needed)."""
        self.engine = engine
        self._busy_s = busy_s
        self._own = create_engine(
            engine.url,
            poolclass=StaticPool,
            connect_args={"check_same_thread": False},
            execution_options={"writer": True},
        )
        event.listen(self._own, "connect", _on_connect)
        event.listen(self._own, "begin", sqlite_on_begin)
        # One Connection kept from write to write (its pool has the one driver connection
        # anyway): a checkout and a return cost a short write a tenth of its time.
        self._connection: Connection | None = None
        self._writes = 0  # since the last time ``checkpoint_due`` said so
        self._held: Future[None] | None = None  # from ``hold_writes`` until ``checkpoint``

    @classmethod
    def for_engine(cls, engine: Engine) -> ImmediateWriter | None:
        """An immediate writer beside ``engine`` when it is a SQLite file's; else None."""
        url = engine.url
        database = url.database or ""
        if url.get_backend_name() != "sqlite" or database in ("", ":memory:"):
            return None
        if database.startswith("file:"):  # a URI (a read-only or shared-cache one): as is
            return None
        return cls(engine)

    def connect(self) -> Connection:
        """A connection of its own engine (one at a time), e.g. to read its settings."""
        return self._own.connect()

    def write(self, work: Callable[[Connection], T]) -> T:
        """``work`` in one writing transaction, on this thread and without waiting for
        anything; WriterBusy (nothing done) when that cannot be."""
        if self._held is not None:
            raise WriterBusy("a checkpoint of the write-ahead log is due")
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            connection = self._connection = self._own.connect()
        try:
            try:
                transaction = connection.begin()
            except (DBAPIError, sqlite3.OperationalError) as exc:
                # BEGIN is sent on the driver's cursor (``sqlite_on_begin``): its own error.
                driver = exc.orig if isinstance(exc, DBAPIError) else exc
                if getattr(driver, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY:
                    raise WriterBusy(str(driver), exc) from None
                raise
            with transaction:
                result = work(connection)
        except BaseException:
            # Any failure closes it, and the next write opens another.
            self._connection = None
            connection.close()
            raise
        self._writes += 1
        return result

    async def write_when_free(self, work: Callable[[Connection], T]) -> T:
        """``work`` in one writing transaction on the calling event loop (``write``), once no
        checkpoint holds writes and no other writer holds the lock: meanwhile this waits
        without holding a thread, trying again a while apart as SQLite's busy handler would,
        for as long as a worker thread's writer would wait (``busy_s``); then the driver's
        "database is locked", as that writer would raise it."""
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        pause = FIRST_PAUSE_S
        while True:
            held = self._held
            if held is not None:
                # A few milliseconds, as a worker thread would wait for the write lock; writes
                # meanwhile would keep the checkpoint from restarting the log.
                await asyncio.shield(asyncio.wrap_future(held))
                continue
            try:
                return self.write(work)
            except WriterBusy as busy:
                if deadline is None:
                    deadline = loop.time() + self.busy_s()
                left = deadline - loop.time()
                if left <= 0 and busy.error is not None:
                    raise busy.error from None
            await asyncio.sleep(max(0.0, min(pause, left)))
            pause = min(2 * pause, LONGEST_PAUSE_S)

    def busy_s(self) -> float:
        """How long a write waits for another writer's lock, in seconds."""
        if self._busy_s is None:
            with self.engine.connect() as connection:
                busy_ms = connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one()
            self._busy_s = int(busy_ms) / 1000
        return self._busy_s

    def checkpoint_due(self) -> bool:
        """Whether ``write`` has written enough since the last time this said so for a
        checkpoint to be run: ``copy_log``, then ``hold_writes`` and ``checkpoint``."""
        if self._writes < CHECKPOINT_EVERY:
            return False
        self._writes = 0
        return True

    def copy_log(self) -> None:
        """A passive checkpoint of the write-ahead log on one of the application engine's
        connections: most of a checkpoint's work (copying pages back into the database file
        and syncing it) while writes go on, so that ``checkpoint`` after it holds writes only
        briefly. A failure is logged, never raised."""
        try:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception as exc:  # a disposed engine, a database gone: nothing to stop for
            log.warning("checkpoint of the write-ahead log failed: %s", exc)

    def hold_writes(self) -> None:
        """``write`` refuses (WriterBusy) until ``checkpoint`` has run: the checkpoint then
        finds the write lock free, and no write on the event loop lengthens the log
        meanwhile. ``held`` says so meanwhile, for writers that would rather wait."""
        if self._held is None:
            held: Future[None] = Future()
            held.set_running_or_notify_cancel()  # never cancelled by one who waits for it
            self._held = held

    def held(self) -> Future[None] | None:
        """While ``hold_writes`` holds writes: a Future done once ``checkpoint`` has run (a
        few milliseconds), for a writer to wait for before it writes; else None."""
        return self._held

    def checkpoint(self) -> None:
        """A restarting checkpoint of the write-ahead log on one of the application engine's
        connections: every page copied back into the database, and the next write starts the
        log again from its beginning. A passive one (which never takes the write lock) cannot
        end with the log reset while writes keep coming: the log then grows without end
        (hundreds of megabytes after a few thousand trait writes) and every commit appends
        to a longer file. This one waits at most CHECKPOINT_WAIT_MS for a writer or readers
        (or, a few times, for another connection's checkpoint to end), else gives up until
        the next one with as much copied as it could. ``write`` refuses from ``hold_writes``
        until this has run. A failure is logged, never raised (the next one, or SQLite's own
        on another connection, does the work)."""
        try:
            with self.engine.connect() as connection:
                busy_ms = connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one()
                connection.exec_driver_sql(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
                try:
                    for _ in range(CHECKPOINT_TRIES):
                        sql = "PRAGMA wal_checkpoint(RESTART)"
                        _, pages, _ = connection.exec_driver_sql(sql).one()
                        if pages != -1:  # -1: another connection's checkpoint was running
                            break
                        time.sleep(CHECKPOINT_WAIT_MS / 1000 / CHECKPOINT_TRIES)
                finally:
                    connection.exec_driver_sql(f"PRAGMA busy_timeout={int(busy_ms)}")
        except Exception as exc:  # a disposed engine, a database gone: nothing to stop for
            log.warning("checkpoint of the write-ahead log failed: %s", exc)
        finally:
            held, self._held = self._held, None
            if held is not None:
                held.set_result(None)

    def dispose(self) -> None:
        """Close its connection (a later write opens another)."""
        self._connection = None
        self._own.dispose()


def _on_connect(dbapi_connection: Any, record: Any) -> None:
    sqlite_on_connect(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")  # a held lock is an error at once, not a wait
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # see CHECKPOINT_EVERY
    cursor.close()
