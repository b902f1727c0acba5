"""An app on a real database, with probe routes that exercise the framework in each API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI, Request
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.api.app import create_app, policy_defaults
from flavorsmith.api.policy import Enforcer, RuleDefault
from flavorsmith.api.requests import check_query, identity, json_body
from flavorsmith.api.yamlfile import read_mapping
from flavorsmith.config import Settings
from tests.conftest import EXAMPLES

# Where a resource of each API family lives (the probes hang below these).
PROBE_ROOTS = {
    "baremetal": "/baremetal/v1",
    "compute": "/compute/v2.1",
    "load-balancer": "/load-balancer/v2",
    "native": "/v1",
}
PROBE_RULE = RuleDefault("probe:write", "role:admin", "Probe: admin only.")


def probe_router() -> APIRouter:
    router = APIRouter()

    @router.post("/probe/body")
    async def body(request: Request) -> Any:
        return {"received": await json_body(request)}

    @router.get("/probe/query")
    async def query(request: Request) -> dict[str, str]:
        check_query(request, ("limit", "marker"))
        return {"ok": "yes"}

    @router.get("/probe/boom")
    async def boom() -> None:
        raise RuntimeError("SELECT password FROM users WHERE id = 1")

    @router.post("/probe/write")
    async def write(request: Request) -> dict[str, str]:
        request.app.state.services.enforcer.authorize(PROBE_RULE.name, identity(request))
        return {"ok": "yes"}

    return router


def build_app(engine: Engine, **settings: Any) -> FastAPI:
    settings.setdefault("repo", EXAMPLES)
    app = create_app(Settings(database_url=str(engine.url), **settings), engine=engine)
    overrides = None
    if settings.get("policy_file"):
        overrides = read_mapping(settings["policy_file"], "policy file")
    app.state.services.enforcer = Enforcer([*policy_defaults(), PROBE_RULE], overrides)
    for root in PROBE_ROOTS.values():
        app.include_router(probe_router(), prefix=root)
    return app


ClientFactory = Callable[..., TestClient]


@pytest.fixture
def make_client(migrated_engine: Engine) -> Iterator[ClientFactory]:
    clients: list[TestClient] = []

    def factory(**settings: Any) -> TestClient:
        client = TestClient(build_app(migrated_engine, **settings))
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.yaml"
    path.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        "member-token: {user: bob, project: p1, roles: [member]}\n"
        "reader-token: {user: carol, project: p1, roles: [reader]}\n"
        "observer-token: {user: dave, project: p1, roles: [observer]}\n"
    )
    return path
