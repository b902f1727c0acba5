"""POST /v1/service-flavors/{flavor_id}/resolve: what a consuming service calls at each use
(as Octavia does inside load-balancer create): the provider and the expanded metadata, after
the driver validated the profile again. The profile's content (flavor data, metadata) is shown
only to callers allowed the profile rule (admins and the ``service`` role by default); others
get the same answer without it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import context
from flavorsmith.api.contract import WRITE, Contract, declare
from flavorsmith.api.loadbalancer.policies import RESOLVE_PROFILE
from flavorsmith.api.native.schemas import RESOLVED
from flavorsmith.api.schema import nullable, obj, string
from flavorsmith.providers import service

router = APIRouter()


RESOLVE = Contract(
    "Resolve a service flavor for use: the provider and expanded metadata",
    {200: RESOLVED},
    body=obj({"provider": nullable(string())}, additional=False),
    body_required=False,
    errors=(*WRITE, 404, 502),
    body_noun="resolve request",
)


@router.post("/service-flavors/{ident}/resolve")
@declare(RESOLVE)
async def resolve(request: Request, ident: str) -> dict[str, Any]:
    ctx = context(request)
    ctx.authorize("flavorsmith:service-flavor:resolve")
    RESOLVE.check_query(request)
    body = await RESOLVE.body_of(request)
    provider = None if body is None else body.get("provider")
    registry = ctx.services.providers
    full = ctx.allowed(RESOLVE_PROFILE)
    result: dict[str, Any] = await ctx.run(
        lambda c: service.resolve(c, registry, ident, provider, with_profile=full),
        write=False,
    )
    return result
