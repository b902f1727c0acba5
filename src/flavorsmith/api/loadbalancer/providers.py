"""/load-balancer/v2/lbaas/providers and their flavor capabilities."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, services
from flavorsmith.api.loadbalancer.common import ROOTS, fields_of, select_fields
from flavorsmith.errors import Invalid
from flavorsmith.providers.validation import capabilities

router = APIRouter()
P = "os_load-balancer_api"


def _only(request: Request, allowed: tuple[str, ...]) -> None:
    for name in request.query_params:
        if name not in allowed:
            raise Invalid("One or more arguments are either duplicate or invalid")


async def list_providers(request: Request) -> dict[str, Any]:
    authorize(request, f"{P}:provider:get_all")
    _only(request, ("fields",))
    fields = fields_of(request, ("name", "description"))
    registry = services(request).providers
    rows = [{"name": p.name, "description": p.description} for p in registry.providers.values()]
    return {"providers": [select_fields(r, fields) for r in rows]}


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
