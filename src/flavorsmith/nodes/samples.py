"""The capacity sampler, a background loop of the leader (``serve --trend-interval``): every
interval it counts each flavor's and each resource class's nodes on the matcher's index
(``matching.trends.measure``), stores the counts as one sample, and prunes the samples older
than the retention. The dashboard's trend charts and ``/v1/trends`` read them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from flavorsmith.catalog.model import Catalog
from flavorsmith.db.engine import Engine, writer
from flavorsmith.matching.reports import rules_of
from flavorsmith.matching.trends import measure
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.store import samples

log = logging.getLogger("flavorsmith.samples")


class Sampler:
    """``catalog()`` is the served catalog, or None while it has errors (a sample then counts
    the resource classes only: a flavor's count on a catalog that does not load would
    mislead its chart)."""

    def __init__(
        self,
        index_cache: IndexCache,
        catalog: Callable[[], Catalog | None],
        engine: Engine,
        *,
        interval: float,
        retention: timedelta,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.index_cache = index_cache
        self.catalog = catalog
        self.engine = engine
        self.interval = interval
        self.retention = retention
        self.clock = clock

    def sample(self) -> tuple[int, int]:
        """One round: store a sample, prune past the retention. (rows stored, rows pruned)"""
        index = self.index_cache.current()
        catalog = self.catalog()
        counts = measure(index, rules_of(catalog) if catalog is not None else [])
        now = self.clock()
        with writer(self.engine).begin() as connection:
            stored = samples.add(connection, now, counts)
            pruned = samples.prune(connection, now - self.retention)
        return stored, pruned

    def run(self, stop: threading.Event) -> None:
        """A round every ``interval`` seconds until ``stop`` is set; a failed round is logged
        and the next one tried at its time."""
        while not stop.is_set():
            try:
                self.sample()
            except Exception as exc:  # the database is down: the next round tries again
                log.warning("capacity sample not taken: %s: %s", type(exc).__name__, exc)
            stop.wait(self.interval)
