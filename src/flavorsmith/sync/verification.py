"""``verify``'s views, read: the catalog's flavors and the nodes, Nova's flavors and Placement —
of a real cloud (Ironic, Nova and Placement through its clouds.yaml entry), or of this service's
own data, where Placement's view is derived from the nodes as Nova's ironic driver derives it.
The comparison itself is pure (``matching/drift.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.db.engine import Engine
from flavorsmith.matching import drift
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo
from flavorsmith.matching.views import rules_of
from flavorsmith.nova.derive import derive
from flavorsmith.sync.kinds.flavors import MARKER, MARKER_VALUE, StoreFlavors

OWN_PLACEMENT = (
    "derived from the nodes as Nova's ironic driver derives it (no Placement to ask): the "
    "node and provider checks agree by construction, and no flavor is compared with "
    "Placement's candidates"
)


def _unschedulable(node: NodeInfo) -> bool:
    """Without Ironic's power state: provisioned (or with an instance) or in maintenance."""
    return not node.available


def own(engine: Engine, catalog: Catalog, index: Index) -> drift.Report:
    """The catalog against this service's own nodes and its own Nova flavors."""
    nova = StoreFlavors(engine).observe()
    nodes = index.snapshot.nodes
    return report(
        catalog,
        index,
        nova,
        drift.derived_providers(nodes, _unschedulable),
        None,
        _unschedulable,
        sources={
            "catalog": "the catalog repository",
            "ironic": "the service's nodes",
            "nova": "the service's compute API flavors",
            "placement": OWN_PLACEMENT,
        },
        fixes=drift.Fixes(None),
    )


def report(
    catalog: Catalog,
    index: Index,
    nova: Mapping[str, Any],
    providers: Any,
    candidates: Mapping[str, set[str]] | None,
    reserved: Callable[[NodeInfo], bool],
    *,
    sources: Mapping[str, str],
    fixes: drift.Fixes,
    notes: tuple[str, ...] = (),
) -> drift.Report:
    return drift.verify(
        index=index,
        rules=rules_of(catalog),
        wanted=derive(catalog)[0],
        nova=nova,
        providers=providers,
        candidates=candidates,
        reserved=reserved,
        sources=sources,
        fixes=fixes,
        marker={MARKER: MARKER_VALUE},
        notes=notes,
    )
