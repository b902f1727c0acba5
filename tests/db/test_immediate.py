"""The immediate writer: a short write on the calling thread that never waits for a lock or a
connection, and the checkpoints of the write-ahead log it leaves to other threads."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from flavorsmith.db.engine import make_engine, writer
from flavorsmith.db.immediate import CHECKPOINT_EVERY, ImmediateWriter, WriterBusy


def immediate_writer(engine: Engine) -> ImmediateWriter:
    made = ImmediateWriter.for_engine(engine)
    assert made is not None
    return made


def test_writes_at_once_when_the_lock_is_free_and_refuses_while_it_is_held(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
    immediate = immediate_writer(engine)
    assert immediate.write(lambda c: c.execute(text("INSERT INTO t VALUES (1)")).rowcount) == 1
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(WriterBusy, match="database is locked"):
            immediate.write(lambda c: c.execute(text("INSERT INTO t VALUES (2)")))
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert immediate.write(lambda c: c.execute(text("INSERT INTO t VALUES (3)")).rowcount) == 1
    with engine.connect() as connection:
        assert connection.execute(text("SELECT x FROM t ORDER BY x")).scalars().all() == [1, 3]
    # A failed work is rolled back, and the one connection is ready for the next.
    with pytest.raises(ZeroDivisionError):
        immediate.write(lambda c: (c.execute(text("INSERT INTO t VALUES (4)")), 1 / 0))
    assert immediate.write(lambda c: c.execute(text("SELECT count(*) FROM t")).scalar()) == 2
    # Disposed, it opens its connection again on the next write.
    immediate.dispose()
    assert immediate.write(lambda c: c.execute(text("SELECT count(*) FROM t")).scalar()) == 2
    immediate.dispose()
    engine.dispose()


def test_none_for_in_memory_sqlite_and_sqlite_uris(tmp_path: Path) -> None:
    assert ImmediateWriter.for_engine(make_engine("sqlite://")) is None
    uri = f"sqlite:///file:{tmp_path / 't.db'}?mode=rwc&uri=true"
    assert ImmediateWriter.for_engine(make_engine(uri)) is None


def test_none_for_postgresql(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    assert ImmediateWriter.for_engine(engine) is None
    engine.dispose()


def test_its_connection_leaves_checkpoints_to_a_worker_thread(tmp_path: Path) -> None:
    """The connection writing on the event loop never checkpoints by itself (a sync of the
    database file); every CHECKPOINT_EVERY writes one is due, and ``checkpoint`` copies
    the whole write-ahead log back into the database."""
    engine = make_engine(f"sqlite:///{tmp_path / 't.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
    immediate = immediate_writer(engine)
    with immediate.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    due = []
    for number in range(2 * CHECKPOINT_EVERY):
        immediate.write(lambda c, n=number: c.execute(text("INSERT INTO t VALUES (:n)"), {"n": n}))
        due.append(immediate.checkpoint_due())
        if due[-1] and number < CHECKPOINT_EVERY:
            immediate.copy_log()
            assert immediate.held() is None
            immediate.hold_writes()
            # Until the checkpoint has run, writes go elsewhere (a worker thread), or wait.
            held = immediate.held()
            assert held is not None and not held.done() and not held.cancel()
            with pytest.raises(WriterBusy, match="checkpoint"):
                immediate.write(lambda c: None)
            immediate.checkpoint()
            assert held.done() and immediate.held() is None
    assert [i for i, d in enumerate(due) if d] == [CHECKPOINT_EVERY - 1, 2 * CHECKPOINT_EVERY - 1]
    immediate.checkpoint()
    with engine.connect() as connection:
        busy, frames, copied = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
        assert (busy, frames) == (0, copied)
        assert connection.execute(text("SELECT count(*) FROM t")).scalar() == 2 * CHECKPOINT_EVERY
        # The engine's own busy timeout is back after a checkpoint (it waits briefly meanwhile).
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    engine.dispose()
    immediate.checkpoint()  # never raises (a disposed engine opens a connection again)
    immediate.dispose()


def test_checkpoints_during_writes_let_the_log_start_again(tmp_path: Path) -> None:
    """Writes that keep coming while a checkpoint copies the log on another thread (as
    trait writes do, one after another) do not keep the log from starting again from its
    beginning: it stays about as long as what is written between two checkpoints, instead
    of growing with every write made since the service started."""
    path = tmp_path / "t.db"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER, y TEXT)"))
    immediate = immediate_writer(engine)
    writes = 10 * CHECKPOINT_EVERY
    copies: list[threading.Thread] = []
    checkpoints: list[threading.Thread] = []
    largest = 0
    done = 0
    while done < writes:
        time.sleep(0.0002)  # the next request's round trip
        row = {"x": done, "y": "y" * 3000}
        try:
            immediate.write(lambda c, r=row: c.execute(text("INSERT INTO t VALUES (:x, :y)"), r))
        except WriterBusy:  # a checkpoint holds writes: the service's worker thread
            with writer(engine).begin() as connection:
                connection.execute(text("INSERT INTO t VALUES (:x, :y)"), row)
        done += 1
        if immediate.checkpoint_due():  # as the service does: the copy, then the restart
            copies.append(threading.Thread(target=immediate.copy_log))
            copies[-1].start()
        if copies and not copies[-1].is_alive() and len(checkpoints) < len(copies):
            immediate.hold_writes()
            checkpoints.append(threading.Thread(target=immediate.checkpoint))
            checkpoints[-1].start()
        largest = max(largest, (tmp_path / "t.db-wal").stat().st_size)
    for thread in [*copies, *checkpoints]:
        thread.join()
    # A write here is a page or two; the log holds at most a few checkpoints' worth.
    assert largest < 4 * CHECKPOINT_EVERY * 2 * (4096 + 24)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM t")).scalar() == writes
    immediate.dispose()
    engine.dispose()


def test_a_write_when_free_waits_for_the_lock_on_the_event_loop(tmp_path: Path) -> None:
    """While another writer holds the lock, the write waits on the event loop (which goes on
    running other work) and lands once the lock is released; held past ``busy_s``, it fails
    with the driver's "database is locked", as a worker thread's writer would."""
    path = tmp_path / "t.db"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
    immediate = ImmediateWriter(engine, busy_s=0.3)
    assert ImmediateWriter(engine).busy_s() == 30.0  # the engine's own, read when needed
    other = sqlite3.connect(path, isolation_level=None)
    ticks: list[float] = []

    async def tick() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    async def waited() -> int:
        ticker = asyncio.create_task(tick())
        asyncio.get_running_loop().call_later(0.1, other.execute, "ROLLBACK")
        try:
            return await immediate.write_when_free(
                lambda c: c.execute(text("INSERT INTO t VALUES (1)")).rowcount
            )
        finally:
            ticker.cancel()

    try:
        other.execute("BEGIN IMMEDIATE")
        began = time.perf_counter()
        assert asyncio.run(waited()) == 1
        assert 0.1 <= time.perf_counter() - began < 0.3
        assert len(ticks) >= 5  # the loop went on meanwhile
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            asyncio.run(immediate.write_when_free(lambda c: None))
        other.execute("ROLLBACK")
    finally:
        other.close()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT x FROM t")).scalars().all() == [1]
    immediate.dispose()
    engine.dispose()
