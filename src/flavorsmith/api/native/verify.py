"""/v1/verify: drift between the catalog, the service's nodes, Placement as Nova's ironic
driver derives it from them, and the service's own Nova flavors — what ``flavorsmith verify
-f json`` prints without a cloud. It shows every flavor's access and every node, so it asks
for the admin role.

The report is kept for the index, catalog and Nova flavors it was made from: an open dashboard
asks every few seconds, and at 100,000 nodes a report takes seconds (every node's provider
derived and compared), while reading the Nova flavors to see whether they changed takes a few
milliseconds. A new node generation, a catalog reload or a flavor change makes a new one; each
node's checks are kept too, so after a node change only the changed nodes are derived and
compared again (the rest of the report, flavors and pools, is made from bitmaps)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, call, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.schema import obj
from flavorsmith.api.services import Services
from flavorsmith.catalog.repo import RepoView
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import ServiceUnavailable
from flavorsmith.matching import drift
from flavorsmith.matching.index import Index
from flavorsmith.sync import verification

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:verify:get",
        "role:admin",
        "Read the drift between the catalog, the nodes, Placement and the Nova flavors.",
    ),
]


@dataclass(frozen=True)
class _Kept:
    index: Index
    view: RepoView
    nova: str  # the Nova flavors, as text
    body: dict[str, Any]


_kept: _Kept | None = None
_keeping = threading.Lock()
# Each node's checks, kept from one report to the next (used under ``_keeping``): after a
# change only the changed nodes are checked again.
_node_checks = drift.NodeChecks(verification.OWN_FIXES)


def report(shared: Services, view: RepoView, index: Index) -> dict[str, Any]:
    """The drift report of ``view``'s catalog on ``index``, kept until either or the Nova
    flavors change."""
    global _kept
    nova = verification.own_nova(shared.engine)
    fingerprint = repr(sorted(nova.items()))
    with _keeping:
        kept = _kept
        same = kept is not None and kept.index is index and kept.view is view
        if same and kept is not None and kept.nova == fingerprint:
            return kept.body
        made = verification.own(shared.engine, view.catalog, index, nova, _node_checks)
        body = made.as_dict()
        _kept = _Kept(index, view, fingerprint, body)
        return body


def warm(shared: Services) -> None:
    """Make the report the next GET /v1/verify answers, unless the catalog has errors."""
    view = shared.catalog.view()
    if not has_errors(view.diagnostics):
        report(shared, view, shared.index_cache.current())


VERIFY = Contract(
    "Drift between the catalog, the nodes, Placement (derived from the nodes) and the "
    "Nova flavors; each finding with the command that fixes it",
    {200: obj(required=("aligned", "findings"))},
    errors=(*READ, 503),
)


@router.get("/verify")
@declare(VERIFY)
async def verify(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:verify:get")
    VERIFY.check_query(request)
    shared = services(request)
    view = shared.catalog.view()
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is verified; GET /v1/catalog lists them"
        )
    index = await call(request, shared.index_cache.current)
    return await call(request, lambda: report(shared, view, index))
