"""What the CLI and the API show of matches and capacity (plain data, shared by both)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from flavorsmith.catalog.model import Catalog, Flavor
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.matching.capacity import report
from flavorsmith.matching.diagnosis import (
    DERIVED,
    Access,
    Context,
    Providers,
    count_candidates,
    diagnose_flavor,
    diagnose_node,
)
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, first_positions, positions
from flavorsmith.matching.match import explain, flavors_for
from flavorsmith.matching.pools import leaks
from flavorsmith.matching.snapshot import NodeInfo
from flavorsmith.nova.derive import derive
from flavorsmith.nova.placement_request import request_for


def rules_of(catalog: Catalog) -> list[FlavorRule]:
    """One rule per catalog flavor, read from the Placement request Nova builds from the
    derived Nova flavor; a flavor whose resource class does not resolve matches nothing."""
    derived, unresolved = derive(catalog)
    by_name = {f.name: f for f in catalog.flavors}
    rules = [
        FlavorRule.from_request(d.name, by_name[d.name].resource_class, request_for(d))
        for d in derived
    ]
    for flavor in unresolved:
        never = (
            f"resource class {flavor.resource_class!r} is not defined in the catalog, "
            "so the flavor is never synced to Nova",
        )
        rules.append(
            FlavorRule(
                flavor.name,
                flavor.resource_class,
                flavor.required_traits,
                flavor.forbidden_traits,
                never=never,
            )
        )
    return sorted(rules, key=lambda r: r.name)


def known_traits(index: Index) -> frozenset[str]:
    """The traits some node of the index has (Placement knows no other custom trait)."""
    return frozenset(index.by_trait)


def find_flavor(rules: Sequence[FlavorRule], name: str) -> FlavorRule:
    for rule in rules:
        if rule.name == name:
            return rule
    raise NotFound(f"No flavor named {name!r} in the catalog")


def find_node(index: Index, ident: str) -> NodeInfo:
    position = index.snapshot.find(ident)
    if position is None:
        raise NotFound(f"Node {ident} could not be found.")
    return index.snapshot.nodes[position]


def node_entry(node: NodeInfo) -> dict[str, Any]:
    return {
        "uuid": node.uuid,
        "name": node.name,
        "resource_class": node.resource_class,
        "available": node.available,
    }


def node_detail(node: NodeInfo) -> dict[str, Any]:
    """What the dashboard shows of a node: its entry, traits, states, and each reason Nova's
    ironic driver would report its inventory reserved."""
    return {
        **node_entry(node),
        "traits": sorted(node.traits),
        "provision_state": node.provision_state,
        "power_state": node.power_state,
        "maintenance": node.maintenance,
        "instance_uuid": node.instance_uuid,
        "inventory": node.inventory_state,
        "holds": [{"kind": h.kind, "detail": h.detail} for h in node.holds],
    }


def nodes_of(index: Index, rule: FlavorRule) -> list[NodeInfo]:
    nodes = index.snapshot.nodes
    return [nodes[p] for p in positions(index.match(rule))]


@dataclass(frozen=True)
class NodePage:
    count: int  # the flavor's nodes (available or not, when asked)
    positions: list[int]  # this page's, ascending
    more: bool  # nodes after this page


def node_page(
    index: Index, rule: FlavorRule, *, available: bool | None, marker: str | None, limit: int
) -> NodePage:
    """A page of the nodes of ``rule`` in the index's order: after the node whose UUID is
    ``marker``, at most ``limit``, only available ones (or only the others) when asked. Counted
    and cut on the bitmaps: only the page's nodes are visited."""
    bits = index.match(rule)
    if available is not None:
        bits &= index.available if available else index.everything & ~index.available
    if marker is not None:
        at = index.snapshot.find(marker)
        if at is None or index.snapshot.nodes[at].uuid != marker or not (bits >> at) & 1:
            raise Invalid(f"Marker {marker!r} is not one of this flavor's nodes")
        after = (bits >> (at + 1)) << (at + 1)
    else:
        after = bits
    page = first_positions(after, limit + 1)
    return NodePage(bits.bit_count(), page[:limit], len(page) > limit)


def pair(node: NodeInfo, rule: FlavorRule, known: frozenset[str] | None = None) -> dict[str, Any]:
    reasons = explain(node, rule, known)
    result: dict[str, Any] = {
        "flavor": rule.name,
        "node": node.label,
        "match": not reasons,
        "reasons": [r.as_dict() for r in reasons],
    }
    if rule.unmodelled:
        result["unmodelled"] = list(rule.unmodelled)
    return result


def flavors_of(
    node: NodeInfo, rules: Sequence[FlavorRule], known: frozenset[str] | None = None
) -> list[str]:
    return [r.name for r in flavors_for(node, rules, known)]


def capacity(index: Index, rules: Sequence[FlavorRule]) -> dict[str, Any]:
    result = report(index, rules)
    return {
        "generation": index.snapshot.generation,
        "nodes": len(index.snapshot.nodes),
        "flavors": [c.as_dict() for c in result.flavors],
        "findings": result.findings.as_dict(),
    }


def pool_leaks(
    flavors: Sequence[Flavor], index: Index, *, name_projects: bool = True
) -> list[dict[str, Any]]:
    """Capacity's ``pool_leaks``: each private flavor whose nodes another flavor of other
    projects reaches, among ``flavors`` (the ones the caller may see). Without
    ``name_projects`` (a caller who may not read access lists), a private flavor reaching a
    pool is used by "other projects", unnamed."""
    found = leaks(flavors, index)
    if not name_projects:
        found = [
            leak if leak.audience == "public" else replace(leak, audience="other projects")
            for leak in found
        ]
    return [leak.as_dict() for leak in found]


def access_of(catalog: Catalog, name: str) -> Access:
    """Who may boot the catalog flavor ``name`` (a flavor it lacks is public: unreachable)."""
    for flavor in catalog.flavors:
        if flavor.name == name:
            return Access(flavor.is_public, flavor.projects)
    return Access()


def explain_node(
    index: Index,
    rule: FlavorRule,
    node: NodeInfo,
    context: Context,
    providers: Providers = DERIVED,
) -> dict[str, Any]:
    """Every reason ``rule`` cannot land on ``node``, by layer (``explain FLAVOR NODE``)."""
    context = replace(context, known_traits=known_traits(index))
    candidates = count_candidates(index.snapshot.nodes, rule, providers, context)
    return diagnose_node(node, rule, providers(node), context, candidates).as_dict()


def explain_flavor(
    index: Index, rule: FlavorRule, context: Context, providers: Providers = DERIVED
) -> dict[str, Any]:
    """The flavor's nodes counted by their first reason (``explain FLAVOR``)."""
    context = replace(context, known_traits=known_traits(index))
    return diagnose_flavor(index.snapshot.nodes, rule, providers, context).as_dict()
