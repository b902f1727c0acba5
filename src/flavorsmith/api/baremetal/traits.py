"""/baremetal/v1/nodes/{node}/traits: list, replace, clear, add one, remove one."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from flavorsmith.api.baremetal.common import (
    TRAITS_SINCE,
    authorized_node,
    may_act_on_some_node,
    require,
    root,
)
from flavorsmith.api.baremetal.schemas import IRONIC_READ, IRONIC_WRITE, TRAIT
from flavorsmith.api.context import run
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.requests import json_body, microversion
from flavorsmith.api.schema import array, obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.ironic import nodes as rules
from flavorsmith.nodes import service as nodes
from flavorsmith.store import nodes as store

router = APIRouter()


def _put_not_allowed() -> Response:
    """Ironic's answer to a PUT of traits before API version 1.37: its router's own 405."""
    body = {
        "error_message": json.dumps({"code": 405, "title": "Method Not Allowed", "description": ""})
    }
    return JSONResponse(body, status_code=405, headers={"Allow": "DELETE, GET, PATCH, POST"})


def _prepare(request: Request, rule: str, contract: Contract) -> str:
    if request.method == "DELETE" and microversion(request) < TRAITS_SINCE:
        raise NotFound("Resource could not be found.")  # as Ironic: no such resource yet
    require(request, TRAITS_SINCE)
    may_act_on_some_node(request, rule)
    contract.check_query(request)
    return rule


def _locked(connection: Connection, request: Request, ident: str, rule: str) -> dict[str, Any]:
    """The node to change the traits of, as policy and the trait writes read it."""
    return authorized_node(
        connection, request, ident, (rule,), lock=True, columns=store.KEY_COLUMNS
    )


LIST_TRAITS = Contract(
    "List a node's traits (from 1.37)",
    {200: obj({"traits": array(string())}, required=("traits",), additional=False)},
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/nodes/{ident}/traits")
@declare(LIST_TRAITS)
async def list_traits(request: Request, ident: str) -> dict[str, Any]:
    rule = _prepare(request, "baremetal:node:traits:list", LIST_TRAITS)

    def work(connection: Connection) -> list[str]:
        row = authorized_node(connection, request, ident, (rule,), columns=store.KEY_COLUMNS)
        return store.traits_of(connection, [row["id"]])[row["id"]]

    return {"traits": await run(request, work, write=False)}


SET_TRAITS = Contract(
    "Replace a node's traits",
    {204: None},
    body=obj({"traits": array(TRAIT, maxItems=50)}, required=("traits",), additional=False),
    errors=(*IRONIC_WRITE, 404, 409),
)


@router.put("/v1/nodes/{ident}/traits", status_code=204)
@declare(SET_TRAITS)
async def set_traits(request: Request, ident: str) -> Response:
    if microversion(request) < TRAITS_SINCE:
        return _put_not_allowed()
    rule = _prepare(request, "baremetal:node:traits:set", SET_TRAITS)
    body = await json_body(request) if await request.body() else None

    def work(connection: Connection) -> None:
        # As Ironic: an unknown node is a 404 before the body is looked at.
        row = _locked(connection, request, ident, rule)
        nodes.set_traits(connection, row, rules.traits_body(body))

    await run(request, work, write=True, short=True)
    return Response(status_code=204)


CLEAR_TRAITS = Contract(
    "Remove all of a node's traits", {204: None}, errors=(*IRONIC_READ, 404, 409)
)


@router.delete("/v1/nodes/{ident}/traits", status_code=204)
@declare(CLEAR_TRAITS)
async def clear_traits(request: Request, ident: str) -> Response:
    rule = _prepare(request, "baremetal:node:traits:delete", CLEAR_TRAITS)
    await run(
        request,
        lambda c: nodes.remove_all_traits(c, _locked(c, request, ident, rule)),
        write=True,
        short=True,
    )
    return Response(status_code=204)


ADD_TRAIT = Contract("Add one trait", {204: None}, errors=(*IRONIC_READ, 404, 409))


@router.put("/v1/nodes/{ident}/traits/{trait}", status_code=204)
@declare(ADD_TRAIT)
async def add_trait(request: Request, ident: str, trait: str) -> Response:
    if microversion(request) < TRAITS_SINCE:
        return _put_not_allowed()
    rule = _prepare(request, "baremetal:node:traits:set", ADD_TRAIT)
    rules.check_trait(trait)
    if await request.body():
        raise Invalid("Adding one trait takes no request body")
    await run(
        request,
        lambda c: nodes.add_trait(c, _locked(c, request, ident, rule), trait),
        write=True,
        short=True,
    )
    location = f"{root(request)}/v1/nodes/{ident}/traits/{trait}"
    return Response(status_code=204, headers={"Location": location})


REMOVE_TRAIT = Contract("Remove one trait", {204: None}, errors=(*IRONIC_READ, 404, 409))


@router.delete("/v1/nodes/{ident}/traits/{trait}", status_code=204)
@declare(REMOVE_TRAIT)
async def remove_trait(request: Request, ident: str, trait: str) -> Response:
    rule = _prepare(request, "baremetal:node:traits:delete", REMOVE_TRAIT)
    # As Ironic: a malformed name is one no node has (404), not a 400.
    await run(
        request,
        lambda c: nodes.remove_trait(c, _locked(c, request, ident, rule), trait),
        write=True,
        short=True,
    )
    return Response(status_code=204)
