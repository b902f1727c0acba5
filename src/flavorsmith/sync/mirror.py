"""Keeping the service's nodes equal to a real Ironic: a first full load, then a refresh every
``interval`` seconds, and the state of it for ``/v1`` and ``/readyz``.

Ironic's node list has no "changed since" filter, and trait writes do not move a node's
``updated_at``, so every refresh reads the whole list (⌈N/1000⌉ GETs, one more when N is a
multiple of 1000) and the store diffs it. Every page is read before anything is written: a
failed page, an unreadable node or a refresh the delete guard refuses changes nothing, is
reported, and leaves the last good mirror in place. One log line per refresh (naming the nodes
it changed), and the service's metrics hear of each (sync.metrics.mirror_refreshed).

The source is duck-typed (:class:`NodeSource`): ``sync.targets.ironic.IronicNodes`` in the
service, anything with ``pages()`` and a request counter in tests."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from flavorsmith.db.engine import Engine, writer
from flavorsmith.ironic.mirror import FIELDS, MAX_DELETE, MirrorError, mirrored_all
from flavorsmith.logs import event
from flavorsmith.store import nodes as store
from flavorsmith.sync import metrics as sync_metrics
from flavorsmith.sync.engine import TargetError

log = logging.getLogger("flavorsmith.mirror")

# At most this many node names per change in a refresh's log line.
LOGGED_NAMES = 100
# While the first load has not succeeded, try again this often (at most the interval).
FIRST_LOAD_RETRY = 5.0


class NodeSource(Protocol):
    """A real Ironic's node list, page by page; ``calls`` counts the requests made."""

    calls: int

    def pages(self, fields: Sequence[str]) -> Iterator[list[dict[str, Any]]]: ...


@dataclass(frozen=True)
class Refresh:
    """One refresh as it ended: what it read and wrote, or why it changed nothing."""

    started: datetime
    seconds: float
    requests: int
    listed: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    generation: int | None = None
    error: str | None = None
    reading: float = 0.0  # seconds spent reading Ironic's pages (the rest is the database's)
    # The nodes written, by what was done to them (created, updated, deleted).
    changed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def writes(self) -> int:
        return self.created + self.updated + self.deleted


def _reason(exc: Exception) -> str:
    """One line: Ironic's or the mirror rules' own words, else the error's type and first line
    (a database error's statement and parameters are left out)."""
    text = (str(exc).strip().splitlines() or [""])[0]
    if isinstance(exc, (TargetError, MirrorError)):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


