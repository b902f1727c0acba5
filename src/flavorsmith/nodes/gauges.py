"""The inventory's Prometheus gauges, computed when scraped from the matcher's index (cached
per node generation, so a scrape between node changes costs a counter read and the sums):
capacity per flavor (matching, available, free) and nodes per resource class."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from flavorsmith.catalog.model import Catalog
from flavorsmith.matching.capacity import FlavorGauge, gauges
from flavorsmith.matching.index import Index
from flavorsmith.matching.reports import rules_of
from flavorsmith.nodes.index_cache import IndexCache

log = logging.getLogger("flavorsmith.metrics")


@dataclass(frozen=True)
class _Computed:
    index: Index
    catalog: Catalog | None
    flavors: list[FlavorGauge]
    nodes: dict[str, tuple[int, int]]  # resource class -> (nodes, available)


class InventoryGauges(Collector):
    """``catalog()`` is the served catalog, or None while it has errors (then no flavor
    gauges: capacity of a catalog that does not load would mislead)."""

    def __init__(self, index_cache: IndexCache, catalog: Callable[[], Catalog | None]) -> None:
        self.index_cache = index_cache
        self.catalog = catalog
        self._last: _Computed | None = None

    def collect(self) -> Iterator[Metric]:
        readable = GaugeMetricFamily(
            "flavorsmith_inventory_readable",
            "1 when the scrape could read the node inventory, else 0 (the other inventory "
            "gauges are then missing).",
        )
        try:
            computed = self._compute()
        except Exception as exc:  # the database is down: the scrape still answers
            log.debug("inventory gauges: %s: %s", type(exc).__name__, exc)
            readable.add_metric([], 0)
            yield readable
            return
        readable.add_metric([], 1)
        yield readable
        yield from _families(computed)

    def _compute(self) -> _Computed:
        index = self.index_cache.current()
        catalog = self.catalog()
        last = self._last
        if last is not None and last.index is index and last.catalog is catalog:
            return last
        flavors = gauges(index, rules_of(catalog)) if catalog is not None else []
        nodes: dict[str, tuple[int, int]] = {}
        for node in index.snapshot.nodes:
            total, available = nodes.get(node.resource_class or "", (0, 0))
            nodes[node.resource_class or ""] = (total + 1, available + int(node.available))
        self._last = _Computed(index, catalog, flavors, nodes)
        return self._last


def _families(computed: _Computed) -> Iterator[Metric]:
    generation = GaugeMetricFamily(
        "flavorsmith_inventory_generation",
        "The node generation the gauges were computed at (it grows with every node change).",
    )
    generation.add_metric([], computed.index.snapshot.generation)
    yield generation
    labels = ["flavor", "resource_class"]
    matching = GaugeMetricFamily(
        "flavorsmith_flavor_nodes_matching", "Nodes the flavor matches.", labels=labels
    )
    available = GaugeMetricFamily(
        "flavorsmith_flavor_nodes_available",
        "Nodes the flavor matches that Placement would offer (as Nova's ironic driver reports "
        "them: not reserved, not used).",
        labels=labels,
    )
    free = GaugeMetricFamily(
        "flavorsmith_flavor_nodes_free",
        "Available nodes the flavor matches that no other flavor matches.",
        labels=labels,
    )
    for gauge in computed.flavors:
        key = [gauge.flavor, gauge.resource_class]
        matching.add_metric(key, gauge.matching)
        available.add_metric(key, gauge.available)
        free.add_metric(key, gauge.free)
    yield from (matching, available, free)
    nodes = GaugeMetricFamily(
        "flavorsmith_nodes", "Nodes by resource class.", labels=["resource_class"]
    )
    nodes_available = GaugeMetricFamily(
        "flavorsmith_nodes_available",
        "Nodes Placement would offer (not reserved, not used) by resource class.",
        labels=["resource_class"],
    )
    for resource_class, (total, ready) in sorted(computed.nodes.items()):
        nodes.add_metric([resource_class], total)
        nodes_available.add_metric([resource_class], ready)
    yield from (nodes, nodes_available)
