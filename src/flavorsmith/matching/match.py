"""Pure matching: the nodes of a flavor, the flavors of a node, and why a pair does not match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flavorsmith.matching.flavors import FlavorRule
from flavorsmith.matching.snapshot import NodeInfo, Snapshot


def flavors_for(node: NodeInfo, flavors: Sequence[FlavorRule]) -> list[FlavorRule]:
    return [f for f in flavors if not explain(node, f)]


@dataclass(frozen=True)
class Reason:
    kind: str  # "resource-class", "missing-trait", "forbidden-trait"
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "detail": self.detail}


def explain(node: NodeInfo, flavor: FlavorRule) -> list[Reason]:
    """Every reason ``node`` cannot host ``flavor``; empty when it can."""
    reasons: list[Reason] = []
    if node.placement_class != flavor.placement_class:
        have = (
            f"{node.resource_class!r} ({node.placement_class})"
            if node.resource_class
            else "no resource class"
        )
        reasons.append(
            Reason(
                "resource-class",
                f"the node has {have}; the flavor needs {flavor.resource_class!r} "
                f"({flavor.placement_class})",
            )
        )
    for trait in sorted(flavor.required - node.traits):
        reasons.append(Reason("missing-trait", f"the flavor requires {trait}; the node lacks it"))
    for trait in sorted(flavor.forbidden & node.traits):
        reasons.append(Reason("forbidden-trait", f"the flavor forbids {trait}; the node has it"))
    return reasons


def brute_force(flavor: FlavorRule, snapshot: Snapshot) -> frozenset[int]:
    """The reference answer, node by node, for tests and benchmarks."""
    return frozenset(
        position
        for position, node in enumerate(snapshot.nodes)
        if node.placement_class == flavor.placement_class
        and flavor.required <= node.traits
        and not flavor.forbidden & node.traits
    )
