"""/v1/sync/plan and /v1/sync/apply: the flavor sync against the service's own compute API."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, identity
from flavorsmith.errors import Invalid, ServiceUnavailable
from flavorsmith.inventory.query import parse_bool

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:sync:plan", "role:admin", "See what a sync would change."),
    RuleDefault("flavorsmith:sync:apply", "role:admin", "Apply the catalog to the flavors."),
]


def _prepare(request: Request, rule: str) -> bool:
    request.app.state.services.enforcer.authorize(rule, identity(request))
    check_query(request, ("prune", "only"))
    only = request.query_params.get("only", "flavors")
    if only != "flavors":
        raise Invalid(f"Cannot sync {only!r} here yet; only=flavors")
    if request.app.state.services.catalog.repository is None:
        raise ServiceUnavailable("The service has no catalog repository (start it with --repo)")
    raw = request.query_params.get("prune")
    return parse_bool("prune", raw) if raw is not None else False


def _work(services: Any, prune: bool, execute: bool) -> dict[str, Any]:
    """One sync round on the service's own flavors, from the catalog as it is on disk now."""
    from flavorsmith.nova.sync import exclusive, run
    from flavorsmith.nova.targets import DatabaseTarget

    services.catalog.reload()
    repository = services.catalog.repository
    target = DatabaseTarget(services.engine)
    if not execute:
        return run(repository, target, prune=prune, execute=False).as_dict()
    with exclusive(services.engine, wait=True):
        return run(repository, target, prune=prune, execute=True).as_dict()


@router.get("/sync/plan")
async def sync_plan(request: Request) -> dict[str, Any]:
    prune = _prepare(request, "flavorsmith:sync:plan")
    body: dict[str, Any] = await run_in_threadpool(_work, request.app.state.services, prune, False)
    return body


@router.post("/sync/apply")
async def sync_apply(request: Request) -> JSONResponse:
    """200 when everything applied; 409 with the same body when the catalog has errors or an
    action failed (the body says which)."""
    prune = _prepare(request, "flavorsmith:sync:apply")
    body: dict[str, Any] = await run_in_threadpool(_work, request.app.state.services, prune, True)
    failed = (
        bool(body.get("failed"))
        or bool(body.get("error"))
        or any(d["severity"] == "error" for d in body["diagnostics"])
    )
    return JSONResponse(body, status_code=409 if failed else 200)
