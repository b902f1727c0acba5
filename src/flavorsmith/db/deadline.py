"""Every wait on PostgreSQL has an end, so a stalled database is a 503, not a hang.

A connection that is established but stops answering (a database host or a link that drops
packets, not one that refuses them) makes the driver wait for ever on its socket: TCP sees
nothing wrong while no byte is sent, and a statement timeout on the server cannot help when
its answer cannot come back. So each call that waits on the server (a statement, a commit or
rollback, the pool's ping) runs against a deadline: a watchdog thread shuts the connection's
socket down when the deadline passes, the blocked call fails at once with the driver's
"server closed the connection" (an outage to ``db/outage.py``: a 503 with Retry-After), and
SQLAlchemy discards that connection instead of returning it to the pool.

The server gets the same bound (``statement_timeout``; the watchdog waits
``CUT_AFTER_SERVER`` longer, so a slow statement ends with the server's own clean error) and
``idle_in_transaction_session_timeout``; the socket gets TCP keepalives and
``tcp_user_timeout``, so the kernel also gives up on a peer that stopped acknowledging."""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from flavorsmith.config import (
    DEFAULT_DB_BUSY_TIMEOUT,
    DEFAULT_DB_CONNECT_TIMEOUT,
    DEFAULT_DB_POOL_TIMEOUT,
    DEFAULT_DB_STATEMENT_TIMEOUT,
)

log = logging.getLogger("flavorsmith.db")

# How long a transaction may sit idle holding its locks before the server ends it.
IDLE_IN_TRANSACTION_TIMEOUT = 60.0
# The watchdog cuts a connection this long after the server's own statement timeout.
CUT_AFTER_SERVER = 2.0
# TCP: probe an idle connection after 10 s, every 5 s, give up after 3 unanswered probes;
# give up on data not acknowledged for 15 s.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 15_000,
}
# The execution option that exempts a statement from the deadline (a lock waited for).
NO_DEADLINE = "flavorsmith_no_deadline"
# One warning a minute while connections are being cut.
_LOG_EVERY = 60.0


@dataclass(frozen=True)
class Timeouts:
    """The bounds of a service's database waits, in seconds."""

    statement: float = DEFAULT_DB_STATEMENT_TIMEOUT
    connect: int = DEFAULT_DB_CONNECT_TIMEOUT
    pool: float = DEFAULT_DB_POOL_TIMEOUT
    busy: float = DEFAULT_DB_BUSY_TIMEOUT  # SQLite's busy_timeout

    def server_options(self) -> str:
        """libpq's ``options``: the server-side statement and idle-transaction timeouts."""
        statement_ms = int(self.statement * 1000)
        idle_ms = int(max(IDLE_IN_TRANSACTION_TIMEOUT, self.statement) * 1000)
        return (
            f"-c statement_timeout={statement_ms} -c idle_in_transaction_session_timeout={idle_ms}"
        )

    @property
    def cut_after(self) -> float:
        return self.statement + CUT_AFTER_SERVER


class Watchdog:
    """One thread that shuts down the socket of each driver connection whose deadline passed
    (armed and disarmed around each call that waits on the server)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._heap: list[tuple[float, int, Any]] = []
        self._armed: dict[int, int] = {}  # id(connection) -> the sequence number armed
        self._sequence = itertools.count()
        self._thread: threading.Thread | None = None
        self._last_log = 0.0
        self.cuts = 0

    def arm(self, connection: Any, seconds: float) -> int:
        token = next(self._sequence)
        deadline = time.monotonic() + seconds
        with self._lock:
            self._armed[id(connection)] = token
            heapq.heappush(self._heap, (deadline, token, connection))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="flavorsmith-db-watchdog", daemon=True
                )
                self._thread.start()
            elif self._heap[0][1] == token:
                self._wake.notify()
        return token

    def disarm(self, connection: Any, token: int) -> None:
        with self._lock:
            if self._armed.get(id(connection)) == token:
                del self._armed[id(connection)]

    def _run(self) -> None:
        while True:
            with self._lock:
                while True:
                    while self._heap and self._armed.get(id(self._heap[0][2])) != self._heap[0][1]:
                        heapq.heappop(self._heap)  # disarmed: forget it
                    if not self._heap:
                        self._wake.wait()
                        continue
                    wait = self._heap[0][0] - time.monotonic()
                    if wait <= 0:
                        _, _, connection = heapq.heappop(self._heap)
                        del self._armed[id(connection)]
                        break
                    self._wake.wait(wait)
            self._cut(connection)

    def _cut(self, connection: Any) -> None:
        """Shut the connection's socket down: the call blocked on it fails at once."""
        self.cuts += 1
        try:
            duplicate = socket.socket(fileno=os.dup(connection.pgconn.socket))
        except (OSError, AttributeError, ValueError):
            return  # already closed
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            duplicate.close()
        now = time.monotonic()
        if now - self._last_log >= _LOG_EVERY:
            self._last_log = now
            log.warning(
                "database: a call waited past its deadline for PostgreSQL's answer; its "
                "connection was dropped (the database or the link to it is stalled)"
            )


WATCHDOG = Watchdog()


def _bounded(call: Callable[..., Any], connection_of: Callable[..., Any], seconds: float) -> Any:
    def bounded(*args: Any, **kwargs: Any) -> Any:
        context = args[-1] if len(args) >= 3 else None
        options = getattr(context, "execution_options", None) or {}
        if options.get(NO_DEADLINE):
            return call(*args, **kwargs)
        connection = connection_of(*args)
        token = WATCHDOG.arm(connection, seconds)
        try:
            return call(*args, **kwargs)
        finally:
            WATCHDOG.disarm(connection, token)

    return bounded


def bound(engine: Engine, timeouts: Timeouts) -> None:
    """Put every call of ``engine``'s dialect that waits on the server under the watchdog:
    statements (one, many, none), commit, rollback and the pool's ping."""
    dialect = engine.dialect
    seconds = timeouts.cut_after

    def from_cursor(cursor: Any, *_: Any) -> Any:
        return cursor.connection

    def from_connection(connection: Any, *_: Any) -> Any:
        return connection

    for name, connection_of in (
        ("do_execute", from_cursor),
        ("do_executemany", from_cursor),
        ("do_execute_no_params", from_cursor),
        ("do_commit", from_connection),
        ("do_rollback", from_connection),
        ("do_ping", from_connection),
    ):
        setattr(dialect, name, _bounded(getattr(dialect, name), connection_of, seconds))
