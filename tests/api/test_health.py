"""Liveness and readiness."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app


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
    assert response.json() == {
        "status": "unavailable",
        "database": "unreachable (OperationalError)",
    }
