"""/compute/v2.1/flavors: list, detail, show, create, delete, update the description."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.compute import bodies, serialize
from flavorsmith.api.compute.common import at_least, require, root, viewer
from flavorsmith.api.compute.schemas import (
    NOVA_BRIEF,
    NOVA_FLAVOR,
    NOVA_FLAVOR_CREATE,
    NOVA_FLAVOR_UPDATE,
    NOVA_LIST_QUERY,
    NOVA_READ,
    NOVA_WRITE,
)
from flavorsmith.api.context import authorize, run
from flavorsmith.api.contract import Contract, add_lists, declare, params
from flavorsmith.api.paging import is_full, next_href
from flavorsmith.api.query import NOVA, Query
from flavorsmith.api.requests import json_body, microversion
from flavorsmith.api.schema import LINKS, Schema, array, obj
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid
from flavorsmith.extra_specs.safety import Matcher, compile_linear
from flavorsmith.query_values import ascii_int, shown
from flavorsmith.store import nova_flavors as store
from flavorsmith.store.nova_flavors import FlavorQuery

router = APIRouter()

LIST_PARAMS = ("is_public", "minRam", "minDisk", "sort_key", "sort_dir", "limit", "marker", "name")


def _int_filter(name: str, value: str | None) -> int | None:
    """Nova's minRam and minDisk: ASCII digits, at most 2**63-1 (the filter is a bigint)."""
    if value is None:
        return None
    number = _digits(value)
    if number is None:
        raise Invalid(f"Invalid {name} filter [{shown(value)}]")
    return number


def _digits(value: str) -> int | None:
    """``value`` as a number when it is ASCII digits only and fits in 64 bits."""
    if not (value.isascii() and value.isdigit()):
        return None
    return ascii_int(value)


def _query(request: Request, contract: Contract) -> FlavorQuery:
    params = request.query_params
    if at_least(request, 2, 75):  # Nova rejects unknown query parameters from 2.75
        contract.check_query(request)
    query = Query(request, NOVA)
    is_public: bool | None = True
    raw = params.get("is_public")
    if raw is not None:
        is_public = None if raw.strip().lower() == "none" else query.flag("is_public")
    # rxtx_factor left the flavor at 2.102, and with it the sort key.
    keys: tuple[str, ...] = store.SORT_KEYS
    if at_least(request, 2, 102):
        keys = tuple(k for k in keys if k != "rxtx_factor")
    sort_key, sort_dir = query.sort(keys, "flavorid")
    limit = query.page_size()
    name = params.get("name")
    pattern: Matcher | None = None
    if name is not None:
        # Nova matches names as a regular expression in the database; ours run in RE2 (linear
        # time, whatever the pattern), and what RE2 cannot compile is a 400, not Nova's 500.
        if len(name) > 255:
            raise Invalid(f"The name filter {name!r} is longer than 255 characters")
        try:
            pattern = compile_linear(name)
        except ValueError as exc:
            raise Invalid(f"The name filter {name!r} {exc}") from None
    return FlavorQuery(
        is_public=is_public,
        min_ram=_int_filter("minRam", params.get("minRam")),
        min_disk=_int_filter("minDisk", params.get("minDisk")),
        name=pattern,
        sort_key=sort_key,
        sort_dir=sort_dir,
        limit=limit,
        marker=query.marker(),
    )


async def _list(request: Request, contract: Contract, detail: bool) -> dict[str, Any]:
    query = _query(request, contract)
    version = microversion(request)
    who = viewer(request)

    def work(connection: Connection) -> tuple[list[dict[str, Any]], dict[int, dict[str, str]]]:
        rows = store.list_flavors(connection, query, who)
        specs = (
            store.extra_specs(connection, [r["id"] for r in rows])
            if detail and at_least(request, 2, 61)
            else {}
        )
        return rows, specs

    rows, specs = await run(request, work, write=False)
    top = root(request)
    if detail:
        items = [serialize.full(r, version, top, specs.get(r["id"])) for r in rows]
    else:
        items = [serialize.brief(r, version, top) for r in rows]
    body: dict[str, Any] = {"flavors": items}
    if is_full(rows, query.limit):
        url = f"{top}/v2.1/flavors/detail" if detail else f"{top}/v2.1/flavors"
        href = next_href(request, url, limit=query.limit, marker=rows[-1]["flavorid"])
        body["flavors_links"] = [{"rel": "next", "href": href}]
    return body


