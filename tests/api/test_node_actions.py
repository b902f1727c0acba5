"""PUT/DELETE /nodes/{node}/maintenance as Ironic answers them, and the conductor's actions
answering one clear 400 in Ironic's error body."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.baremetal import conductor
from tests.api.conftest import ClientFactory

URL = "/baremetal/v1/nodes"
LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


def create(client: TestClient) -> dict[str, Any]:
    body = {"driver": "fake-hardware", "name": f"n-{uuid.uuid4().hex[:8]}"}
    response = client.post(URL, json=body, headers=LATEST)
    assert response.status_code == 201
    return dict(response.json())


def maintenance(client: TestClient, ident: str) -> tuple[bool, str | None]:
    fields = "maintenance,maintenance_reason"
    shown = client.get(f"{URL}/{ident}?fields={fields}", headers=LATEST).json()
    return shown["maintenance"], shown["maintenance_reason"]


def test_set_and_clear_maintenance(client: TestClient) -> None:
    node = create(client)
    url = f"{URL}/{node['name']}/maintenance"
    response = client.put(url, json={"reason": "disk 3 failed"}, headers=LATEST)
    assert (response.status_code, response.content) == (202, b"")
    assert maintenance(client, node["uuid"]) == (True, "disk 3 failed")
    # No body: maintenance without a reason (the old reason goes).
    response = client.put(url, headers=LATEST)
    assert response.status_code == 202
    assert maintenance(client, node["uuid"]) == (True, None)
    assert client.put(f"{url}?reason=fan", headers=LATEST).status_code == 202
    assert maintenance(client, node["uuid"]) == (True, "fan")
    assert client.put(url, json={}, headers=LATEST).status_code == 202
    response = client.delete(url, headers=LATEST)
    assert (response.status_code, response.content) == (202, b"")
    assert maintenance(client, node["uuid"]) == (False, None)
    assert client.delete(url, headers=LATEST).status_code == 202  # already out: still 202


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"reason": "x", "other": 1}, "Unexpected arguments: other"),
        ({"reason": 5}, "Expected string for reason: 5"),
        (["x"], 'The body must be an object: {"reason": "..."} or {}'),
    ],
)
def test_bad_maintenance_bodies(client: TestClient, body: Any, message: str) -> None:
    node = create(client)
    response = client.put(f"{URL}/{node['uuid']}/maintenance", json=body, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message)
    assert maintenance(client, node["uuid"]) == (False, None)


def test_maintenance_of_a_missing_node_is_404(client: TestClient) -> None:
    missing = str(uuid.uuid4())
    response = client.put(f"{URL}/{missing}/maintenance", json={}, headers=LATEST)
    assert (response.status_code, fault(response)) == (404, f"Node {missing} could not be found.")
    assert client.delete(f"{URL}/{missing}/maintenance", headers=LATEST).status_code == 404


def test_maintenance_follows_its_policies(make_client: ClientFactory, token_file: Path) -> None:
    admin = make_client()
    node = create(admin)
    client = make_client(auth="token-file", token_file=token_file)
    url = f"{URL}/{node['uuid']}/maintenance"
    reader = {**LATEST, "X-Auth-Token": "reader-token"}
    assert client.put(url, json={}, headers=reader).status_code == 403
    assert client.delete(url, headers=reader).status_code == 403
    writer = {**LATEST, "X-Auth-Token": "admin-token"}
    assert client.put(url, json={}, headers=writer).status_code == 202
    assert client.delete(url, headers=writer).status_code == 202


ROUTES = [(method, path) for methods, path, _ in conductor.ACTIONS for method in methods]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_conductor_actions_answer_one_clear_error(
    client: TestClient, method: str, path: str
) -> None:
    node = create(client)
    url = "/baremetal" + re.sub(r"\{[^}]+\}", "x", path.replace("{ident}", node["name"]))
    body = {"target": "power on"} if method in ("PUT", "POST") else None
    response = client.request(method, url, json=body, headers=LATEST)
    assert response.status_code == 400
    message = fault(response)
    assert message.startswith("Flavorsmith stores node data only; Ironic's conductor handles ")
    assert message.endswith(f"Send this request for node {node['uuid']} to Ironic.")
    missing = client.request(method, url.replace(node["name"], "nope"), json=body, headers=LATEST)
    assert missing.status_code == 404
