"""The service while its nodes mirror a real Ironic (here one that cannot be reached, so the
first load fails for real): not ready until the first load, the mirror's state in
``/v1/nodes/source`` and ``/readyz``, and every node write refused with a 409 in the family's
error body, while deploy templates and flavors stay writable."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.clients import cloud
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.db.engine import writer
from flavorsmith.nodes import service as nodes
from flavorsmith.sync.mirror import Mirror
from tests.api.conftest import ClientFactory, build_app
from tests.integration.clients import OpenStack
from tests.live import free_port, serving

IRONIC = {"X-OpenStack-Ironic-API-Version": "1.65"}


@contextmanager
def _mirrored(engine: Engine) -> Iterator[tuple[TestClient, Mirror, str]]:
    """A service whose nodes mirror an Ironic, as ``serve --ironic-endpoint`` makes it: the
    database says so (then says the database is the source again)."""
    endpoint = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    source = IronicNodes(cloud.connect(None, "baremetal", endpoint, timeout=5))
    mirror = Mirror(source, engine, label=endpoint, interval=60)
    app = build_app(engine)
    app.state.services.mirror = mirror
    with writer(engine).begin() as connection:
        nodes.mirror_from(connection, endpoint, 60)
    try:
        yield TestClient(app), mirror, endpoint
    finally:
        with writer(engine).begin() as connection:
            nodes.database_source(connection)


def test_the_database_is_the_source_without_a_mirror(client: TestClient) -> None:
    assert client.get("/v1/nodes/source").json() == {"source": "database"}


def test_not_ready_before_the_first_load(migrated_engine: Engine) -> None:
    with _mirrored(migrated_engine) as (client, mirror, endpoint):
        _not_ready(client, mirror, endpoint)


def _not_ready(client: TestClient, mirror: Mirror, endpoint: str) -> None:
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["nodes"] == (
        f"the first load from the Ironic at {endpoint} has not finished yet"
    )
    result = mirror.refresh()
    assert result.error is not None and result.error.startswith("cannot reach Ironic")
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["database"] == "ok"
    assert body["nodes"] == f"the first load from the Ironic at {endpoint} failed: {result.error}"
    state = client.get("/v1/nodes/source").json()
    assert state["source"] == "ironic" and state["ironic"] == endpoint
    assert state["loaded"] is False and state["nodes"] is None and state["lag_seconds"] is None
    assert state["error"] == result.error and state["last"]["ok"] is False
    assert body["ironic"]["error"] == result.error


def test_node_writes_are_refused_while_mirroring(
    migrated_engine: Engine, make_client: ClientFactory
) -> None:
    plain = make_client()
    made = plain.post("/baremetal/v1/nodes", json={"driver": "fake-hardware"}, headers=IRONIC)
    assert made.status_code == 201
    node = made.json()["uuid"]
    with _mirrored(migrated_engine) as (client, _, endpoint):
        _refused(plain, client, node, endpoint)
    # The database is the nodes' source again: writes go through.
    assert plain.delete(f"/baremetal/v1/nodes/{node}", headers=IRONIC).status_code == 204


def _refused(plain: TestClient, client: TestClient, node: str, endpoint: str) -> None:
    refusal = (
        f"Nodes are managed by the Ironic at {endpoint}; change them there "
        "(this service mirrors it every 60 s)"
    )
    writes = [
        ("POST", "/baremetal/v1/nodes", {"driver": "fake-hardware"}),
        ("PATCH", f"/baremetal/v1/nodes/{node}", [{"op": "add", "path": "/extra/a", "value": 1}]),
        ("PUT", f"/baremetal/v1/nodes/{node}/traits", {"traits": ["CUSTOM_A"]}),
        ("PUT", f"/baremetal/v1/nodes/{node}/traits/CUSTOM_A", None),
        ("DELETE", f"/baremetal/v1/nodes/{node}/traits/CUSTOM_A", None),
        ("DELETE", f"/baremetal/v1/nodes/{node}/traits", None),
        ("PUT", f"/baremetal/v1/nodes/{node}/maintenance", {"reason": "disk"}),
        ("DELETE", f"/baremetal/v1/nodes/{node}/maintenance", None),
        ("DELETE", f"/baremetal/v1/nodes/{node}", None),
    ]
    for method, path, body in writes:
        response = client.request(method, path, json=body, headers=IRONIC)
        assert response.status_code == 409, (method, path, response.text)
        fault = json.loads(response.json()["error_message"])["faultstring"]
        assert fault == refusal, (method, path)
    inspection = client.post(f"/v1/nodes/{node}/inspection", json={"inventory": {}})
    assert inspection.status_code == 409 and refusal in inspection.text
    # Reads serve the mirror; what is not a node stays writable.
    assert client.get(f"/baremetal/v1/nodes/{node}", headers=IRONIC).status_code == 200
    name = f"CUSTOM_MIRROR_{uuid.uuid4().hex[:10].upper()}"
    raid = {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 10}
    template = client.post(
        "/baremetal/v1/deploy_templates",
        json={"name": name, "steps": [raid]},
        headers={"X-OpenStack-Ironic-API-Version": "1.55"},
    )
    assert template.status_code == 201, template.text
    plain.delete(f"/baremetal/v1/deploy_templates/{name}", headers=IRONIC)
    # Every process on the database refuses alike: this one has no mirror of its own.
    refused = plain.delete(f"/baremetal/v1/nodes/{node}", headers=IRONIC)
    assert refused.status_code == 409 and refusal in refused.text


def test_the_openstack_client_shows_the_refusal(migrated_engine: Engine) -> None:
    with _mirrored(migrated_engine) as (client, _, endpoint), serving(client.app) as url:  # type: ignore[arg-type]
        baremetal = OpenStack.noauth(url, "baremetal", "--os-baremetal-api-version", "1.65")
        error = baremetal.error("baremetal", "node", "create", "--driver", "fake-hardware")
    assert f"Nodes are managed by the Ironic at {endpoint}; change them there" in error
    assert "Traceback" not in error
