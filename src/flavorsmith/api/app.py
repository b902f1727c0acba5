"""create_app(settings): builds the registries, the engine and the routers, and wires them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from flavorsmith.api import health, openapi, ui
from flavorsmith.api.auth import AuthConfigError, Authenticator, NoAuth, TokenFile
from flavorsmith.api.baremetal import conductor as baremetal_conductor
from flavorsmith.api.baremetal import deploy_templates as baremetal_templates
from flavorsmith.api.baremetal import maintenance as baremetal_maintenance
from flavorsmith.api.baremetal import nodes as baremetal_nodes
from flavorsmith.api.baremetal import runbooks as baremetal_runbooks
from flavorsmith.api.baremetal import traits as baremetal_traits
from flavorsmith.api.baremetal import versions as baremetal
from flavorsmith.api.baremetal.policies import POLICIES as BAREMETAL_POLICIES
from flavorsmith.api.baremetal.policies import keystone_policies as ironic_keystone_policies
from flavorsmith.api.compute import access as compute_access
from flavorsmith.api.compute import extra_specs as compute_extra_specs
from flavorsmith.api.compute import nova_flavors as compute_flavors
from flavorsmith.api.compute import versions as compute
from flavorsmith.api.compute.policies import KEYSTONE_POLICIES as NOVA_KEYSTONE_POLICIES
from flavorsmith.api.compute.policies import POLICIES as COMPUTE_POLICIES
from flavorsmith.api.csrf import CrossSiteGuard
from flavorsmith.api.families import (
    NOT_FOUND_MESSAGES,
    POLICY_MESSAGES,
    Family,
    error_response,
    family_of,
)
from flavorsmith.api.hosts import AllowedHosts, HostGuard
from flavorsmith.api.loadbalancer import flavorprofiles as lb_profiles
from flavorsmith.api.loadbalancer import providers as lb_providers
from flavorsmith.api.loadbalancer import service_flavors as lb_flavors
from flavorsmith.api.loadbalancer import versions as loadbalancer
from flavorsmith.api.loadbalancer.policies import KEYSTONE_POLICIES as OCTAVIA_KEYSTONE_POLICIES
from flavorsmith.api.loadbalancer.policies import POLICIES as LOADBALANCER_POLICIES
from flavorsmith.api.log_throttle import LogThrottle
from flavorsmith.api.middleware import ServiceMiddleware
from flavorsmith.api.native import catalog as native_catalog
from flavorsmith.api.native import inspection as native_inspection
from flavorsmith.api.native import login as native_login
from flavorsmith.api.native import matching as native_matching
from flavorsmith.api.native import node_source as native_node_source
from flavorsmith.api.native import review as native_review
from flavorsmith.api.native import service_flavors as native_service_flavors
from flavorsmith.api.native import sync as native_sync
from flavorsmith.api.native import trends as native_trends
from flavorsmith.api.native import verify as native_verify
from flavorsmith.api.policy import Enforcer, PolicyDenied, RuleDefault
from flavorsmith.api.routes import RouteTable
from flavorsmith.api.services import CatalogState, Services
from flavorsmith.config import Settings
from flavorsmith.db.engine import Engine, make_engine
from flavorsmith.db.immediate import ImmediateWriter
from flavorsmith.errors import FlavorsmithError
from flavorsmith.extra_specs.factory import base_registry
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.providers.context import provider_context
from flavorsmith.providers.registry import load as load_providers

log = logging.getLogger("flavorsmith.api")

# What runs around the application's life (``serve``'s background loops), as FastAPI takes it.
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]

# Every router and the prefix it is served under. A request is matched against each router's
# routes in this order, so the routes asked for most (a flavor's nodes, by the scheduler's
# neighbours and dashboards) come first; no two routers' paths overlap, so order changes
# nothing else.
ROUTERS: list[tuple[APIRouter, str]] = [
    # The writes inventory tools make for one node after another, first: a trait write is
    # matched before the router tries any other route.
    (baremetal_traits.router, "/baremetal"),
    (native_matching.router, "/v1"),
    (native_trends.router, "/v1"),
    (health.router, ""),
    (baremetal.router, "/baremetal"),
    (baremetal_nodes.router, "/baremetal"),
    (baremetal_maintenance.router, "/baremetal"),
    (baremetal_conductor.router, "/baremetal"),
    (baremetal_templates.router, "/baremetal"),
    (baremetal_runbooks.router, "/baremetal"),
    (compute.router, "/compute"),
    (compute_flavors.router, "/compute"),
    (compute_extra_specs.router, "/compute"),
    (compute_access.router, "/compute"),
    (loadbalancer.router, "/load-balancer"),
    (lb_providers.router, "/load-balancer"),
    (lb_profiles.router, "/load-balancer"),
    (lb_flavors.router, "/load-balancer"),
    (native_service_flavors.router, "/v1"),
    (native_catalog.router, "/v1"),
    (native_node_source.router, "/v1"),
    (native_inspection.router, "/v1"),
    (native_sync.router, "/v1"),
    (native_verify.router, "/v1"),
    (native_review.router, "/v1"),
    (native_login.router, "/v1"),
    (ui.router, ui.PREFIX),
]

NATIVE_POLICIES = [
    *native_catalog.POLICIES,
    *native_matching.POLICIES,
    *native_inspection.POLICIES,
    *native_sync.POLICIES,
    *native_verify.POLICIES,
    *native_review.POLICIES,
    *native_node_source.POLICIES,
]


def policy_defaults(*, keystone: bool = False) -> list[RuleDefault]:
    """Every rule's default. Keystone tokens carry scopes, so under Keystone each family gets
    its real service's scope-aware defaults; noauth and static tokens keep role-only ones."""
    if keystone:
        return [
            *ironic_keystone_policies(
                [*BAREMETAL_POLICIES, *baremetal_templates.POLICIES, *baremetal_runbooks.POLICIES]
            ),
            *NOVA_KEYSTONE_POLICIES,
            *NATIVE_POLICIES,
            *OCTAVIA_KEYSTONE_POLICIES,
        ]
    return [
        *BAREMETAL_POLICIES,
        *baremetal_templates.POLICIES,
        *baremetal_runbooks.POLICIES,
        *COMPUTE_POLICIES,
        *NATIVE_POLICIES,
        *LOADBALANCER_POLICIES,
    ]


