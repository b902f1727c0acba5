"""Node snapshots from the node store, and the per-process index that a generation number keeps
fresh: each request reads one counter and rebuilds only when a node or trait changed."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from flavorsmith.db.engine import Engine, consistent
from flavorsmith.matching.index import Index
from flavorsmith.store import nodes as store


@dataclass(frozen=True)
class Cached:
    generation: int
    index: Index


class IndexCache:
    """The index of this process; never older than the last committed node change."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._cached: Cached | None = None
        self.rebuilds = 0

    def current(self) -> Index:
        with self.engine.connect() as connection:
            generation = store.generation(connection)
        cached = self._cached
        if cached is not None and cached.generation == generation:
            return cached.index
        with self._lock:
            cached = self._cached
            if cached is not None and cached.generation >= generation:
                return cached.index
            with consistent(self.engine).begin() as connection:
                snapshot = store.snapshot(connection)
            self._cached = Cached(snapshot.generation, Index.build(snapshot))
            self.rebuilds += 1
            return self._cached.index
