"""The OpenAPI document: every route declared, query parameters exactly those the handlers
accept, headers and error bodies per API family, served without a token where clients look."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.api import openapi
from flavorsmith.api.app import create_app
from flavorsmith.api.families import Family, family_of
from flavorsmith.api.middleware import PUBLIC_PATHS
from flavorsmith.config import Settings
from tests.conftest import EXAMPLES

LATEST = {"X-OpenStack-Ironic-API-Version": "latest", "OpenStack-API-Version": "compute latest"}
UNKNOWN = "zz_not_a_parameter"
ALLOWED = re.compile(rf"Unknown query parameter '{UNKNOWN}'; allowed: (.*)$")


def _app(engine: Engine, **settings: Any) -> FastAPI:
    return create_app(
        Settings(database_url=str(engine.url), repo=EXAMPLES, **settings), engine=engine
    )


@pytest.fixture
def app(migrated_engine: Engine) -> FastAPI:
    return _app(migrated_engine)


@pytest.fixture
def document(app: FastAPI) -> dict[str, Any]:
    with TestClient(app) as client:
        answer = client.get("/v1/openapi.json")
    assert answer.status_code == 200
    found: dict[str, Any] = answer.json()
    return found


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


def test_every_route_is_declared_and_every_declaration_is_a_route(app: FastAPI) -> None:
    assert openapi.undeclared(app) == []
    routes = {
        openapi.key(method, path)
        for path, methods in openapi.document(app)["paths"].items()
        for method in methods
    }
    assert sorted(set(openapi.contracts(app)) - routes) == []
    # Every family is there, the compatible APIs included.
    assert {family_of(path) for _, path in routes} == set(Family)


def test_the_next_endpoint_must_declare_itself(app: FastAPI) -> None:
    @app.get("/v1/brand-new")
    async def brand_new() -> dict[str, str]:
        return {}

    assert openapi.undeclared(app) == ["GET /v1/brand-new"]


def test_declared_query_parameters_are_exactly_those_the_handler_accepts(
    app: FastAPI, document: dict[str, Any]
) -> None:
    """A parameter the handler does not know is refused with the list of those it does; that
    list must be what the document declares (so neither can drift from the other)."""
    compared = 0
    with TestClient(app) as client:
        for method, path, operation in _operations(document):
            declared = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
            url = re.sub(r"\{[^}]+\}", "x", path)
            answer = client.request(method.upper(), url, params={UNKNOWN: "1"}, headers=LATEST)
            message = _message(path, answer.content)
            match = ALLOWED.search(message)
            if match:
                allowed = set() if match.group(1) == "none" else set(match.group(1).split(", "))
                assert declared == allowed, f"{method.upper()} {path}"
                compared += 1
            elif answer.status_code < 400:
                assert declared == set(), f"{method.upper()} {path} reads no query"
            else:
                # Octavia's lists answer its own terse message; their names come from the same
                # constants the handlers check (PAGING and the store's fields).
                assert "duplicate or invalid" in message, f"{method.upper()} {path}: {message}"
                assert path.startswith("/load-balancer/"), path
    assert compared >= 50


def _message(path: str, content: bytes) -> str:
    try:
        body = json.loads(content)
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    family = family_of(path)
    if family is Family.IRONIC and "error_message" in body:
        return str(json.loads(body["error_message"])["faultstring"])
    if family is Family.NOVA and len(body) == 1:
        inner = next(iter(body.values()))
        return str(inner.get("message", "")) if isinstance(inner, dict) else ""
    if family is Family.OCTAVIA:
        return str(body.get("faultstring", ""))
    return str(body.get("detail", ""))


def test_every_operation_declares_its_headers_body_and_error_bodies(
    document: dict[str, Any],
) -> None:
    bodyless: set[str] = set()
    for method, path, operation in _operations(document):
        where = f"{method.upper()} {path}"
        headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        public = (path.rstrip("/") or "/") in PUBLIC_PATHS
        assert ("X-Auth-Token" in headers) is not public, where
        if path.startswith("/baremetal"):
            assert "X-OpenStack-Ironic-API-Version" in headers, where
        if path.startswith("/compute/v2.1"):
            assert {"OpenStack-API-Version", "X-OpenStack-Nova-API-Version"} <= headers, where
        for parameter in operation["parameters"]:
            if parameter["in"] in ("query", "header"):
                assert parameter["required"] is False, where
        if method in ("post", "put", "patch") and "requestBody" not in operation:
            bodyless.add(where)
        elif method in ("post", "put", "patch"):
            content = operation["requestBody"]["content"]
            assert "application/json" in content, where
            if method == "patch":
                assert "application/json-patch+json" in content, where
        for status, response in operation["responses"].items():
            if int(status) >= 400 and path != "/readyz":
                media = "application/problem+json" if path.startswith("/v1") else "application/json"
                assert media in response["content"], where
    # The writes that read no body (adding one trait refuses any).
    assert bodyless == {
        "PUT /baremetal/v1/nodes/{ident}/traits/{trait}",
        "PUT /baremetal/v1/runbooks/{ident}/traits/{trait}",
        "POST /v1/catalog/reload",
        "POST /v1/sync/apply",
    }


def test_the_document_lists_real_request_shapes(document: dict[str, Any]) -> None:
    nodes = document["paths"]["/baremetal/v1/nodes"]
    query = {p["name"]: p["schema"] for p in nodes["get"]["parameters"] if p["in"] == "query"}
    assert {"traits", "not-traits-any", "resource_class", "sort_key", "limit"} <= set(query)
    assert query["limit"] == {"type": "integer", "minimum": 1}
    create = nodes["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert create["required"] == ["driver"] and create["additionalProperties"] is False
    flavors = document["paths"]["/compute/v2.1/flavors"]["post"]
    assert flavors["requestBody"]["content"]["application/json"]["schema"]["required"] == ["flavor"]
    assert {"400", "401", "403", "406", "409", "413", "415"} <= set(flavors["responses"])
    nova_error = flavors["responses"]["409"]["content"]["application/json"]["schema"]
    assert nova_error["maxProperties"] == 1
    version = next(
        p for p in nodes["get"]["parameters"] if p["name"] == "X-OpenStack-Ironic-API-Version"
    )
    pattern = re.compile(version["schema"]["pattern"])
    assert all(pattern.match(v) for v in ("latest", "1.1", "1.37", "1.115"))
    assert not any(pattern.match(v) for v in ("1.0", "1.116", "2.1", "1.1 ", "01.1"))


def test_the_document_is_served_without_a_token_and_linked_from_the_roots(
    migrated_engine: Engine, token_file: Path
) -> None:
    app = _app(migrated_engine, auth="token-file", token_file=token_file)
    with TestClient(app) as client:
        first = client.get("/openapi.json")
        assert first.status_code == 200
        assert client.get("/v1/openapi.json").json() == first.json()
        assert first.json()["openapi"].startswith("3.")
        root = client.get("/").json()
        assert {"href": "http://testserver/openapi.json", "rel": "describedby",
                "type": "application/json"} in root["links"]  # fmt: skip
        v1 = client.get("/v1")
        assert v1.status_code == 200
        assert "http://testserver/v1/openapi.json" in [x["href"] for x in v1.json()["links"]]
        assert client.get("/v1/catalog").status_code == 401  # the rest still needs a token


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.yaml"
    path.write_text("admin-token: {user: alice, project: ops, roles: [admin]}\n")
    return path
