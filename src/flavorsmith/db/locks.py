"""Named locks held across processes that share a database: a PostgreSQL advisory lock, or a
lock file beside the SQLite database (an in-memory database needs none).

``exclusive`` holds one for a block; ``hold`` takes one for as long as the caller wants it
(the leader of the background loops), on a connection of its own: the lock dies with that
connection, so a process killed with SIGKILL frees it as soon as the server sees the socket
close (at once on loopback; a vanished host within the session's TCP keepalive time)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection, make_url

from flavorsmith.db import deadline

# Server-side TCP keepalives of a lock's own session: a holder whose host vanished without
# closing its socket is noticed within about idle + interval x count seconds.
KEEPALIVE = {"tcp_keepalives_idle": 5, "tcp_keepalives_interval": 2, "tcp_keepalives_count": 3}


def key(name: str) -> int:
    """The advisory lock number of ``name`` (the same in every process)."""
    return int.from_bytes(hashlib.sha256(f"flavorsmith-{name}".encode()).digest()[:7], "big")


@contextlib.contextmanager
def exclusive(engine: Engine, name: str, *, wait: bool) -> Iterator[bool]:
    """Yield True when this process holds the lock ``name`` (False: another process does)."""
    url = make_url(str(engine.url))
    if url.get_backend_name() == "postgresql":
        number = key(name)
        with engine.connect() as connection:
            if wait:
                # Waiting for another holder is the point here: no statement deadline
                # (db/deadline.py) and no server statement_timeout on this one.
                waiting = connection.execution_options(**{deadline.NO_DEADLINE: True})
                waiting.execute(text("SET LOCAL statement_timeout = 0"))
                waiting.execute(text("SELECT pg_advisory_lock(:k)"), {"k": number})
                got = True
            else:
                got = bool(
                    connection.execute(
                        text("SELECT pg_try_advisory_lock(:k)"), {"k": number}
                    ).scalar()
                )
            # A session lock outlives the transaction: end it, so the block's work is not an
            # idle transaction (which the server ends after idle_in_transaction_session_timeout).
            connection.commit()
            try:
                yield got
            finally:
                if got:
                    connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": number})
                    connection.commit()
        return
    database = url.database or ""
    path = Path(f"{database}.{name}.lock") if database not in ("", ":memory:") else None
    if path is None:
        yield True
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            got = True
        except BlockingIOError:
            got = False
        try:
            yield got
        finally:
            if got:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class Hold:
    """A lock held until ``release``: on PostgreSQL a session-level advisory lock on its own
    connection, on SQLite an flock on the lock file's descriptor (in memory: nothing)."""

    def __init__(
        self, *, connection: Connection | None = None, number: int = 0, fd: int | None = None
    ) -> None:
        self._connection = connection
        self._number = number
        self._fd = fd

    def alive(self) -> bool:
        """Is the lock still ours? False once its database connection is gone."""
        if self._connection is None:
            return True
        try:
            self._connection.execute(text("SELECT 1"))
            self._connection.commit()
        except Exception:  # any driver error: the session, and the lock with it, is gone
            return False
        return True

    def release(self) -> None:
        """Give the lock up (idempotent); its connection or descriptor is closed."""
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": self._number})
                connection.commit()
            except Exception:  # the session is gone: so is the lock
                pass
            finally:
                connection.invalidate()  # never back into the pool with its settings
                connection.close()
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def hold(engine: Engine, name: str) -> Hold | None:
    """Take the lock ``name`` without waiting: a Hold, or None when another process has it.
    A database that cannot be reached raises the driver's error."""
    url = make_url(str(engine.url))
    if url.get_backend_name() == "postgresql":
        number = key(name)
        connection = engine.connect()
        try:
            for setting, value in KEEPALIVE.items():
                connection.execute(text(f"SET {setting} = {int(value)}"))
            got = bool(
                connection.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": number}).scalar()
            )
            connection.commit()
        except BaseException:
            connection.invalidate()
            connection.close()
            raise
        if not got:
            connection.close()
            return None
        return Hold(connection=connection, number=number)
    database = url.database or ""
    if database in ("", ":memory:"):
        return Hold()
    path = Path(f"{database}.{name}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return Hold(fd=fd)
