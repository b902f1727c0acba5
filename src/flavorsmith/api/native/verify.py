"""/v1/verify: drift between the catalog, the service's nodes, Placement as Nova's ironic
driver derives it from them, and the service's own Nova flavors — what ``flavorsmith verify
-f json`` prints without a cloud. It shows every flavor's access and every node, so it asks
for the admin role."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, call, services
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import ServiceUnavailable
from flavorsmith.sync import verification

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:verify:get",
        "role:admin",
        "Read the drift between the catalog, the nodes, Placement and the Nova flavors.",
    ),
]


@router.get("/verify")
async def verify(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:verify:get")
    check_query(request, ())
    shared = services(request)
    view = shared.catalog.view()
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is verified; GET /v1/catalog lists them"
        )
    index = await call(request, shared.index_cache.current)
    report = await call(request, lambda: verification.own(shared.engine, view.catalog, index))
    return report.as_dict()
