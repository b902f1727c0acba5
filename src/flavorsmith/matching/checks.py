"""The checks of a catalog across its files and against nodes that ``validate`` adds to each
file's own: pool leaks, required traits nothing provides, runbooks no node may run.
``review`` and the API's review compare the warnings of two revisions, so they live below
both."""

from __future__ import annotations

from flavorsmith.catalog.kinds import DEPLOY_TEMPLATE, TRAIT, TRAIT_RULE
from flavorsmith.catalog.repo import RepoView
from flavorsmith.catalog.trait_use import KnownNodes, check_runbooks, check_unprovided
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.matching import pools
from flavorsmith.matching.index import Index


def catalog_warnings(view: RepoView) -> list[Diagnostic]:
    """The warnings ``validate`` reports on a catalog without errors and without nodes."""
    found = [*view.diagnostics, *against_nodes(view, None)]
    return sorted(
        (d for d in found if d.severity is Severity.WARNING),
        key=lambda d: (d.path, d.line, d.column, d.message),
    )


def against_nodes(view: RepoView, index: Index | None) -> list[Diagnostic]:
    """Pool leaks, required traits nothing provides and runbooks no node may run (skipped
    while a trait-rule, deploy-template or trait file has errors: what it sets is unknown)."""
    catalog = view.catalog
    out = pools.diagnostics(catalog.flavors, pools.leaks(catalog.flavors, index))
    sources = (TRAIT_RULE, DEPLOY_TEMPLATE, TRAIT)
    if all(item.model is not None for item in view.loaded if item.kind in sources):
        known = None
        if index is not None:
            counts = {t: bits.bit_count() for t, bits in index.by_trait.items()}
            known = KnownNodes(len(index.snapshot.nodes), counts)
        out.extend(check_unprovided(catalog, known))
        out.extend(check_runbooks(catalog, known))
    return out
