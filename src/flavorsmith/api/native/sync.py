"""/v1/sync/plan and /v1/sync/apply: one kind of the sync registry (only=, flavors by default)
synced into the service's own database. A plan is a read: it loads the catalog on disk once
and leaves the service's loaded catalog alone; an apply reloads the service's catalog and
applies that."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from flavorsmith.api.context import allowed, authorize, call, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.native.schemas import SYNC_ROUND
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.schema import QUERY_BOOL, Schema, obj, string
from flavorsmith.api.services import Services
from flavorsmith.catalog.repo import RepoView
from flavorsmith.errors import Invalid, ServiceUnavailable
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.query_values import parse_bool
from flavorsmith.sync import store_target as store
from flavorsmith.sync.engine import AnyKind, ProjectCheck, exclusive, run
from flavorsmith.sync.kinds import DEFAULT, KINDS, NAMES, UnknownKind, choose

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:sync:plan", "role:admin", "See what a sync would change."),
    RuleDefault("flavorsmith:sync:apply", "role:admin", "Apply the catalog to the flavors."),
]


@dataclass(frozen=True)
class Choice:
    kind: AnyKind
    prune: bool
    allow_empty: bool  # let a prune delete every managed object of the kind


def _flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name)
    return parse_bool(name, raw) if raw is not None else False


def _prepare(request: Request, rule: str, contract: Contract) -> Choice:
    authorize(request, rule)
    contract.check_query(request)
    only = request.query_params.get("only", DEFAULT)
    try:
        kind = choose(only)
    except UnknownKind:
        raise Invalid(
            f"Cannot sync {only!r}: " + " or ".join(f"only={name}" for name in NAMES)
        ) from None
    if kind.store_target is None:
        raise Invalid(store.no_store_target(kind))
    if services(request).catalog.repository is None:
        raise ServiceUnavailable("The service has no catalog repository (start it with --repo)")
    return Choice(kind, _flag(request, "prune"), _flag(request, "allow_empty"))


def _projects(shared: Services, request: Request) -> ProjectCheck | None:
    """Under Keystone, a private flavor's projects are checked with the caller's token, as
    the compute API checks flavor access."""
    verify = shared.verify_project
    if verify is None:
        return None
    token = request.headers.get("x-auth-token")
    return lambda project: verify(project, token)


def _work(
    shared: Services, choice: Choice, execute: bool, projects: ProjectCheck | None = None
) -> dict[str, Any]:
    """One round of the chosen kind on the service's own database. A plan loads the catalog
    on disk once and changes nothing; an apply reloads the service's catalog (so the service
    serves what it applied) and applies that, under the sync lock."""
    repository = shared.catalog.repository
    assert repository is not None  # checked by _prepare

    def round_of(view: RepoView) -> dict[str, Any]:
        # Extra specs go through the one validation path (permissive: a bad value of a known
        # key is refused as the compute API refuses it; Ironic's capabilities are kept).
        registry = shared.catalog.registry() if execute else shared.catalog.rules_registry(view)
        check = refusal(registry, "permissive")
        result = run(
            choice.kind,
            view,
            store.target(choice.kind, shared.engine, spec_check=check, project_check=projects),
            prune=choice.prune,
            execute=execute,
            allow_empty=choice.allow_empty,
        )
        return result.as_dict()

    if not execute:
        return round_of(repository.load())
    with exclusive(shared.engine, wait=True):
        return round_of(shared.catalog.reload())


SYNC_QUERY: dict[str, Schema] = {
    "prune": QUERY_BOOL,
    "allow_empty": QUERY_BOOL,  # let a prune delete every managed object of the kind
    # The kinds this service can sync into its own database (the others go to a real cloud).
    "only": string(enum=[kind.name for kind in KINDS if kind.store_target is not None]),
}


SYNC_PLAN = Contract(
    "What a sync of the catalog would change",
    {200: SYNC_ROUND},
    query=SYNC_QUERY,
    errors=(*READ, 503),
)


@router.get("/sync/plan")
@declare(SYNC_PLAN)
async def sync_plan(request: Request) -> dict[str, Any]:
    choice = _prepare(request, "flavorsmith:sync:plan", SYNC_PLAN)
    shared = services(request)
    return await call(request, lambda: _work(shared, choice, False))


SYNC_KIND = obj(
    {
        "name": string(),  # only= names it
        "noun": string(),  # many of its objects ("deploy templates")
        "subject": string(),  # one of them ("template")
        "watched": {"type": "boolean"},  # serve --sync keeps it in sync
    },
    required=("name", "noun", "subject", "watched"),
)
SYNC_ALLOWED = Contract(
    "What the caller may do: plan a sync, apply it (by policy); the kinds this service syncs",
    {
        200: obj(
            {
                "plan": {"type": "boolean"},
                "apply": {"type": "boolean"},
                "kinds": {"type": "array", "items": SYNC_KIND},
            },
            required=("plan", "apply", "kinds"),
        )
    },
    errors=READ,
)


@router.get("/sync/allowed")
@declare(SYNC_ALLOWED)
async def sync_allowed(request: Request) -> dict[str, Any]:
    """What the caller may do here: plan, apply (its own permissions, by policy; the
    dashboard shows Apply only to callers who may apply), and the kinds of the registry this
    service can sync into its own database, in the registry's order (the dashboard's sync page
    plans the watched ones unless one is chosen)."""
    SYNC_ALLOWED.check_query(request)
    return {
        "plan": allowed(request, "flavorsmith:sync:plan"),
        "apply": allowed(request, "flavorsmith:sync:apply"),
        "kinds": [
            {"name": k.name, "noun": k.noun, "subject": k.subject, "watched": k.watched}
            for k in KINDS
            if k.store_target is not None
        ],
    }


SYNC_APPLY = Contract(
    "Apply the catalog (409 with the same body when something failed)",
    {200: SYNC_ROUND, 409: SYNC_ROUND},
    query=SYNC_QUERY,
    errors=(*READ, 409, 503),
)


@router.post("/sync/apply")
@declare(SYNC_APPLY)
async def sync_apply(request: Request) -> JSONResponse:
    """200 when everything applied; 409 with the same body when the catalog is missing or has
    errors, a prune would delete every managed object without allow_empty=true, or an action
    failed (the body says which; nothing is applied in the first two cases)."""
    choice = _prepare(request, "flavorsmith:sync:apply", SYNC_APPLY)
    shared = services(request)
    projects = _projects(shared, request)
    body = await call(request, lambda: _work(shared, choice, True, projects))
    failed = (
        bool(body.get("failed"))
        or bool(body.get("error"))
        or any(d["severity"] == "error" for d in body["diagnostics"])
    )
    return JSONResponse(body, status_code=409 if failed else 200)
