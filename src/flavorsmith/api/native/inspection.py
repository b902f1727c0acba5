"""POST /v1/nodes/{node}/inspection: store inspection data and apply its classification."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, identity, json_body
from flavorsmith.db.engine import writer
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import ServiceUnavailable
from flavorsmith.inventory.classifying import classify_node
from flavorsmith.store import nodes as store

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:inspection:create",
        "role:admin",
        "Store inspection data for a node and apply its classification.",
    ),
]


@router.post("/nodes/{ident}/inspection")
async def inspect_node(request: Request, ident: str) -> dict[str, Any]:
    services = request.app.state.services
    services.enforcer.authorize("flavorsmith:inspection:create", identity(request))
    check_query(request, ())
    data = await json_body(request)
    view = services.catalog.view()
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is classified; GET /v1/catalog lists them"
        )

    def work() -> dict[str, Any]:
        with writer(services.engine).begin() as connection:
            node = store.find(connection, ident, by_name=True, lock=True)
            result, changes = classify_node(connection, node, data, view.catalog, apply=True)
            return {"node": node["uuid"], **result.as_dict(), "applied": changes}

    return await run_in_threadpool(work)
