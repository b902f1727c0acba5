"""The OpenAPI document, generated from the contract each handler is declared with
(api/contract.py): ``document()`` merges every route's contract into FastAPI's generated
document and adds what every operation of an API family shares (the microversion headers,
``X-Auth-Token``, the family's error body). A handler checks its query with the same contract,
so the documented parameters are the accepted ones; a test checks that every route declares
one."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.requests import Request

from flavorsmith import __version__
from flavorsmith.api.contract import Contract, declared
from flavorsmith.api.families import Family, family_of
from flavorsmith.api.microversions import IRONIC, NOVA, MicroversionSpec, Version
from flavorsmith.api.middleware import PUBLIC_PATHS, VERSIONED
from flavorsmith.api.schema import (
    ERROR_SCHEMAS,
    JSON,
    JSON_PATCH,
    STATUS_TEXT,
    Schema,
    obj,
    string,
)

__all__ = ["DOCUMENT_PATHS", "contracts", "document", "install", "key", "undeclared"]

# Where the document is served: the service root, and beside the native API.
DOCUMENT_PATHS = ("/openapi.json", "/v1/openapi.json")

# ----------------------------------------------------------------------------- headers


def _versions(spec: MicroversionSpec, prefix: str = "") -> Schema:
    """Every version the service accepts, or "latest", as one pattern (an enum of 100-odd
    values would make a fuzzer try each on every operation)."""
    versions = [
        str(Version(spec.minimum.major, minor))
        for minor in range(spec.minimum.minor, spec.maximum.minor + 1)
    ]
    alternatives = "|".join(re.escape(v) for v in ("latest", *versions))
    return string(
        pattern=f"^{re.escape(prefix)}({alternatives})$",
        examples=[f"{prefix}{v}" for v in (versions[0], versions[-1], "latest")],
    )


def _header(name: str, schema: Schema, description: str) -> Schema:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "schema": schema,
        "description": description,
    }


AUTH_TOKEN = _header("X-Auth-Token", string(), "A token (ignored under noauth)")
VERSION_HEADERS: dict[Family, list[Schema]] = {
    Family.IRONIC: [
        _header(
            IRONIC.legacy_header,
            _versions(IRONIC),
            f"The microversion, {IRONIC.minimum} to {IRONIC.maximum} or latest; "
            "none means the minimum",
        )
    ],
    Family.NOVA: [
        _header(
            "OpenStack-API-Version",
            _versions(NOVA, "compute "),
            f"The microversion, as 'compute X.Y', {NOVA.minimum} to {NOVA.maximum} or latest; "
            "none means the minimum",
        ),
        _header(
            NOVA.legacy_header,
            _versions(NOVA),
            "The microversion (the older header; OpenStack-API-Version wins)",
        ),
    ],
}


# ----------------------------------------------------------------------------- the document


def key(method: str, path: str) -> tuple[str, str]:
    """The table key of a route: its method and path without a trailing slash."""
    return method.upper(), (path.rstrip("/") or "/")


def _versioned(path: str) -> bool:
    return any(_under(path, root) for root, _ in VERSIONED.values())


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _operation_doc(generated: Schema, path: str, op: Contract) -> Schema:
    family = family_of(path)
    out = dict(generated)
    out["summary"] = op.summary
    parameters = [p for p in generated.get("parameters", []) if p.get("in") == "path"]
    for name, schema in op.query.items():
        parameter: Schema = {"name": name, "in": "query", "required": False, "schema": schema}
        if name in op.query_array:
            parameter |= {"style": "form", "explode": True}
        parameters.append(parameter)
    if _versioned(path):
        parameters.extend(VERSION_HEADERS.get(family, []))
    if key("GET", path)[1] not in PUBLIC_PATHS:
        parameters.append(AUTH_TOKEN)
    out["parameters"] = parameters
    if op.body is not None:
        media = {JSON: {"schema": op.body}}
        if op.patch:
            media[JSON_PATCH] = {"schema": op.body}
        out["requestBody"] = {"required": op.body_required, "content": media}
    else:
        out.pop("requestBody", None)
    error_type, error_schema = ERROR_SCHEMAS[family]
    responses: dict[str, Schema] = {}
    for status, ok_schema in op.ok.items():
        entry: Schema = {"description": "Success"}
        if ok_schema is not None:
            entry["content"] = {JSON: {"schema": ok_schema}}
        responses[str(status)] = entry
    for status in sorted(set(op.errors)):
        entry = responses.setdefault(str(status), {"description": STATUS_TEXT[status]})
        entry.setdefault("content", {}).setdefault(error_type, {"schema": error_schema})
    if path == "/readyz":
        responses["503"] = {
            "description": (
                "Not ready: the body says why (the database, its migrations, the catalog, the "
                "mirrored nodes, or the first warming of the caches)"
            ),
            "content": {JSON: {"schema": obj({"status": string()}, required=("status",))}},
        }
    out["responses"] = responses
    return out


def _generated(app: FastAPI) -> Schema:
    return get_openapi(
        title="Flavorsmith",
        version=__version__,
        description=(
            "Ironic-compatible (/baremetal), Nova-compatible (/compute), Octavia-compatible "
            "(/load-balancer) and Flavorsmith's own (/v1) APIs. Errors use each API's own body."
        ),
        routes=app.routes,
    )


def contracts(app: FastAPI) -> dict[tuple[str, str], Contract]:
    """The contract of every declared operation of the app, by (method, path) key."""
    found: dict[tuple[str, str], Contract] = {}
    # Routes as FastAPI's own document generator walks them (included routers flattened).
    for route in iter_route_contexts(app.routes):
        original = route.original_route
        if not isinstance(original, APIRoute) or not original.include_in_schema:
            continue
        contract = declared(route.endpoint) if route.endpoint is not None else None
        if contract is not None and route.path_format is not None:
            for method in route.methods or ():
                found[key(method, route.path_format)] = contract
    return found


def undeclared(app: FastAPI) -> list[str]:
    """The app's operations whose handler declares no contract, as 'METHOD /path'."""
    paths: dict[str, Schema] = _generated(app).get("paths", {})
    known = contracts(app)
    return sorted(
        f"{method.upper()} {path}"
        for path, methods in paths.items()
        for method in methods
        if key(method, path) not in known
    )


def document(app: FastAPI) -> Schema:
    """FastAPI's generated document with every operation's contract merged in (an undeclared
    route, which a test forbids, keeps what FastAPI generated)."""
    generated = _generated(app)
    known = contracts(app)
    for path, methods in generated.get("paths", {}).items():
        for method, operation in list(methods.items()):
            contract = known.get(key(method, path))
            if contract is not None:
                methods[method] = _operation_doc(operation, path, contract)
    generated.pop("components", None)  # FastAPI's validation-error schemas: never sent here
    return generated


def install(app: FastAPI) -> None:
    """Serve the document at /openapi.json and /v1/openapi.json (FastAPI's own route is off:
    create the app with openapi_url=None), built once on first use."""

    def openapi() -> Schema:
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    async def serve(request: Request) -> JSONResponse:
        return JSONResponse(openapi())

    app.openapi = openapi  # type: ignore[method-assign]
    for path in DOCUMENT_PATHS:
        app.add_route(path, serve, methods=["GET"], include_in_schema=False)
