"""GET /v1/nodes/source: where the service's nodes come from — its own database, or a real
Ironic it mirrors, with the mirror's state (last refresh, lag, nodes, the last refresh's
requests and writes, and the last error)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.schema import obj, string

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:nodes:source",
        "role:reader",
        "See where the nodes come from and the state of the Ironic mirror.",
    ),
]


NODE_SOURCE = Contract(
    "Where the nodes come from: the database, or a real Ironic mirrored (its state)",
    {200: obj({"source": string(enum=["database", "ironic"])}, required=("source",))},
    errors=READ,
)


@router.get("/nodes/source")
@declare(NODE_SOURCE)
async def node_source(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:nodes:source")
    NODE_SOURCE.check_query(request)
    mirror = services(request).mirror
    if mirror is None:
        return {"source": "database"}
    return mirror.state()
