"""/load-balancer/v2/lbaas/flavors: readers list and show, admins write (Octavia's rules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.context import authorize, run
from flavorsmith.api.contract import READ, WRITE, Contract, declare
from flavorsmith.api.loadbalancer.common import (
    ROOTS,
    fields_of,
    listing,
    select_fields,
    wrapped_body,
)
from flavorsmith.api.loadbalancer.schemas import (
    FLAVOR_CREATE_BODY,
    FLAVOR_UPDATE_BODY,
    LB_FLAVOR,
    octavia_list,
    octavia_list_query,
)
from flavorsmith.api.schema import array, obj, string
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

router = APIRouter()
P = "os_load-balancer_api:flavor"
# What Octavia 19 takes (api/v2/types/flavors.py lines 43-58): no client-supplied id, and a
# flavor's profile is set once.
CREATE = frozenset({"name", "description", "enabled", "flavor_profile_id"})
UPDATE = frozenset({"name", "description", "enabled"})


def shown(row: dict[str, Any]) -> dict[str, Any]:
    """A flavor as Octavia 19 shows it: a null name or description is "" (stored NULL;
    api/common/types.py, from_db_obj)."""
    return {**row, "name": row["name"] or "", "description": row["description"] or ""}


LIST_FLAVORS = Contract(
    "List flavors",
    {200: octavia_list("flavors", LB_FLAVOR)},
    query=octavia_list_query(store.FLAVOR_FIELDS),
    errors=(*READ, 404),
    query_array=("fields",),
)


@declare(LIST_FLAVORS)
async def list_flavors(request: Request) -> dict[str, Any]:
    authorize(request, f"{P}:get_all")
    return await listing(
        request,
        "flavors",
        collection="flavors",
        links_key="flavors_links",
        known=store.FLAVOR_FIELDS,
        filterable=store.FLAVOR_FIELDS,
        shown=shown,
    )


SHOW_FLAVOR = Contract(
    "Show a flavor",
    {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
    query={"fields": array(string(enum=list(store.FLAVOR_FIELDS)))},
    errors=(*READ, 404),
    query_array=("fields",),
)


@declare(SHOW_FLAVOR)
async def show_flavor(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:get_one")
    SHOW_FLAVOR.check_query(request)
    row = await run(request, lambda c: store.flavor(c, ident), write=False)
    return {"flavor": select_fields(shown(row), fields_of(request, store.FLAVOR_FIELDS))}


CREATE_FLAVOR = Contract(
    "Create a flavor",
    {201: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
    body=FLAVOR_CREATE_BODY,
    errors=(*WRITE, 409),
)


@declare(CREATE_FLAVOR)
async def create_flavor(request: Request, response: Response) -> dict[str, Any]:
    authorize(request, f"{P}:post")
    CREATE_FLAVOR.check_query(request)
    values = await wrapped_body(request, "flavor", CREATE)
    row = await run(request, lambda c: service.create_flavor(c, values), write=True)
    response.status_code = 201
    return {"flavor": shown(row)}


UPDATE_FLAVOR = Contract(
    "Update a flavor",
    {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
    body=FLAVOR_UPDATE_BODY,
    errors=(*WRITE, 404, 409),
)


@declare(UPDATE_FLAVOR)
async def update_flavor(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:put")
    UPDATE_FLAVOR.check_query(request)
    values = await wrapped_body(request, "flavor", UPDATE)
    row = await run(request, lambda c: service.update_flavor(c, ident, values), write=True)
    return {"flavor": shown(row)}


DELETE_FLAVOR = Contract("Delete a flavor", {204: None}, errors=(*READ, 404))


@declare(DELETE_FLAVOR)
async def delete_flavor(request: Request, ident: str) -> Response:
    authorize(request, f"{P}:delete")
    DELETE_FLAVOR.check_query(request)
    await run(request, lambda c: service.delete_flavor(c, ident), write=True)
    return Response(status_code=204)


for _root in ROOTS:
    router.add_api_route(f"{_root}/flavors", list_flavors, methods=["GET"])
    router.add_api_route(f"{_root}/flavors", create_flavor, methods=["POST"])
    router.add_api_route(f"{_root}/flavors/{{ident}}", show_flavor, methods=["GET"])
    router.add_api_route(f"{_root}/flavors/{{ident}}", update_flavor, methods=["PUT"])
    router.add_api_route(
        f"{_root}/flavors/{{ident}}", delete_flavor, methods=["DELETE"], status_code=204
    )
