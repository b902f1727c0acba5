"""``verify``'s views, read: the catalog's flavors and the nodes, Nova's flavors and Placement —
of a real cloud (Ironic, Nova and Placement through its clouds.yaml entry), or of this service's
own data, where Placement's view is derived from the nodes as Nova's ironic driver derives it.
The comparison itself is pure (``matching/drift.py``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from flavorsmith.catalog.model import Catalog
from flavorsmith.db.engine import Engine
from flavorsmith.errors import TargetError
from flavorsmith.ironic.nodes import SCHEDULING_FIELDS
from flavorsmith.matching import drift
from flavorsmith.matching.index import Index
from flavorsmith.matching.provider import derived
from flavorsmith.matching.reports import rules_of
from flavorsmith.matching.snapshot import from_records
from flavorsmith.nova.derive import derive
from flavorsmith.nova.placement_request import request_for
from flavorsmith.sync.engine import refuses_nothing
from flavorsmith.sync.kinds import FLAVOR_MARKER, FLAVORS


class NodeSource(Protocol):
    def nodes(self, fields: Sequence[str]) -> list[dict[str, Any]]: ...


class FlavorSource(Protocol):
    def observe(self) -> Mapping[str, Any]: ...  # name -> the flavors kind's observed flavor


class PlacementSource(Protocol):
    def providers(self) -> Sequence[Any]: ...
    def allocation_candidates(
        self, params: Sequence[tuple[str, str]], microversion: str
    ) -> AbstractSet[str]: ...


OWN_PLACEMENT = (
    "derived from the nodes as Nova's ironic driver derives it (no Placement to ask): the "
    "node and provider checks agree by construction, and no flavor is compared with "
    "Placement's candidates"
)


# The fixes a report on this service's own data names (no cloud).
OWN_FIXES = drift.Fixes(None)


def own_nova(engine: Engine) -> Mapping[str, Any]:
    """This service's own Nova flavors, as ``verify`` compares them."""
    store_target = FLAVORS.store_target
    assert store_target is not None  # the flavors kind always has one
    return store_target(engine, refuses_nothing).observe()


def own(
    engine: Engine,
    catalog: Catalog,
    index: Index,
    nova: Mapping[str, Any] | None = None,
    checks: drift.NodeChecks | None = None,
) -> drift.Report:
    """The catalog against this service's own nodes and its own Nova flavors (``nova``: as
    :func:`own_nova` read them, when the caller already has). With ``checks`` (made with
    ``OWN_FIXES``, kept by the caller from one report to the next) only the nodes changed since
    its last report are checked again."""
    if nova is None:
        nova = own_nova(engine)
    nodes = index.snapshot.nodes
    if checks is None:
        providers: Sequence[Any] = [derived(node) for node in nodes]
        node_checks = None
    else:
        providers, node_checks = checks.check(nodes)
    return report(
        catalog,
        index,
        nova,
        providers,
        None,
        sources={
            "catalog": "the catalog repository",
            "ironic": "the service's nodes",
            "nova": "the service's compute API flavors",
            "placement": OWN_PLACEMENT,
        },
        fixes=OWN_FIXES,
        node_checks=node_checks,
    )


def cloud(
    name: str,
    catalog: Catalog,
    ironic: NodeSource,
    nova: FlavorSource,
    placement: PlacementSource,
) -> drift.Report:
    """The catalog against the Ironic, Nova and Placement of the cloud ``name``: Placement's
    candidates are asked for each flavor with the request Nova builds from it (without a
    limit: every candidate)."""
    records = ironic.nodes(SCHEDULING_FIELDS)
    index = Index.build(from_records(records))
    providers = list(placement.providers())
    candidates: dict[str, set[str]] = {}
    notes: list[str] = []
    for flavor in derive(catalog)[0]:
        request = request_for(flavor)
        if request.refused:
            # Nova refuses the boot before it asks Placement: no candidate at all.
            candidates[flavor.name] = set()
            notes += [f"{flavor.name}: Nova refuses the boot: {why}" for why in request.refused]
            continue
        try:
            found = placement.allocation_candidates(
                request.query(limit=False), request.microversion
            )
        except TargetError as exc:
            if exc.status != 400:
                raise
            # Placement refuses the request (a forbidden trait it never saw): no candidate.
            found = set()
            notes.append(f"{flavor.name}: Placement refuses the request: {exc}")
        candidates[flavor.name] = set(found)
        notes += [f"{flavor.name}: not modelled: {why}" for why in request.unmodelled]
    return report(
        catalog,
        index,
        nova.observe(),
        providers,
        candidates,
        sources={
            "catalog": "the catalog repository",
            "ironic": f"cloud {name}",
            "nova": f"cloud {name}",
            "placement": f"cloud {name}",
        },
        fixes=drift.Fixes(name),
        notes=tuple(notes),
    )


def report(
    catalog: Catalog,
    index: Index,
    nova: Mapping[str, Any],
    providers: Any,
    candidates: Mapping[str, set[str]] | None,
    *,
    sources: Mapping[str, str],
    fixes: drift.Fixes,
    notes: tuple[str, ...] = (),
    node_checks: Sequence[drift.Finding] | None = None,
) -> drift.Report:
    return drift.verify(
        index=index,
        rules=rules_of(catalog),
        wanted=derive(catalog)[0],
        nova=nova,
        providers=providers,
        candidates=candidates,
        sources=sources,
        fixes=fixes,
        marker=FLAVOR_MARKER,
        notes=notes,
        flavors=catalog.flavors,
        node_checks=node_checks,
    )