def _list_contract(summary: str, flavor: Schema) -> Contract:
    """A flavor list, brief or detailed: the same parameters, pages and errors."""
    page = obj(
        {"flavors": array(flavor), "flavors_links": LINKS},
        required=("flavors",),
        additional=False,
    )
    return Contract(
        summary, {200: page}, query=params(LIST_PARAMS, NOVA_LIST_QUERY), errors=NOVA_READ
    )


LIST_FLAVORS = _list_contract("List flavors", NOVA_BRIEF)
LIST_FLAVORS_DETAIL = _list_contract("List flavors with every field", NOVA_FLAVOR)
add_lists(router, "/v2.1/flavors", "list_flavors", _list, LIST_FLAVORS, LIST_FLAVORS_DETAIL)


SHOW_FLAVOR = Contract(
    "Show a flavor",
    {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
    errors=(*NOVA_READ, 404),
)


@router.get("/v2.1/flavors/{flavorid}")
@declare(SHOW_FLAVOR)
async def show_flavor(request: Request, flavorid: str) -> dict[str, Any]:
    SHOW_FLAVOR.check_query(request)
    who = viewer(request)

    def work(connection: Connection) -> tuple[dict[str, Any], dict[str, str]]:
        row = store.get(connection, flavorid, who)
        return row, store.extra_specs(connection, [row["id"]])[row["id"]]

    row, specs = await run(request, work, write=False)
    return {"flavor": serialize.full(row, microversion(request), root(request), specs)}


CREATE_FLAVOR = Contract(
    "Create a flavor",
    {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
    body=NOVA_FLAVOR_CREATE,
    errors=(*NOVA_WRITE, 409),
)


@router.post("/v2.1/flavors")
@declare(CREATE_FLAVOR)
async def create_flavor(request: Request) -> dict[str, Any]:
    authorize(request, "os_compute_api:os-flavor-manage:create")
    CREATE_FLAVOR.check_query(request)
    values = bodies.create(
        await json_body(request),
        description=at_least(request, 2, 55),
        rxtx=not at_least(request, 2, 102),
    )
    row = await run(request, lambda c: store.create(c, values), write=True)
    return {"flavor": serialize.full(row, microversion(request), root(request), {})}


UPDATE_FLAVOR = Contract(
    "Update a flavor's description (from 2.55)",
    {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
    body=NOVA_FLAVOR_UPDATE,
    errors=(*NOVA_WRITE, 404),
)


@router.put("/v2.1/flavors/{flavorid}")
@declare(UPDATE_FLAVOR)
async def update_flavor(request: Request, flavorid: str) -> dict[str, Any]:
    require(request, 2, 55)
    authorize(request, "os_compute_api:os-flavor-manage:update")
    UPDATE_FLAVOR.check_query(request)
    description = bodies.update(await json_body(request))

    def work(connection: Connection) -> tuple[dict[str, Any], dict[str, str]]:
        row = store.set_description(
            connection, store.get(connection, flavorid, lock=True), description
        )
        return row, store.extra_specs(connection, [row["id"]])[row["id"]]

    row, specs = await run(request, work, write=True)
    return {"flavor": serialize.full(row, microversion(request), root(request), specs)}


DELETE_FLAVOR = Contract("Delete a flavor", {202: None}, errors=(*NOVA_READ, 404, 409))


@router.delete("/v2.1/flavors/{flavorid}", status_code=202)
@declare(DELETE_FLAVOR)
async def delete_flavor(request: Request, flavorid: str) -> Response:
    authorize(request, "os_compute_api:os-flavor-manage:delete")
    DELETE_FLAVOR.check_query(request)
    await run(request, lambda c: store.remove(c, store.get(c, flavorid, lock=True)), write=True)
    return Response(status_code=202, media_type="application/json")  # empty, as Nova