class Mirror:
    """The mirror of the Ironic named ``label``: its URL, or ``cloud NAME``."""

    def __init__(
        self,
        source: NodeSource,
        engine: Engine,
        *,
        label: str,
        interval: float = 60.0,
        max_delete: float = MAX_DELETE,
        advice: str = "",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """``advice`` follows a refused refresh's reason (how the operator lets it through)."""
        self.source = source
        self.engine = engine
        self.label = label
        self.interval = interval
        self.max_delete = max_delete
        self.advice = advice
        self.clock = clock
        self._lock = threading.Lock()
        self._last: Refresh | None = None  # the last refresh, good or not
        self._good: Refresh | None = None  # the last one that succeeded
        self._running_since: datetime | None = None
        self.refreshes = 0

    # -- state --------------------------------------------------------------------------------

    @property
    def named(self) -> str:
        """The Ironic in a sentence: "the Ironic at URL" or "the Ironic of cloud NAME"."""
        at = "at" if "://" in self.label else "of"
        return f"the Ironic {at} {self.label}"

    @property
    def loaded(self) -> bool:
        """Has a refresh succeeded (so the stored nodes are Ironic's)?"""
        with self._lock:
            return self._good is not None

    def refusal(self) -> str:
        """What a node write answers while the nodes are mirrored."""
        return (
            f"Nodes are managed by {self.named}; change them there "
            f"(this service mirrors it every {self.interval:g} s)"
        )

    def not_ready(self) -> str | None:
        """Why the service is not ready (None once the first load succeeded)."""
        with self._lock:
            if self._good is not None:
                return None
            last = self._last
        if last is None:
            return f"the first load from {self.named} has not finished yet"
        return f"the first load from {self.named} failed: {last.error}"

    def state(self) -> dict[str, Any]:
        """The mirror as ``/v1/nodes/source`` and ``/readyz`` show it (JSON-ready)."""
        with self._lock:
            good, last, running = self._good, self._last, self._running_since
            count = self.refreshes
        now = self.clock()
        out: dict[str, Any] = {
            "source": "ironic",
            "ironic": self.label,
            "interval_seconds": self.interval,
            "loaded": good is not None,
            "last_refresh": _iso(good.started) if good else None,
            "lag_seconds": round((now - good.started).total_seconds(), 1) if good else None,
            "nodes": good.listed if good else None,
            "generation": good.generation if good else None,
            "last_attempt": _iso(last.started) if last else None,
            "refreshing_since": _iso(running),
            "refreshes": count,
            "error": last.error if last else None,
        }
        if last is not None:
            out["last"] = {
                "ok": last.error is None,
                "seconds": round(last.seconds, 3),
                "reading_seconds": round(last.reading, 3),
                "requests": last.requests,
                "writes": last.writes,
                "created": last.created,
                "updated": last.updated,
                "deleted": last.deleted,
                "unchanged": last.unchanged,
            }
        return out

    # -- work ---------------------------------------------------------------------------------

    def refresh(self) -> Refresh:
        """One refresh: every page first, then one transaction. Never raises: a failure is
        the refresh's ``error``, and the stored nodes stay as they were."""
        started = self.clock()
        with self._lock:
            self._running_since = started
        begun = time.perf_counter()
        before = self.source.calls
        try:
            result = self._refresh(started, before, begun)
        except Exception as exc:  # a refresh must never kill the loop or empty the mirror
            result = Refresh(
                started, time.perf_counter() - begun, self.source.calls - before, error=_reason(exc)
            )
        with self._lock:
            self._last = result
            self._running_since = None
            if result.error is None:
                self._good = result
            self.refreshes += 1
        self._log(result)
        sync_metrics.mirror_refreshed(
            ok=result.error is None,
            started=result.started.timestamp(),
            seconds=result.seconds,
            nodes=result.listed if result.error is None else None,
        )
        return result

    def _refresh(self, started: datetime, before: int, begun: float) -> Refresh:
        records = [node for page in self.source.pages(FIELDS) for node in page]
        requests = self.source.calls - before
        reading = time.perf_counter() - begun
        nodes = mirrored_all(records)
        # Diffed first without the write lock: a refresh that changes nothing (the usual one)
        # never takes it; one that does diffs again under it and writes.
        with self.engine.begin() as connection:
            report = store.mirror(connection, nodes, max_delete=self.max_delete, apply=False)
            generation = store.generation(connection)
        if report.writes and report.refused is None:
            with writer(self.engine).begin() as connection:
                report = store.mirror(connection, nodes, max_delete=self.max_delete)
                generation = store.generation(connection)
        return Refresh(
            started,
            time.perf_counter() - begun,
            requests,
            listed=len(nodes),
            created=len(report.created),
            updated=len(report.updated),
            deleted=len(report.deleted),
            unchanged=report.unchanged,
            generation=generation,
            error=f"{report.refused}{self.advice}" if report.refused else None,
            reading=reading,
            changed={
                what: names
                for what, names in (
                    ("created", report.created),
                    ("updated", report.updated),
                    ("deleted", report.deleted),
                )
                if names and report.refused is None
            },
        )

    def run(self, stop: threading.Event, *, refreshes: int | None = None) -> int:
        """Refresh now, then every ``interval`` seconds (every few seconds until the first
        load succeeds) until ``stop`` is set or ``refreshes`` ran; returns how many ran."""
        done = 0
        while not stop.is_set() and (refreshes is None or done < refreshes):
            self.refresh()
            done += 1
            wait = self.interval if self.loaded else min(self.interval, FIRST_LOAD_RETRY)
            if stop.wait(wait):
                break
        return done

    def _log(self, result: Refresh) -> None:
        line: dict[str, object] = {
            "ironic": self.label,
            "requests": result.requests,
            "ms": round(result.seconds * 1000, 1),
        }
        if result.error is not None:
            line["error"] = result.error
            log.warning("mirror refresh failed", extra=event("mirror", **line))
            return
        line.update(
            nodes=result.listed,
            writes=result.writes,
            created=result.created,
            updated=result.updated,
            deleted=result.deleted,
            generation=result.generation,
        )
        for what, names in result.changed.items():
            # Named, up to a readable number (a first load may create a whole fleet).
            shown = names[:LOGGED_NAMES]
            line[f"{what}_nodes"] = shown + (
                [f"... {len(names) - len(shown)} more"] if len(names) > len(shown) else []
            )
        log.info("mirror refresh", extra=event("mirror", **line))


__all__ = ["FIRST_LOAD_RETRY", "Mirror", "NodeSource", "Refresh"]