def _authenticator(settings: Settings) -> Authenticator:
    if settings.auth == "token-file" and settings.token_file is not None:
        return TokenFile.load(settings.token_file)
    if settings.auth == "keystone":
        # Made by the caller (serve checks Keystone before it opens the database), so that
        # keystonemiddleware is loaded only when it is used.
        raise AuthConfigError("--auth keystone: pass the Keystone authenticator to create_app")
    return NoAuth()


def create_app(
    settings: Settings,
    *,
    engine: Engine | None = None,
    authenticator: Authenticator | None = None,
    lifespan: Lifespan | None = None,
) -> FastAPI:
    """The application; ``authenticator``: one already made (serve checks Keystone before
    the database), else the one ``settings`` names; ``lifespan``: what runs around it."""
    authenticator = authenticator or _authenticator(settings)
    engine = engine or make_engine(settings.database_url)
    # Extra-spec plugins are looked up once, here; each catalog load completes a copy.
    catalog = CatalogState(settings.repo, base_registry())
    for clash in catalog.registry().clashes:
        log.warning("extra-spec validators: %s", clash)
    index_cache = IndexCache(engine)
    providers = load_providers(
        settings.providers, provider_context(lambda: catalog.view().catalog, index_cache)
    )
    services = Services(
        settings=settings,
        engine=engine,
        enforcer=Enforcer.from_file(
            policy_defaults(keystone=settings.auth == "keystone"), settings.policy_file
        ),
        catalog=catalog,
        index_cache=index_cache,
        providers=providers,
        immediate=ImmediateWriter.for_engine(engine),
        verify_project=getattr(authenticator, "verify_project", None),
        login=getattr(authenticator, "login", None),
    )
    app = FastAPI(
        title="Flavorsmith",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,  # served by api/openapi.py, at /openapi.json and /v1/openapi.json
        lifespan=lifespan,
    )
    app.state.services = services
    table = RouteTable()
    for router, prefix in ROUTERS:
        app.include_router(router, prefix=prefix)
        table.add(prefix, router.routes)
    openapi.install(app)
    table.add("", [r for r in app.router.routes if getattr(r, "path", None) is not None])
    _install_error_handlers(app)
    app.add_middleware(CrossSiteGuard)  # inside ServiceMiddleware: refusals get a request id
    hosts = (
        AllowedHosts.for_bind(settings.host, settings.allowed_hosts)
        if settings.allowed_hosts is not None
        else None
    )
    app.add_middleware(HostGuard, allowed=hosts)  # before routing, every method
    # Middleware order (outermost first): ServiceMiddleware, HostGuard, CrossSiteGuard;
    # FastAPI's own exception middleware sits inside them and turns domain errors into each
    # API's error body.
    outage_log = LogThrottle()
    app.add_middleware(
        ServiceMiddleware,
        authenticator=authenticator,
        max_body_bytes=settings.max_body_bytes,
        routes=table,
        outage_log=outage_log,
    )
    return app


def _family(request: Request) -> Family:
    found: Family | None = request.scope.get("state", {}).get("family")
    return found or family_of(request.url.path)


async def _domain_error(request: Request, exc: Exception) -> Response:
    """A domain error in its API family's body (a policy refusal in the family's words)."""
    assert isinstance(exc, FlavorsmithError)
    family = _family(request)
    message = exc.message
    if isinstance(exc, PolicyDenied):
        message = POLICY_MESSAGES[family].format(rule=exc.rule)
    return error_response(family, exc.status, message, exc.headers)


def _install_error_handlers(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        family = _family(request)
        if exc.status_code == 404:
            message = NOT_FOUND_MESSAGES[family].format(path=request.url.path)
        elif exc.status_code == 405:
            message = f"Method {request.method} is not allowed on {request.url.path}"
        else:
            message = str(exc.detail)
        return error_response(family, exc.status_code, message, dict(exc.headers or {}))

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"Invalid request: {where}: {first.get('msg', 'invalid value')}"
        return error_response(_family(request), 400, message)

    app.add_exception_handler(FlavorsmithError, _domain_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
