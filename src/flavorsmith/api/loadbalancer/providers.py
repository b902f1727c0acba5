"""/load-balancer/v2/lbaas/providers and their flavor capabilities."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.loadbalancer.common import ROOTS, fields_of, select_fields
from flavorsmith.api.loadbalancer.schemas import CAPABILITY, OCTAVIA_FIELDS
from flavorsmith.api.schema import array, obj, string
from flavorsmith.errors import Invalid
from flavorsmith.providers.validation import capabilities

router = APIRouter()
P = "os_load-balancer_api"


def _only(request: Request, allowed: tuple[str, ...]) -> None:
    for name in request.query_params:
        if name not in allowed:
            raise Invalid("One or more arguments are either duplicate or invalid")


LIST_PROVIDERS = Contract(
    "List enabled providers",
    {200: obj({"providers": array(CAPABILITY)}, required=("providers",))},
    query=OCTAVIA_FIELDS,
    errors=READ,
    query_array=("fields",),
)


@declare(LIST_PROVIDERS)
async def list_providers(request: Request) -> dict[str, Any]:
    authorize(request, f"{P}:provider:get_all")
    _only(request, ("fields",))
    fields = fields_of(request, ("name", "description"))
    registry = services(request).providers
    rows = [{"name": p.name, "description": p.description} for p in registry.providers.values()]
    return {"providers": [select_fields(r, fields) for r in rows]}


LIST_CAPABILITIES = Contract(
    "List a provider's flavor capabilities",
    {
        200: obj(
            {"flavor_capabilities": array(CAPABILITY)},
            required=("flavor_capabilities",),
        )
    },
    query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
    errors=READ,
    query_array=("fields",),
)


@declare(LIST_CAPABILITIES)
async def list_capabilities(request: Request, provider: str) -> dict[str, Any]:
    authorize(request, f"{P}:provider-flavor:get_all")
    _only(request, ("fields", "name", "description"))
    fields = fields_of(request, ("name", "description"))
    found = services(request).providers.get(provider)
    rows = capabilities(found)
    for key in ("name", "description"):
        if key in request.query_params:
            rows = [r for r in rows if r[key] == request.query_params[key]]
    return {"flavor_capabilities": [select_fields(r, fields) for r in rows]}


LIST_ZONE_CAPABILITIES = Contract(
    "List a provider's availability zone capabilities (none)",
    {
        200: obj(
            {"availability_zone_capabilities": array(CAPABILITY)},
            required=("availability_zone_capabilities",),
        )
    },
    query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
    errors=READ,
    query_array=("fields",),
)


@declare(LIST_ZONE_CAPABILITIES)
async def list_zone_capabilities(request: Request, provider: str) -> dict[str, Any]:
    """Octavia's clients list these beside flavor capabilities; no provider here has any."""
    authorize(request, f"{P}:provider-availability-zone:get_all")
    _only(request, ("fields", "name", "description"))
    services(request).providers.get(provider)
    return {"availability_zone_capabilities": []}


for _root in ROOTS:
    router.add_api_route(
        f"{_root}/providers/{{provider}}/availability_zone_capabilities",
        list_zone_capabilities,
        methods=["GET"],
    )
    router.add_api_route(f"{_root}/providers", list_providers, methods=["GET"])
    router.add_api_route(
        f"{_root}/providers/{{provider}}/flavor_capabilities", list_capabilities, methods=["GET"]
    )
