"""/compute/v2.1/flavors/{id}/os-flavor-access and the tenant access actions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.compute.schemas import ACCESS_ACTION, ACCESS_LIST, NOVA_READ, NOVA_WRITE
from flavorsmith.api.context import authorize, call, run, services
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.policy import PolicyDenied
from flavorsmith.api.requests import json_body
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.store import nova_flavors as store

router = APIRouter()
ACTIONS = {
    "addTenantAccess": "os_compute_api:os-flavor-access:add_tenant_access",
    "removeTenantAccess": "os_compute_api:os-flavor-access:remove_tenant_access",
}


def _body(flavorid: str, projects: list[str]) -> dict[str, Any]:
    return {"flavor_access": [{"flavor_id": flavorid, "tenant_id": p} for p in projects]}


def _authorize_any(request: Request) -> None:
    """403 unless the caller may take at least one of the actions."""
    denied: PolicyDenied | None = None
    for rule in ACTIONS.values():
        try:
            authorize(request, rule)
            return
        except PolicyDenied as exc:
            denied = denied or exc
    assert denied is not None
    raise denied


LIST_ACCESS = Contract(
    "List the projects of a private flavor", {200: ACCESS_LIST}, errors=(*NOVA_READ, 404)
)


@router.get("/v2.1/flavors/{flavorid}/os-flavor-access")
@declare(LIST_ACCESS)
async def list_access(request: Request, flavorid: str) -> dict[str, Any]:
    authorize(request, "os_compute_api:os-flavor-access")
    LIST_ACCESS.check_query(request)

    def work(connection: Connection) -> list[str]:
        row = store.get(connection, flavorid)
        if row["is_public"]:
            raise NotFound("Access list not available for public flavors.")
        return store.projects(connection, row)

    return _body(flavorid, await run(request, work, write=False))


FLAVOR_ACTION = Contract(
    "addTenantAccess or removeTenantAccess",
    {200: ACCESS_LIST},
    body=ACCESS_ACTION,
    errors=(*NOVA_WRITE, 404, 409),
)


@router.post("/v2.1/flavors/{flavorid}/action")
@declare(FLAVOR_ACTION)
async def flavor_action(request: Request, flavorid: str) -> dict[str, Any]:
    # Policy before the body: a caller allowed neither action learns nothing from parsing.
    _authorize_any(request)
    FLAVOR_ACTION.check_query(request)
    body = await json_body(request)
    if not isinstance(body, dict) or len(body) != 1:
        raise Invalid("The body must be one action: addTenantAccess or removeTenantAccess")
    ((action, argument),) = body.items()
    if action not in ACTIONS:
        raise Invalid(f"There is no such action: {action}")
    authorize(request, ACTIONS[action])
    if (
        not isinstance(argument, dict)
        or set(argument) != {"tenant"}
        or not isinstance(argument["tenant"], str)
        or not 1 <= len(argument["tenant"]) <= 255
    ):
        raise Invalid(
            f'Invalid input for field/attribute {action}: expected {{"tenant": "<project id>"}}'
        )
    project = argument["tenant"]
    verify = services(request).verify_project
    if action == "addTenantAccess" and verify is not None:
        # Nova asks Keystone with the caller's token before it adds access.
        token = request.headers.get("x-auth-token")
        if not await call(request, lambda: verify(project, token)):
            raise Invalid(f"Project ID {project} is not a valid project.")

    def work(connection: Connection) -> list[str]:
        row = store.get(connection, flavorid, lock=True)
        if action == "addTenantAccess":
            store.add_project(connection, row, project)
        else:
            store.remove_project(connection, row, project)
        return store.projects(connection, row)

    return _body(flavorid, await run(request, work, write=True))
