"""The root document listing the APIs, liveness and readiness."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from flavorsmith import __version__
from flavorsmith.api.context import services
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import base, link
from flavorsmith.api.middleware import DATABASE_RETRY_AFTER
from flavorsmith.api.schema import ANY_OBJECT, LINKS, array, obj, string
from flavorsmith.api.services import CatalogState
from flavorsmith.catalog.kinds import KINDS
from flavorsmith.db import migrate
from flavorsmith.db.engine import ping
from flavorsmith.db.outage import outage

router = APIRouter()

APIS = (
    ("/baremetal", "OpenStack Ironic API v1", "nodes, node traits, deploy templates"),
    ("/compute", "OpenStack Nova API v2.1", "flavors, flavor extra specs, flavor access"),
    ("/load-balancer", "OpenStack Octavia API v2", "providers, flavor profiles, flavors"),
    ("/v1", "Flavorsmith", "catalog, matches, capacity, classification, sync"),
)

ROOT_DOC = obj(
    {
        "name": string(),
        "version": string(),
        "apis": array(ANY_OBJECT),
        "links": LINKS,
    },
    required=("name", "version", "apis"),
)


def _described_by(href: str) -> dict[str, str]:
    """The link to an OpenAPI document."""
    return link(href, "describedby", type="application/json")


ROOT = Contract(
    "The APIs this service serves, and where to find this document",
    {200: ROOT_DOC},
)


@router.get("/")
@declare(ROOT)
async def root(request: Request) -> dict[str, Any]:
    top = base(request)
    return {
        "name": "Flavorsmith",
        "version": __version__,
        "apis": [
            {
                "prefix": prefix,
                "compatible_with": what,
                "resources": resources,
                "href": top + prefix,
            }
            for prefix, what, resources in APIS
        ],
        "links": [_described_by(f"{top}/openapi.json")],
    }


NATIVE_V1 = Contract("The Flavorsmith API's version document", {200: ANY_OBJECT})


@router.get("/v1")
@declare(NATIVE_V1)
async def native_v1(request: Request) -> dict[str, Any]:
    """The native API's version document, pointing at the OpenAPI document."""
    top = base(request)
    return {
        "id": "v1",
        "status": "CURRENT",
        "links": [link(f"{top}/v1", "self"), _described_by(f"{top}/v1/openapi.json")],
    }


HEALTHZ = Contract("Liveness", {200: obj({"status": string()}, required=("status",))})


@router.get("/healthz")
@declare(HEALTHZ)
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


READYZ = Contract(
    "Readiness: the database answers, its migrations are current, the catalog is "
    "usable, a mirrored Ironic has been loaded once and the first warming of the "
    "caches (the match index, the matrix's groups, the drift report) has finished",
    {200: obj({"status": string()}, required=("status",))},
)


@router.get("/readyz")
@declare(READYZ)
def readyz(request: Request) -> JSONResponse:
    shared = services(request)
    try:
        ping(shared.engine)
        current = migrate.current(shared.engine)
    except Exception as exc:  # any driver error means "not ready", never a 500
        # The driver's line names what is wrong (refused, not accepting connections, ...).
        reason = outage(exc) or type(exc).__name__
        return JSONResponse(
            {"status": "unavailable", "database": f"unreachable: {reason}"},
            status_code=503,
            headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
        )
    head = migrate.head()
    if current != head:
        return JSONResponse(
            {
                "status": "unavailable",
                "database": "ok",
                "migrations": f"at {current or 'none'}, need {head}: run flavorsmith db upgrade",
            },
            status_code=503,
        )
    problem = catalog_problem(shared.catalog)
    if problem is not None:
        return JSONResponse(
            {
                "status": "unavailable",
                "database": "ok",
                "migrations": current,
                "catalog": problem,
            },
            status_code=503,
        )
    body: dict[str, Any] = {"status": "ready", "database": "ok", "migrations": current}
    if shared.leadership is not None:
        body["background"] = shared.leadership.state()
    mirror = shared.mirror
    if mirror is not None:
        # The last good mirror keeps serving while Ironic is down or slow (ready, with the
        # error shown); before the first load there is nothing to serve.
        body["ironic"] = mirror.state()
        problem = mirror.not_ready()
        if problem is not None:
            body.update(status="unavailable", nodes=problem)
            return JSONResponse(body, status_code=503)
    # The first warming (index, matrix groups, drift report): a request before it ends would
    # wait seconds at 100,000 nodes. Later warmings never make the process unready.
    warming = shared.warming.pending() if shared.warming is not None else None
    if warming is not None:
        body.update(status="unavailable", warming=warming)
        return JSONResponse(body, status_code=503)
    return JSONResponse(body)


def catalog_problem(catalog: CatalogState) -> str | None:
    """Why the served catalog is not usable (its folder is gone, or it defines nothing), else
    None. A service without a catalog repository has nothing to check."""
    repository = catalog.repository
    if repository is None:
        return None
    if not repository.exists():
        return f"missing: {repository.root} has no hardware/ folder"
    if not any(repository.definition_files(kind) for kind in KINDS):
        return f"empty: no definitions under {repository.hardware}"
    return None
