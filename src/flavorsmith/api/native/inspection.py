"""POST /v1/nodes/{node}/inspection: store inspection data and apply its classification;
GET: the last classification stored, with its per-field reasons."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import context
from flavorsmith.api.contract import READ, WRITE, Contract, declare
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.schema import ANY_OBJECT, nullable, obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import ServiceUnavailable
from flavorsmith.nodes.service import classify_node
from flavorsmith.store import nodes as store

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:inspection:create",
        "role:admin",
        "Store inspection data for a node and apply its classification.",
    ),
    RuleDefault(
        "flavorsmith:inspection:get",
        "role:reader",
        "Read a node's last classification (not its inspection data).",
    ),
]


def _timestamp(value: datetime) -> str:
    if value.tzinfo is None:  # SQLite keeps no zone; every stored time is UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


LAST_CLASSIFICATION = Contract(
    "A node's last classification: the device type, each candidate's per-field checks, "
    "the traits and the rule behind each (null when nothing was classified)",
    {
        200: obj(
            {
                "node": string(),
                "classified_at": nullable(string()),
                "classification": nullable(ANY_OBJECT),
            },
            required=("node", "classified_at", "classification"),
        )
    },
    errors=(*READ, 404),
)


@router.get("/nodes/{ident}/inspection")
@declare(LAST_CLASSIFICATION)
async def last_classification(request: Request, ident: str) -> dict[str, Any]:
    """What the last classification of the node decided, and when: the device type and each
    candidate's per-field checks, the traits and the rule behind each (``classification`` is
    null when nothing was classified). The inspection data itself is not returned."""
    ctx = context(request)
    ctx.authorize("flavorsmith:inspection:get")
    LAST_CLASSIFICATION.check_query(request)

    def work(connection: Connection) -> dict[str, Any]:
        node = store.find(connection, ident, by_name=True)
        last = store.inspection(connection, node)
        return {
            "node": node["uuid"],
            "classified_at": None if last is None else _timestamp(last["created_at"]),
            "classification": None if last is None else last["result"],
        }

    return await ctx.run(work, write=False)


INSPECT_NODE = Contract(
    "Store inspection data for a node and apply its classification",
    {200: obj(required=("node", "applied"))},
    body=ANY_OBJECT,
    errors=(*WRITE, 404, 409, 503),
    body_noun="inspection data",
)


@router.post("/nodes/{ident}/inspection")
@declare(INSPECT_NODE)
async def inspect_node(request: Request, ident: str) -> dict[str, Any]:
    ctx = context(request)
    ctx.authorize("flavorsmith:inspection:create")
    INSPECT_NODE.check_query(request)
    data = await INSPECT_NODE.body_of(request)
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
