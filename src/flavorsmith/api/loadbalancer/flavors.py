"""/load-balancer/v2/lbaas/flavors: readers list and show, admins write (Octavia's rules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.context import authorize, run
from flavorsmith.api.loadbalancer.common import (
    ROOTS,
    fields_of,
    listing,
    select_fields,
    wrapped_body,
)
from flavorsmith.api.requests import check_query
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


async def show_flavor(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:get_one")
    check_query(request, ("fields",))
    row = await run(request, lambda c: store.flavor(c, ident), write=False)
    return {"flavor": select_fields(shown(row), fields_of(request, store.FLAVOR_FIELDS))}


async def create_flavor(request: Request, response: Response) -> dict[str, Any]:
    authorize(request, f"{P}:post")
    check_query(request, ())
    values = await wrapped_body(request, "flavor", CREATE)
    row = await run(request, lambda c: service.create_flavor(c, values), write=True)
    response.status_code = 201
    return {"flavor": shown(row)}


async def update_flavor(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, f"{P}:put")
    check_query(request, ())
    values = await wrapped_body(request, "flavor", UPDATE)
    row = await run(request, lambda c: service.update_flavor(c, ident, values), write=True)
    return {"flavor": shown(row)}


async def delete_flavor(request: Request, ident: str) -> Response:
    authorize(request, f"{P}:delete")
    check_query(request, ())
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
