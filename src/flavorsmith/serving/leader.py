"""Leader election for the background loops (the sync watcher, the Ironic mirror): every
process of every replica on one database runs a Leadership, and only the one holding the
database lock ``background`` (``db.locks.hold``: a PostgreSQL advisory lock on a connection of
its own, or an flock beside a SQLite file) runs the loops. The others keep serving and try
again every ``period`` seconds; the lock dies with its holder's connection, so when the leader
is killed another process leads within one period. The leader renews the ``leader`` row of
``store.background`` every period, so every replica can say who leads."""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from flavorsmith.db import locks
from flavorsmith.db.engine import Engine, writer
from flavorsmith.logs import event as log_event
from flavorsmith.store import background

log = logging.getLogger("flavorsmith.leader")

LOCK = "background"

# A loop runs until the event it is given is set.
Loop = Callable[[threading.Event], object]


def this_process() -> str:
    """How the stored state names this process: host and pid."""
    return f"{socket.gethostname()} pid {os.getpid()}"


class Leadership:
    """Runs ``loops`` (name -> loop) in this process only while it leads."""

    def __init__(
        self,
        engine: Engine,
        loops: Mapping[str, Loop],
        *,
        period: float,
        holder: str | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.engine = engine
        self.loops = dict(loops)
        self.period = period
        self.holder = holder or this_process()
        self.clock = clock
        self.leading = threading.Event()
        self._complained = False

    def run(self, stop: threading.Event) -> None:
        """Try to lead every ``period`` seconds until ``stop`` is set; lead while the lock
        holds. Never raises: a database that cannot be reached is logged once per outage."""
        while not stop.is_set():
            try:
                held = locks.hold(self.engine, LOCK)
            except Exception as exc:  # the database is down: try again next period
                self._complain(exc)
                held = None
            else:
                self._complained = False
            if held is not None:
                try:
                    self._lead(held, stop)
                finally:
                    held.release()
            stop.wait(self.period)

    def _lead(self, held: locks.Hold, stop: threading.Event) -> None:
        since = self.clock()
        self._record(since)
        self.leading.set()
        self._log(event="leader", holder=self.holder, loops=sorted(self.loops))
        quit_loops = threading.Event()
        threads = [
            threading.Thread(target=loop, args=(quit_loops,), name=f"flavorsmith-{name}")
            for name, loop in self.loops.items()
        ]
        for thread in threads:
            thread.daemon = True
            thread.start()
        lost = False
        try:
            while not stop.wait(self.period):
                if not held.alive():
                    lost = True
                    break
                self._record(since)
        finally:
            self.leading.clear()
            quit_loops.set()
            for thread in threads:
                thread.join(timeout=30)
        if lost:
            self._log(event="leader", holder=self.holder, lost="the database lock is gone")

    def _record(self, since: datetime) -> None:
        state = {"since": since.isoformat(timespec="seconds"), "loops": sorted(self.loops)}
        try:
            with writer(self.engine).begin() as connection:
                background.save(connection, "leader", self.holder, self.clock(), state)
        except Exception as exc:  # shown as stale by followers; the loops go on
            self._complain(exc)

    def state(self) -> dict[str, Any]:
        """This process's part and who leads, as ``/readyz`` shows it (JSON-ready)."""
        out: dict[str, Any] = {
            "loops": sorted(self.loops),
            "this_process": self.holder,
            "leader": self.leading.is_set(),
            "holder": None,
            "renewed": None,
        }
        if self.leading.is_set():
            out["holder"] = self.holder
        try:
            with self.engine.connect() as connection:
                entry = background.load(connection, "leader")
        except Exception:  # the database is down: /readyz says so already
            return out
        if entry is not None:
            out["holder"] = entry.holder
            out["renewed"] = entry.updated_at.isoformat(timespec="seconds")
        return out

    def _complain(self, exc: Exception) -> None:
        if not self._complained:
            reason = (str(exc).strip().splitlines() or [""])[0]
            self._log(event="leader", error=f"{type(exc).__name__}: {reason}")
            self._complained = True

    @staticmethod
    def _log(event: str, **fields: Any) -> None:
        log.info(event, extra=log_event(event, **fields))
