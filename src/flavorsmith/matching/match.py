"""Pure matching: the nodes of a flavor, the flavors of a node, and why a pair does not match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flavorsmith.matching.flavor_rules import FlavorRule, unknown_forbidden
from flavorsmith.matching.snapshot import NodeInfo, Snapshot


def flavors_for(
    node: NodeInfo, flavors: Sequence[FlavorRule], known_traits: frozenset[str] | None = None
) -> list[FlavorRule]:
    return [f for f in flavors if not explain(node, f, known_traits)]


@dataclass(frozen=True)
class Reason:
    # "never" (no bare-metal node can be a candidate), "unknown-trait", "resource-class",
    # "missing-trait", "forbidden-trait", "missing-any-trait"
    kind: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "detail": self.detail}


def explain(
    node: NodeInfo, flavor: FlavorRule, known_traits: frozenset[str] | None = None
) -> list[Reason]:
    """Every reason ``node`` cannot host ``flavor``; empty when it can. ``known_traits``: the
    traits of every node (Placement refuses a request naming a custom trait it never saw)."""
    reasons = [Reason("never", text) for text in flavor.never]
    if known_traits is not None:
        for trait in unknown_forbidden(flavor, known_traits):
            how = "forbids" if trait in flavor.forbidden else "accepts, among others,"
            reasons.append(
                Reason(
                    "unknown-trait",
                    f"the flavor {how} {trait}, which no node has: Placement knows no such "
                    "trait and answers 400",
                )
            )
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
    for choices in flavor.any_of:
        if not choices & node.traits:
            reasons.append(
                Reason(
                    "missing-any-trait",
                    f"the flavor requires one of {', '.join(sorted(choices))}; the node has none",
                )
            )
    return reasons


def known_traits(snapshot: Snapshot) -> frozenset[str]:
    """Every trait some node of ``snapshot`` has."""
    return frozenset().union(*(node.traits for node in snapshot.nodes))


def brute_force(flavor: FlavorRule, snapshot: Snapshot) -> frozenset[int]:
    """The reference answer, node by node, for tests and benchmarks."""
    known = known_traits(snapshot)
    return frozenset(
        position for position, node in enumerate(snapshot.nodes) if not explain(node, flavor, known)
    )
