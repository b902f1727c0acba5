"""A database outage (PostgreSQL refusing connections, its backends terminated) answers 503
with Retry-After in each API family's own error body, /readyz says why, and the service
recovers by itself when the database comes back."""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import IntegrityError

from flavorsmith.db import migrate
from flavorsmith.db.engine import PG_CONNECT_TIMEOUT_S, make_engine, ping
from flavorsmith.db.outage import outage
from tests.api.conftest import build_app
from tests.database import PG_ADMIN_URL, throwaway_postgres
from tests.live import serving

# One database-backed read per family, and a write.
ROUTES = [
    ("GET", "/baremetal/v1/nodes"),
    ("GET", "/baremetal/v1/deploy_templates"),
    ("GET", "/compute/v2.1/flavors/detail"),
    ("POST", "/compute/v2.1/flavors"),
    ("GET", "/load-balancer/v2/lbaas/flavors"),
    ("GET", "/v1/capacity"),
]
NEW_FLAVOR = {"flavor": {"name": "outage-probe", "ram": 1024, "vcpus": 1, "disk": 10}}


def message(path: str, body: dict[str, object]) -> str:
    """The error message, read the way each family's clients read it."""
    if path.startswith("/baremetal"):
        fault = json.loads(str(body["error_message"]))
        assert fault["faultcode"] == "Server"
        return str(fault["faultstring"])
    if path.startswith("/compute"):
        assert list(body) == ["serviceUnavailable"]
        fault = body["serviceUnavailable"]
        assert isinstance(fault, dict) and fault["code"] == 503
        return str(fault["message"])
    if path.startswith("/load-balancer"):
        assert body["faultcode"] == "Server"
        return str(body["faultstring"])
    assert body["status"] == 503 and body["title"] == "Service Unavailable"
    return str(body["detail"])


@pytest.fixture
def database() -> Iterator[tuple[str, Engine]]:
    with throwaway_postgres() as url:
        engine = make_engine(url)
        migrate.upgrade(engine)
        yield url.rsplit("/", 1)[1], engine
        engine.dispose()


def allow_connections(name: str, allowed: bool) -> None:
    """ALTER DATABASE ... ALLOW_CONNECTIONS, and when refusing, end every open connection."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {allowed}'))
            if not allowed:
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name"
                    ),
                    {"name": name},
                )
    finally:
        admin.dispose()


def call(server: str, method: str, path: str) -> requests.Response:
    body = NEW_FLAVOR if method == "POST" else None
    headers = {"X-OpenStack-Ironic-API-Version": "1.55"}  # deploy templates' microversion
    return requests.request(method, server + path, json=body, headers=headers, timeout=30)


def test_an_outage_is_503_with_retry_after_and_recovers(
    database: tuple[str, Engine], caplog: pytest.LogCaptureFixture
) -> None:
    name, engine = database
    with serving(build_app(engine)) as server:
        for method, path in ROUTES:
            assert call(server, method, path).status_code < 300, (method, path)
        assert requests.get(server + "/readyz", timeout=30).status_code == 200

        allow_connections(name, False)
        caplog.set_level(logging.WARNING, logger="flavorsmith.api")
        for method, path in ROUTES:
            response = call(server, method, path)
            assert response.status_code == 503, (method, path, response.text)
            assert response.headers["retry-after"] == "5"
            request_id = response.headers["x-openstack-request-id"]
            assert message(path, response.json()) == (
                f"The database is unavailable; try again in 5 seconds ({request_id})."
            )
        ready = requests.get(server + "/readyz", timeout=30)
        assert ready.status_code == 503
        assert ready.headers["retry-after"] == "5"
        assert ready.json()["status"] == "unavailable"
        assert ready.json()["database"].startswith("unreachable: connection failed: ")
        assert (
            f'database "{name}" is not currently accepting connections'
            in (ready.json()["database"])
        )
        # Six refused requests, one log line, with no traceback.
        # (the per-request "request" lines are the access log, not the outage's)
        lines = [
            r for r in caplog.records if r.name == "flavorsmith.api" and r.getMessage() != "request"
        ]
        assert len(lines) == 1, [r.getMessage() for r in lines]
        assert lines[0].getMessage().startswith("database unavailable, answering 503: ")
        assert lines[0].exc_info is None

        allow_connections(name, True)
        for method, path in ROUTES:
            response = call(server, method, path)
            if method == "POST":
                assert response.status_code == 409  # the flavor was made before the outage
            else:
                assert response.status_code == 200, (method, path, response.text)
        assert requests.get(server + "/readyz", timeout=30).json()["status"] == "ready"


def test_what_counts_as_an_outage(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waiter = make_engine(f"sqlite:///{path}").execution_options(writer=True)
    try:
        with (
            pytest.raises(Exception) as locked,
            waiter.connect() as connection,
        ):
            connection.exec_driver_sql("PRAGMA busy_timeout=0")
            connection.begin()
        assert outage(locked.value) == "database is locked"
    finally:
        holder.rollback()
        holder.close()
        waiter.dispose()
    refused = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with pytest.raises(Exception) as unreachable:
        refused.connect()
    reason = outage(unreachable.value)
    assert reason is not None and "port 1 failed: Connection refused" in reason
    # Errors that say nothing about reaching the database are not outages.
    assert outage(RuntimeError("boom")) is None
    assert outage(IntegrityError("INSERT", {}, ValueError("duplicate"))) is None
    wrapped = RuntimeError("while listing nodes")
    wrapped.__cause__ = unreachable.value
    assert outage(wrapped) == reason


def test_a_database_host_that_never_answers_is_an_outage_within_the_connect_timeout() -> None:
    """A host that takes the TCP connection and then says nothing (packets dropped past a
    firewall, a hung server) fails the connection after connect_timeout, not minutes."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        engine = make_engine(f"postgresql+psycopg://nobody@127.0.0.1:{port}/none")
        started = time.monotonic()
        try:
            with pytest.raises(Exception) as hung:
                ping(engine)
        finally:
            engine.dispose()
        waited = time.monotonic() - started
    assert PG_CONNECT_TIMEOUT_S - 0.5 <= waited < PG_CONNECT_TIMEOUT_S + 5
    reason = outage(hung.value)
    assert reason is not None and "timeout expired" in reason
