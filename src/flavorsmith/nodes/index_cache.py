"""Node snapshots from the node store, and the per-process index that a generation number keeps
fresh: each request reads one counter; when a node or trait changed, the index follows the
nodes the store's change log names (Index.updated), and is built afresh only when the log
cannot say (this process fell too far behind, or one write changed too many nodes)."""

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
        self.rebuilds = 0  # indexes built from every node
        self.updates = 0  # indexes that followed the change log

    def node_count(self) -> int:
        """How many nodes the store holds (the index built, or to be built, from them)."""
        cached = self._cached
        if cached is not None:
            return len(cached.index.snapshot.nodes)
        return store.count(self.engine)

    def current(self) -> Index:
        generation = store.committed_generation(self.engine)
        cached = self._cached
        if cached is not None and cached.generation == generation:
            return cached.index
        with self._lock:
            cached = self._cached
            if cached is not None and cached.generation >= generation:
                return cached.index
            with consistent(self.engine).begin() as connection:
                changes = None
                if cached is not None:
                    limit = _limit(cached.index)
                    changes = store.changes_since(connection, cached.generation, limit=limit)
                if cached is not None and changes is not None:
                    index = cached.index.updated(changes.generation, changes.removed, changes.nodes)
                    self.updates += 1
                else:
                    index = Index.build(store.snapshot(connection))
                    self.rebuilds += 1
            self._cached = Cached(index.snapshot.generation, index)
            return index


def _limit(index: Index) -> int:
    """Past this many changed nodes, reading every node and building afresh is as fast."""
    return max(1000, len(index.snapshot.nodes) // 10)
