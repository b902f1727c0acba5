"""Liveness and readiness."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
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
