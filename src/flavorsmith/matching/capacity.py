"""Capacity per flavor and the catalog-wide findings, computed on the index's bitmaps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, positions


@dataclass(frozen=True)
class FlavorCapacity:
    flavor: str
    resource_class: str
    matching: int
    available: int
    exclusive: int  # matching nodes no other flavor can use
    shared: int  # matching nodes other flavors compete for
    competition: dict[int, int] = field(default_factory=dict)  # flavors per node -> nodes

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavor": self.flavor,
            "resource_class": self.resource_class,
            "matching": self.matching,
            "available": self.available,
            "exclusive": self.exclusive,
            "shared": self.shared,
            "competition": {str(k): v for k, v in sorted(self.competition.items())},
        }


@dataclass(frozen=True)
class Findings:
    flavors_without_nodes: list[str]
    nodes_without_flavor: list[str]
    resource_classes_without_flavor: list[str]
    traits_no_node_has: dict[str, list[str]]  # trait -> flavors requiring it

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavors_without_nodes": self.flavors_without_nodes,
            "nodes_without_flavor": self.nodes_without_flavor,
            "resource_classes_without_flavor": self.resource_classes_without_flavor,
            "traits_no_node_has": self.traits_no_node_has,
        }


@dataclass(frozen=True)
class Report:
    flavors: list[FlavorCapacity]
    findings: Findings


class _Counter:
    """Per-node counts kept as bit planes (plane k holds bit k of every node's count), so
    adding a whole flavor's bitmap costs a few big-integer operations, not one per node."""

    def __init__(self) -> None:
        self.planes: list[int] = []

    def add(self, bits: int) -> None:
        carry = bits
        for k, plane in enumerate(self.planes):
            if not carry:
                return
            self.planes[k] = plane ^ carry
            carry &= plane
        if carry:
            self.planes.append(carry)

    def equal(self, value: int, everything: int) -> int:
        """The nodes whose count is exactly ``value``."""
        mask = everything
        for k, plane in enumerate(self.planes):
            mask &= plane if value >> k & 1 else ~plane
        return mask if value < (1 << len(self.planes)) else 0


def report(index: Index, flavors: Sequence[FlavorRule]) -> Report:
    matches = [index.match(f) for f in flavors]
    counter = _Counter()
    for bits in matches:
        counter.add(bits)
    everything = index.everything
    exactly: dict[int, int] = {}
    capacities = []
    for flavor, bits in zip(flavors, matches, strict=True):
        histogram: dict[int, int] = {}
        remaining = bits
        k = 1
        while remaining:
            if k not in exactly:
                exactly[k] = counter.equal(k, everything)
            hit = remaining & exactly[k]
            if hit:
                histogram[k] = hit.bit_count()
                remaining &= ~hit
            k += 1
        exclusive = histogram.get(1, 0)
        total = bits.bit_count()
        capacities.append(
            FlavorCapacity(
                flavor=flavor.name,
                resource_class=flavor.resource_class,
                matching=total,
                available=(bits & index.available).bit_count(),
                exclusive=exclusive,
                shared=total - exclusive,
                competition=histogram,
            )
        )
    return Report(capacities, findings(index, flavors, matches))


@dataclass(frozen=True)
class FlavorGauge:
    """A flavor's capacity in three numbers: the nodes it matches, those of them available
    (schedulable as Placement sees them: NodeInfo.available), and those available that no
    other flavor of the catalog matches (free: taking one takes nothing from another flavor)."""

    flavor: str
    resource_class: str
    matching: int
    available: int
    free: int


def gauges(index: Index, flavors: Sequence[FlavorRule]) -> list[FlavorGauge]:
    matches = [index.match(f) for f in flavors]
    counter = _Counter()
    for bits in matches:
        counter.add(bits & index.available)
    alone = counter.equal(1, index.available)
    return [
        FlavorGauge(
            flavor=flavor.name,
            resource_class=flavor.resource_class,
            matching=bits.bit_count(),
            available=(bits & index.available).bit_count(),
            free=(bits & alone).bit_count(),
        )
        for flavor, bits in zip(flavors, matches, strict=True)
    ]


def findings(index: Index, flavors: Sequence[FlavorRule], matches: Sequence[int]) -> Findings:
    union = 0
    for bits in matches:
        union |= bits
    nodes = index.snapshot.nodes
    flavor_classes = {f.placement_class for f in flavors}
    node_classes = sorted(
        {
            n.resource_class
            for n in nodes
            if n.resource_class and n.placement_class not in flavor_classes
        }
    )
    missing: dict[str, list[str]] = {}
    for flavor in flavors:
        for trait in sorted(flavor.required):
            if trait not in index.by_trait:
                missing.setdefault(trait, []).append(flavor.name)
    return Findings(
        flavors_without_nodes=[
            f.name for f, bits in zip(flavors, matches, strict=True) if not bits
        ],
        nodes_without_flavor=[nodes[p].label for p in positions(index.everything & ~union)],
        resource_classes_without_flavor=node_classes,
        traits_no_node_has=dict(sorted(missing.items())),
    )
