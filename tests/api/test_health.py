"""Liveness and readiness."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.api.services import Warming
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.serving import warm
from tests.api.conftest import ClientFactory, build_app
from tests.conftest import EXAMPLES


def test_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": "ok", "migrations": migrate.head()}


def test_readyz_reports_pending_migrations(tmp_path: Path, migrated_engine: Engine) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/empty.db")
    with TestClient(build_app(engine)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": "ok",
        "migrations": f"at none, need {migrate.head()}: run flavorsmith db upgrade",
    }


def test_readyz_reports_an_unreachable_database() -> None:
    engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with TestClient(build_app(engine)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"].startswith("unreachable: connection failed: ")
    assert "port 1 failed: Connection refused" in body["database"]
    assert "\n" not in body["database"]


def test_readyz_reports_a_missing_or_empty_catalog(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    client = make_client(repo=repo)
    assert client.get("/readyz").status_code == 200
    (repo / "hardware").rename(tmp_path / "aside")
    missing = client.get("/readyz")
    assert missing.status_code == 503
    assert missing.json()["status"] == "unavailable"
    assert missing.json()["catalog"] == f"missing: {repo} has no hardware/ folder"
    (repo / "hardware").mkdir()
    empty = client.get("/readyz")
    assert empty.status_code == 503
    assert empty.json()["catalog"] == f"empty: no definitions under {repo / 'hardware'}"
    (repo / "hardware").rmdir()
    (tmp_path / "aside").rename(repo / "hardware")
    assert client.get("/readyz").status_code == 200


def test_readyz_waits_for_the_first_warming_only(client: TestClient) -> None:
    """Under ``serve`` the caches are warmed on a thread of their own: until its first round
    ends, /readyz says what it warms (503); after it, a later warming (a node changed) never
    makes the process unready again."""
    shared = client.app.state.services  # type: ignore[attr-defined]
    shared.warming = Warming()
    ready = {"status": "ready", "database": "ok", "migrations": migrate.head()}
    waiting = {**ready, "status": "unavailable"}
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {**waiting, "warming": "warming: starting"}
    shared.warming.doing("building the match index of 3 nodes")
    shared.warming.failure = "OperationalError: database is locked"
    assert client.get("/readyz").json() == {
        **waiting,
        "warming": "warming: building the match index of 3 nodes (the last attempt failed: "
        "OperationalError: database is locked; trying again)",
    }
    warm.warm(shared)  # the first round: index, matrix groups, drift report
    response = client.get("/readyz")
    assert (response.status_code, response.json()) == (200, ready)
    node = client.post(
        "/baremetal/v1/nodes",
        json={"name": "warm-probe", "driver": "fake-hardware", "resource_class": "baremetal"},
        headers={"X-OpenStack-Ironic-API-Version": "1.65"},
    )
    assert node.status_code == 201, node.text
    shared.warming.doing("building the match index of 4 nodes")  # what a later round does
    assert client.get("/readyz").status_code == 200
    warm.warm(shared)
    assert shared.index_cache.current().snapshot.find("warm-probe") is not None
    response = client.get("/readyz")
    assert (response.status_code, response.json()) == (200, ready)
