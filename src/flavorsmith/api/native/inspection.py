"""POST /v1/nodes/{node}/inspection: store inspection data and apply its classification."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import context
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, json_body
from flavorsmith.db.engine import Connection
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
    ctx = context(request)
    ctx.authorize("flavorsmith:inspection:create")
    check_query(request, ())
    data = await json_body(request)
    view = ctx.services.catalog.view()
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is classified; GET /v1/catalog lists them"
        )

    def work(connection: Connection) -> dict[str, Any]:
        node = store.find(connection, ident, by_name=True, lock=True)
        result, changes = classify_node(connection, node, data, view.catalog, apply=True)
        return {"node": node["uuid"], **result.as_dict(), "applied": changes}

    return await ctx.run(work, write=True)
