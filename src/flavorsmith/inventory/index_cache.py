"""Snapshots from the database, and the per-process index that a generation number keeps
fresh: each request reads one counter and rebuilds only when a node or trait changed."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, select

from flavorsmith.db.models import Node, NodeTrait
from flavorsmith.ironic.nodes import PROVISIONED_STATES
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from flavorsmith.store.generations import read
from flavorsmith.store.nodes import GENERATION


def load_snapshot(connection: Connection) -> Snapshot:
    """Every node with its traits, read in one transaction (so all of one generation)."""
    generation = read(connection, GENERATION)
    traits: dict[int, list[str]] = {}
    for node_id, trait in connection.execute(select(NodeTrait.node_id, NodeTrait.trait)):
        traits.setdefault(node_id, []).append(trait)
    rows = connection.execute(
        select(
            Node.id,
            Node.uuid,
            Node.name,
            Node.resource_class,
            Node.provision_state,
            Node.instance_uuid,
            Node.maintenance,
        ).order_by(Node.id)
    )
    nodes = tuple(
        NodeInfo(
            uuid=row.uuid,
            name=row.name,
            resource_class=row.resource_class,
            traits=frozenset(traits.get(row.id, ())),
            provisioned=row.provision_state in PROVISIONED_STATES or row.instance_uuid is not None,
            maintenance=row.maintenance,
        )
        for row in rows
    )
    return Snapshot(nodes, generation)


def consistent(engine: Engine) -> Engine:
    """An engine whose transactions see one snapshot (SQLite's WAL readers always do)."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


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
            generation = read(connection, GENERATION)
        cached = self._cached
        if cached is not None and cached.generation == generation:
            return cached.index
        with self._lock:
            cached = self._cached
            if cached is not None and cached.generation >= generation:
                return cached.index
            with consistent(self.engine).begin() as connection:
                snapshot = load_snapshot(connection)
            self._cached = Cached(snapshot.generation, Index.build(snapshot))
            self.rebuilds += 1
            return self._cached.index
