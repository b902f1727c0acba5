"""Keeping the service's nodes equal to a real Ironic: a first full load, then a refresh every
``interval`` seconds, and the state of it for ``/v1`` and ``/readyz``.

Ironic's node list has no "changed since" filter, and trait writes do not move a node's
``updated_at``, so every refresh reads the whole list (⌈N/1000⌉ GETs, one more when N is a
multiple of 1000) and the store diffs it. Every page is read before anything is written: a
failed page, an unreadable node or a refresh the delete guard refuses changes nothing, is
reported, and leaves the last good mirror in place. One log line per refresh (naming the nodes
it changed), and the service's metrics hear of each (sync.metrics.mirror_refreshed).

The state is kept in the database (``store.background``, name ``mirror``): only the leader of
the background loops refreshes, and every replica answers ``/v1/nodes/source`` and ``/readyz``
from the same row, naming the process that refreshed (``refreshed_by``). A leader that takes
over starts from the stored state, so a failed first refresh of its own does not make the
replicas unready while the stored nodes are still the last good mirror.

The source is duck-typed (:class:`NodeSource`): ``clients.ironic.IronicNodes`` in the
service, anything with ``pages()`` and a request counter in tests."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from flavorsmith.db.engine import Engine, writer
from flavorsmith.errors import TargetError
from flavorsmith.ironic import mirror as mirror_rules
from flavorsmith.ironic.mirror import FIELDS, MAX_DELETE, MirrorError, mirrored_all
from flavorsmith.logs import event
from flavorsmith.nodes import service as nodes_service
from flavorsmith.store import background
from flavorsmith.store import nodes as store
from flavorsmith.sync import metrics as sync_metrics

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

    def stored(self) -> dict[str, Any]:
        """JSON-ready, as ``from_stored`` reads it back."""
        return {**asdict(self), "started": self.started.isoformat()}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> Refresh:
        return cls(**{**data, "started": datetime.fromisoformat(data["started"])})


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
        holder: str = "",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        first_load: Callable[[], AbstractContextManager[Callable[[int, int], None]]] | None = None,
    ) -> None:
        """``advice`` follows a refused refresh's reason (how the operator lets it through);
        ``holder`` names this process in the stored state (host and pid); ``first_load``
        opens what hears (pages read, nodes read) after each page until a load succeeds
        (default: a log line per page)."""
        self.holder = holder
        self.first_load = first_load or self._page_lines
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
        self._seeded = False
        self.refreshes = 0

    # -- state --------------------------------------------------------------------------------

    @property
    def named(self) -> str:
        """The Ironic in a sentence: "the Ironic at URL" or "the Ironic of cloud NAME"."""
        return mirror_rules.named(self.label)

    @property
    def loaded(self) -> bool:
        """Has a refresh succeeded (so the stored nodes are Ironic's)?"""
        with self._lock:
            return self._good is not None

    def refusal(self) -> str:
        """What a node write answers while the nodes are mirrored."""
        return mirror_rules.write_refusal(self.label, self.interval)

    def not_ready(self) -> str | None:
        """Why the service is not ready (None once a first load succeeded)."""
        good, last, _, _, _ = self._snapshot()
        if good is not None:
            return None
        if last is None:
            return f"the first load from {self.named} has not finished yet"
        return f"the first load from {self.named} failed: {last.error}"

    def state(self) -> dict[str, Any]:
        """The mirror as ``/v1/nodes/source`` and ``/readyz`` show it (JSON-ready), the same
        on every replica: read from the database."""
        good, last, running, count, holder = self._snapshot()
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
            "refreshed_by": holder,
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

    def _snapshot(
        self,
    ) -> tuple[Refresh | None, Refresh | None, datetime | None, int, str | None]:
        """(last good, last, refreshing since, refreshes, holder): the stored state, or this
        process's own when the database cannot be read."""
        try:
            stored = self._stored()
        except Exception:  # the database is down: say what this process knows
            stored = None
        if stored is not None:
            return stored
        with self._lock:
            return (
                self._good,
                self._last,
                self._running_since,
                self.refreshes,
                self.holder if self._last or self._running_since else None,
            )

    def _stored(
        self,
    ) -> tuple[Refresh | None, Refresh | None, datetime | None, int, str | None] | None:
        with self.engine.connect() as connection:
            entry = background.load(connection, "mirror")
        if entry is None or entry.state.get("ironic") != self.label:
            return None  # nothing stored yet, or another Ironic's (a changed --ironic-*)
        data = entry.state
        good = Refresh.from_stored(data["good"]) if data.get("good") else None
        last = Refresh.from_stored(data["last"]) if data.get("last") else None
        running = data.get("refreshing_since")
        since = datetime.fromisoformat(running) if running else None
        return good, last, since, int(data.get("refreshes", 0)), entry.holder

    def _save(self) -> None:
        """Store this process's state for every replica (a failure is logged, not raised:
        the refresh itself is done)."""
        with self._lock:
            state = {
                "ironic": self.label,
                "interval_seconds": self.interval,
                "good": self._good.stored() if self._good else None,
                "last": self._last.stored() if self._last else None,
                "refreshing_since": _iso(self._running_since),
                "refreshes": self.refreshes,
            }
        try:
            with writer(self.engine).begin() as connection:
                background.save(connection, "mirror", self.holder, self.clock(), state)
        except Exception as exc:
            log.warning(
                "mirror state not stored", extra=event("mirror", error=f"state not stored: {exc}")
            )

    def _seed(self) -> None:
        """Start from the stored state (a leader taking over keeps the last good mirror)."""
        if self._seeded:
            return
        try:
            stored = self._stored()
        except Exception:  # the database is down: the refresh will say so
            return
        self._seeded = True
        if stored is None:
            return
        good, last, _, count, _ = stored
        with self._lock:
            self._good = self._good or good
            self._last = self._last or last
            self.refreshes = max(self.refreshes, count)

    # -- work ---------------------------------------------------------------------------------

    def refresh(self) -> Refresh:
        """One refresh: every page first, then one transaction. Never raises: a failure is
        the refresh's ``error``, and the stored nodes stay as they were."""
        self._seed()
        started = self.clock()
        with self._lock:
            self._running_since = started
        self._save()
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
        self._save()
        self._log(result)
        sync_metrics.mirror_refreshed(
            ok=result.error is None,
            started=result.started.timestamp(),
            seconds=result.seconds,
            nodes=result.listed if result.error is None else None,
        )
        return result

    @contextmanager
    def _page_lines(self) -> Iterator[Callable[[int, int], None]]:
        """A log line per page read, while the mirror has never loaded (a large fleet takes a
        while to list)."""

        def heard(pages: int, nodes: int) -> None:
            line = event("mirror", ironic=self.label, pages=pages, nodes=nodes)
            log.info("mirror first load: page read", extra=line)

        yield heard

    def _read(self) -> list[dict[str, Any]]:
        """Every page; the first load tells ``first_load`` page by page."""
        if self.loaded:
            return [node for page in self.source.pages(FIELDS) for node in page]
        records: list[dict[str, Any]] = []
        with self.first_load() as heard:
            for pages, page in enumerate(self.source.pages(FIELDS), start=1):
                records.extend(page)
                heard(pages, len(records))
        return records

    def _refresh(self, started: datetime, before: int, begun: float) -> Refresh:
        records = self._read()
        requests = self.source.calls - before
        reading = time.perf_counter() - begun
        nodes = mirrored_all(records)
        # Diffed first without the write lock: a refresh that changes nothing (the usual one)
        # never takes it; one that does diffs again under it and writes.
        with self.engine.begin() as connection:
            report = nodes_service.mirror(
                connection, nodes, max_delete=self.max_delete, apply=False
            )
            generation = store.generation(connection)
        if report.writes and report.refused is None:
            with writer(self.engine).begin() as connection:
                report = nodes_service.mirror(connection, nodes, max_delete=self.max_delete)
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
