"""/baremetal/v1/nodes/{node}/maintenance: put a node in maintenance (with an optional reason)
or take it out, as Ironic does (202 Accepted, no body)."""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRouter

from flavorsmith import jsonsafe
from flavorsmith.api.baremetal.common import load
from flavorsmith.api.baremetal.schemas import IRONIC_READ, IRONIC_WRITE
from flavorsmith.api.context import authorize, run
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.requests import json_body
from flavorsmith.api.schema import nullable, obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid
from flavorsmith.nodes import service as nodes

router = APIRouter()


async def _reason(request: Request) -> str | None:
    """The reason, from the body ``{"reason": ...}`` or the query (Ironic reads both)."""
    reason: Any = request.query_params.get("reason")
    if (await request.body()).strip():
        body = await json_body(request)
        if not isinstance(body, dict):
            raise Invalid('The body must be an object: {"reason": "..."} or {}')
        unexpected = sorted(set(body) - {"reason"})
        if unexpected:
            raise Invalid(f"Unexpected arguments: {', '.join(unexpected)}")
        reason = body.get("reason", reason)
    if reason is not None and not isinstance(reason, str):
        raise Invalid(f"Expected string for reason: {reason}")
    if reason is not None:
        jsonsafe.check_value("reason", reason)
    return reason


async def _change(request: Request, ident: str, changes: dict[str, Any]) -> Response:
    """Write those of ``changes`` that differ from the node's fields: 202, no body."""

    def work(connection: Connection) -> None:
        row = load(connection, request, ident, lock=True)
        nodes.update(connection, row, {k: v for k, v in changes.items() if row[k] != v})

    await run(request, work, write=True)
    return Response(status_code=202)


SET_MAINTENANCE = Contract(
    "Put a node in maintenance, with an optional reason (202, no body)",
    {202: None},
    query={"reason": string()},
    body=obj({"reason": nullable(string())}, additional=False),
    body_required=False,
    errors=(*IRONIC_WRITE, 404, 409),
)


@router.put("/v1/nodes/{ident}/maintenance", status_code=202)
@declare(SET_MAINTENANCE)
async def set_maintenance(request: Request, ident: str) -> Response:
    authorize(request, "baremetal:node:set_maintenance")
    SET_MAINTENANCE.check_query(request)
    reason = await _reason(request)
    return await _change(request, ident, {"maintenance": True, "maintenance_reason": reason})


CLEAR_MAINTENANCE = Contract(
    "Take a node out of maintenance (202, no body)",
    {202: None},
    errors=(*IRONIC_READ, 404, 409),
)


@router.delete("/v1/nodes/{ident}/maintenance", status_code=202)
@declare(CLEAR_MAINTENANCE)
async def clear_maintenance(request: Request, ident: str) -> Response:
    authorize(request, "baremetal:node:clear_maintenance")
    CLEAR_MAINTENANCE.check_query(request)
    return await _change(request, ident, {"maintenance": False, "maintenance_reason": None})
