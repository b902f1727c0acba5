"""What the CLI and the API show of matches and capacity (plain data, shared by both)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.matching.capacity import report
from flavorsmith.matching.flavors import FlavorRule
from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.match import explain, flavors_for
from flavorsmith.matching.snapshot import NodeInfo


def rules_of(catalog: Catalog) -> list[FlavorRule]:
    return [FlavorRule.of(f) for f in sorted(catalog.flavors, key=lambda f: f.name)]


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
    page = list(islice(positions(after), limit + 1))
    return NodePage(bits.bit_count(), page[:limit], len(page) > limit)


def pair(node: NodeInfo, rule: FlavorRule) -> dict[str, Any]:
    reasons = explain(node, rule)
    return {
        "flavor": rule.name,
        "node": node.label,
        "match": not reasons,
        "reasons": [r.as_dict() for r in reasons],
    }


def flavors_of(node: NodeInfo, rules: Sequence[FlavorRule]) -> list[str]:
    return [r.name for r in flavors_for(node, rules)]


def capacity(index: Index, rules: Sequence[FlavorRule]) -> dict[str, Any]:
    result = report(index, rules)
    return {
        "generation": index.snapshot.generation,
        "nodes": len(index.snapshot.nodes),
        "flavors": [c.as_dict() for c in result.flavors],
        "findings": result.findings.as_dict(),
    }
