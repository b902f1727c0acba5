"""/v1/sync/plan and /v1/sync/apply: the flavor (or, with only=deploy-templates, the deploy
template) sync against the service's own compute (or bare metal) API."""

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


def _prepare(request: Request, rule: str) -> tuple[bool, str]:
    request.app.state.services.enforcer.authorize(rule, identity(request))
    check_query(request, ("prune", "only"))
    only = request.query_params.get("only", "flavors")
    if only not in ("flavors", "deploy-templates"):
        raise Invalid(f"Cannot sync {only!r}: only=flavors or only=deploy-templates")
    if request.app.state.services.catalog.repository is None:
        raise ServiceUnavailable("The service has no catalog repository (start it with --repo)")
    raw = request.query_params.get("prune")
    return (parse_bool("prune", raw) if raw is not None else False), only


def _work(services: Any, prune: bool, execute: bool, only: str) -> dict[str, Any]:
    """One sync round on the service's own flavors or deploy templates, from the catalog as
    it is on disk now."""
    from flavorsmith.deploy.sync import run as run_templates
    from flavorsmith.deploy.targets import DatabaseTemplates
    from flavorsmith.nova.sync import Round, exclusive
    from flavorsmith.nova.sync import run as run_flavors
    from flavorsmith.nova.targets import DatabaseTarget

    services.catalog.reload()
    repository = services.catalog.repository
    run: Any = run_flavors
    target: Any = DatabaseTarget(services.engine)
    if only == "deploy-templates":
        run, target = run_templates, DatabaseTemplates(services.engine)
    if not execute:
        result: Round = run(repository, target, prune=prune, execute=False)
        return result.as_dict()
    with exclusive(services.engine, wait=True):
        result = run(repository, target, prune=prune, execute=True)
        return result.as_dict()


@router.get("/sync/plan")
async def sync_plan(request: Request) -> dict[str, Any]:
    prune, only = _prepare(request, "flavorsmith:sync:plan")
    body: dict[str, Any] = await run_in_threadpool(
        _work, request.app.state.services, prune, False, only
    )
    return body


@router.post("/sync/apply")
async def sync_apply(request: Request) -> JSONResponse:
    """200 when everything applied; 409 with the same body when the catalog has errors or an
    action failed (the body says which)."""
    prune, only = _prepare(request, "flavorsmith:sync:apply")
    body: dict[str, Any] = await run_in_threadpool(
        _work, request.app.state.services, prune, True, only
    )
    failed = (
        bool(body.get("failed"))
        or bool(body.get("error"))
        or any(d["severity"] == "error" for d in body["diagnostics"])
    )
    return JSONResponse(body, status_code=409 if failed else 200)
