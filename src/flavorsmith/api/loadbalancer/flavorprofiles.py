"""/load-balancer/v2/lbaas/flavorprofiles: admin only, as in Octavia."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.context import authorize, run, services
from flavorsmith.api.contract import READ, WRITE, Contract, declare
from flavorsmith.api.loadbalancer.common import (
    ROOTS,
    fields_of,
    listing,
    select_fields,
    wrapped_body,
)
from flavorsmith.api.loadbalancer.schemas import (
    PROFILE,
    PROFILE_CREATE_BODY,
    PROFILE_UPDATE_BODY,
    octavia_list,
    octavia_list_query,
)
from flavorsmith.api.schema import array, obj, string
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

router = APIRouter()
P = "os_load-balancer_api:flavor-profile"
# What Octavia 19 takes (api/v2/types/flavor_profile.py lines 42-60): no client-supplied id.
CREATE = frozenset({"name", "provider_name", "flavor_data"})
UPDATE = CREATE


LIST_PROFILES = Contract(
    "List flavor profiles",
    {200: octavia_list("flavorprofiles", PROFILE)},
    query=octavia_list_query(store.PROFILE_FIELDS),
    errors=(*READ, 404),
    query_array=("fields",),
)


@declare(LIST_PROFILES)
async def list_profiles(request: Request) -> dict[str, Any]:
    authorize(request, f"{P}:get_all")
    return await listing(
        request,
        "profiles",
        collection="flavorprofiles",
        links_key="flavorprofile_links",
        known=store.PROFILE_FIELDS,
        filterable=store.PROFILE_FIELDS,
    )


SHOW_PROFILE = Contract(
    "Show a flavor profile",
    {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
    query={"fields": array(string(enum=list(store.PROFILE_FIELDS)))},
    errors=(*READ, 404),
    query_array=("fields",),
)


@declare(SHOW_PROFILE)
async def show_profile(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:get_one")
    SHOW_PROFILE.check_query(request)
    row = await run(request, lambda c: store.profile(c, ident), write=False)
    return {"flavorprofile": select_fields(row, fields_of(request, store.PROFILE_FIELDS))}


CREATE_PROFILE = Contract(
    "Create a flavor profile",
    {201: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
    body=PROFILE_CREATE_BODY,
    errors=(*WRITE, 409, 502),
)


@declare(CREATE_PROFILE)
async def create_profile(request: Request, response: Response) -> dict[str, Any]:
    authorize(request, f"{P}:post")
    CREATE_PROFILE.check_query(request)
    values = await wrapped_body(request, "flavorprofile", CREATE)
    registry = services(request).providers
    row = await run(request, lambda c: service.create_profile(c, registry, values), write=True)
    response.status_code = 201
    return {"flavorprofile": row}


UPDATE_PROFILE = Contract(
    "Update a flavor profile",
    {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
    body=PROFILE_UPDATE_BODY,
    errors=(*WRITE, 404, 409, 502),
)


@declare(UPDATE_PROFILE)
async def update_profile(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:put")
    UPDATE_PROFILE.check_query(request)
    values = await wrapped_body(request, "flavorprofile", UPDATE)
    registry = services(request).providers
    row = await run(
        request, lambda c: service.update_profile(c, registry, ident, values), write=True
    )
    return {"flavorprofile": row}


DELETE_PROFILE = Contract("Delete an unused flavor profile", {204: None}, errors=(*READ, 404, 409))


@declare(DELETE_PROFILE)
async def delete_profile(request: Request, ident: str) -> Response:
    authorize(request, f"{P}:delete")
    DELETE_PROFILE.check_query(request)
    await run(request, lambda c: service.delete_profile(c, ident), write=True)
    return Response(status_code=204)


for _root in ROOTS:
    router.add_api_route(f"{_root}/flavorprofiles", list_profiles, methods=["GET"])
    router.add_api_route(f"{_root}/flavorprofiles", create_profile, methods=["POST"])
    router.add_api_route(f"{_root}/flavorprofiles/{{ident}}", show_profile, methods=["GET"])
    router.add_api_route(f"{_root}/flavorprofiles/{{ident}}", update_profile, methods=["PUT"])
    router.add_api_route(
        f"{_root}/flavorprofiles/{{ident}}", delete_profile, methods=["DELETE"], status_code=204
    )
