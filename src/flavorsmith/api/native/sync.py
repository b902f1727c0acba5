"""/v1/sync/plan and /v1/sync/apply: the flavor (or, with only=deploy-templates, the deploy
template) sync against the service's own compute (or bare metal) API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, identity
from flavorsmith.errors import Invalid, ServiceUnavailable
from flavorsmith.params import parse_bool

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:sync:plan", "role:admin", "See what a sync would change."),
    RuleDefault("flavorsmith:sync:apply", "role:admin", "Apply the catalog to the flavors."),
]


@dataclass(frozen=True)
class Choice:
    only: str
    prune: bool
    allow_empty: bool  # let a prune delete every managed object of the kind


def _flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name)
    return parse_bool(name, raw) if raw is not None else False


def _prepare(request: Request, rule: str) -> Choice:
    request.app.state.services.enforcer.authorize(rule, identity(request))
    check_query(request, ("prune", "only", "allow_empty"))
    only = request.query_params.get("only", "flavors")
    if only not in ("flavors", "deploy-templates"):
        raise Invalid(f"Cannot sync {only!r}: only=flavors or only=deploy-templates")
    if request.app.state.services.catalog.repository is None:
        raise ServiceUnavailable("The service has no catalog repository (start it with --repo)")
    return Choice(only, _flag(request, "prune"), _flag(request, "allow_empty"))


def _work(services: Any, choice: Choice, execute: bool) -> dict[str, Any]:
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
    if choice.only == "deploy-templates":
        run, target = run_templates, DatabaseTemplates(services.engine)
    options = {"prune": choice.prune, "allow_empty": choice.allow_empty}
    if not execute:
        result: Round = run(repository, target, execute=False, **options)
        return result.as_dict()
    with exclusive(services.engine, wait=True):
        result = run(repository, target, execute=True, **options)
        return result.as_dict()


@router.get("/sync/plan")
async def sync_plan(request: Request) -> dict[str, Any]:
    choice = _prepare(request, "flavorsmith:sync:plan")
    body: dict[str, Any] = await run_in_threadpool(_work, request.app.state.services, choice, False)
    return body


@router.post("/sync/apply")
async def sync_apply(request: Request) -> JSONResponse:
    """200 when everything applied; 409 with the same body when the catalog is missing or has
    errors, a prune would delete every managed object without allow_empty=true, or an action
    failed (the body says which; nothing is applied in the first two cases)."""
    choice = _prepare(request, "flavorsmith:sync:apply")
    body: dict[str, Any] = await run_in_threadpool(_work, request.app.state.services, choice, True)
    failed = (
        bool(body.get("failed"))
        or bool(body.get("error"))
        or any(d["severity"] == "error" for d in body["diagnostics"])
    )
    return JSONResponse(body, status_code=409 if failed else 200)
