"""The Ironic nodes API over HTTP, on SQLite and PostgreSQL: every status code."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.ironic import nodes as rules

LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
URL = "/baremetal/v1/nodes"
# Ironic's words for a driver that is not enabled (clients match on them).
NO_DRIVER = (
    "No valid host was found. Reason: No conductor service registered which supports driver "
    'nope for conductor group "". Ensure the driver is valid and enabled.'
)


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("driver", "fake-hardware")
    response = client.post(URL, json=body, headers=LATEST)
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.fixture
def node(client: TestClient) -> dict[str, Any]:
    return create(client, name=f"n-{uuid.uuid4().hex[:8]}", resource_class="m1.small")


def test_create_returns_the_node_and_its_location(client: TestClient) -> None:
    name = f"n-{uuid.uuid4().hex[:8]}"
    response = client.post(
        URL,
        json={
            "driver": "fake-hardware",
            "name": name,
            "resource_class": "m1.small",
            "properties": {"cpus": 16},
        },
        headers=LATEST,
    )
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"http://testserver/baremetal/v1/nodes/{body['uuid']}"
    assert body["name"] == name
    assert body["provision_state"] == "enroll"
    assert body["traits"] == [] and body["properties"] == {"cpus": 16}
    assert body["maintenance"] is False and body["updated_at"] is None
    assert body["created_at"].endswith("+00:00")


def test_old_microversion_creates_available_nodes_without_new_fields(client: TestClient) -> None:
    response = client.post(URL, json={"driver": "fake-hardware"})
    body = response.json()
    assert response.status_code == 201
    assert body["provision_state"] == "available"
    assert "name" not in body and "traits" not in body and "resource_class" not in body


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"name": "x"}, 400, "'driver' is a required property"),
        (
            {"driver": "nope"},
            400,
            NO_DRIVER,
        ),
        (
            {"driver": "fake-hardware", "traits": ["CUSTOM_A"]},
            400,
            "Unknown node field 'traits'; a new node may set: "
            + ", ".join(sorted(rules.CREATE_FIELDS)),
        ),
        (
            {"driver": "fake-hardware", "name": "bad name!"},
            400,
            "Cannot use 'bad name!' as a node name: use 1 to 255 letters, digits, '-', '.', '_' or '~'",
        ),
        (
            {"driver": "fake-hardware", "resource_class": "a" * 81},
            400,
            f"Invalid resource_class {'a' * 81!r}: a string of at most 80 characters",
        ),
        (
            {"driver": "fake-hardware", "properties": []},
            400,
            "'properties' must be an object, not list",
        ),
        ({"driver": "fake-hardware", "uuid": "not-a-uuid"}, 400, "Invalid UUID 'not-a-uuid'"),
    ],
)
def test_create_rejects_bad_input(
    client: TestClient, body: dict[str, Any], status: int, message: str
) -> None:
    response = client.post(URL, json=body, headers=LATEST)
    assert (response.status_code, fault(response)) == (status, message)


def test_create_conflicts(client: TestClient, node: dict[str, Any]) -> None:
    response = client.post(
        URL, json={"driver": "fake-hardware", "name": node["name"]}, headers=LATEST
    )
    assert (response.status_code, fault(response)) == (
        409,
        f"A node with name {node['name']} already exists.",
    )
    response = client.post(
        URL, json={"driver": "fake-hardware", "uuid": node["uuid"]}, headers=LATEST
    )
    assert (response.status_code, fault(response)) == (
        409,
        f"A node with UUID {node['uuid']} already exists.",
    )


def test_show_by_uuid_and_name(client: TestClient, node: dict[str, Any]) -> None:
    assert client.get(f"{URL}/{node['uuid']}", headers=LATEST).json()["name"] == node["name"]
    assert client.get(f"{URL}/{node['name']}", headers=LATEST).json()["uuid"] == node["uuid"]
    # Names in paths arrived in 1.5, as in Ironic.
    old = client.get(f"{URL}/{node['name']}", headers={"X-OpenStack-Ironic-API-Version": "1.4"})
    assert (old.status_code, fault(old)) == (404, f"Node {node['name']} could not be found.")
    missing = client.get(f"{URL}/nope", headers=LATEST)
    assert (missing.status_code, fault(missing)) == (404, "Node nope could not be found.")
    suffix = client.get(f"{URL}/{node['name']}.json", headers=LATEST)
    assert suffix.status_code == 400
    assert fault(suffix).startswith(f"Node identifier '{node['name']}.json' ends in '.json'")


def test_show_fields(client: TestClient, node: dict[str, Any]) -> None:
    body = client.get(f"{URL}/{node['uuid']}?fields=name,traits", headers=LATEST).json()
    assert set(body) == {"name", "traits", "links"}  # as Ironic: no uuid unless asked
    bad = client.get(f"{URL}/{node['uuid']}?fields=name,bogus", headers=LATEST)
    assert bad.status_code == 400
    assert fault(bad).startswith("Unknown node field(s) 'bogus' in fields; known: uuid,")
    too_new = client.get(
        f"{URL}/{node['uuid']}?fields=traits", headers={"X-OpenStack-Ironic-API-Version": "1.36"}
    )
    assert (too_new.status_code, fault(too_new)) == (
        406,
        "Field 'traits' needs API version 1.37 or later (this request asked for 1.36)",
    )


def test_patch(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}"
    patch = [
        {"op": "replace", "path": "/name", "value": node["name"] + "-x"},
        {"op": "add", "path": "/instance_info/traits", "value": ["CUSTOM_A"]},
        {"op": "add", "path": "/extra/rack", "value": "r1"},
        {"op": "replace", "path": "/maintenance", "value": True},
    ]
    response = client.patch(url, json=patch, headers=LATEST)
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == node["name"] + "-x"
    assert body["instance_info"] == {"traits": ["CUSTOM_A"]}
    assert body["extra"] == {"rack": "r1"} and body["maintenance"] is True
    assert body["updated_at"] is not None
    removed = client.patch(url, json=[{"op": "remove", "path": "/extra/rack"}], headers=LATEST)
    assert removed.json()["extra"] == {}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            [{"op": "replace", "path": "/uuid", "value": "x"}],
            f"Cannot patch /uuid. Only the following can be updated: {', '.join(rules.PATCHABLE)}",
        ),
        (
            [{"op": "add", "path": "/traits", "value": []}],
            f"Cannot patch /traits. Only the following can be updated: {', '.join(rules.PATCHABLE)}",
        ),
        (
            {"op": "remove", "path": "/extra/x"},
            "A node update is a JSON patch: a list of operations",
        ),
        (
            [{"op": "remove", "path": "/extra/nope"}],
            "Couldn't apply patch: can't remove a non-existent object 'nope'",
        ),
        (
            [{"op": "move", "from": "/extra", "path": "/properties"}],
            "Unsupported patch operation 'move': use add, replace or remove",
        ),
        (
            [{"op": "replace", "path": "/driver", "value": "nope"}],
            NO_DRIVER,
        ),
        (
            [{"op": "replace", "path": "/properties", "value": "x"}],
            "'properties' must be an object, not str",
        ),
    ],
)
def test_bad_patch_changes_nothing(
    client: TestClient, node: dict[str, Any], patch: Any, message: str
) -> None:
    url = f"{URL}/{node['uuid']}"
    before = client.get(url, headers=LATEST).json()
    response = client.patch(url, json=patch, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message)
    assert client.get(url, headers=LATEST).json() == before


def test_rename_onto_another_node_conflicts(client: TestClient, node: dict[str, Any]) -> None:
    other = create(client, name=f"n-{uuid.uuid4().hex[:8]}")
    response = client.patch(
        f"{URL}/{other['uuid']}",
        json=[{"op": "replace", "path": "/name", "value": node["name"]}],
        headers=LATEST,
    )
    assert (response.status_code, fault(response)) == (
        409,
        f"A node with name {node['name']} already exists.",
    )


def test_delete(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}"
    assert client.delete(url, headers=LATEST).status_code == 204
    assert client.get(url, headers=LATEST).status_code == 404
    assert client.delete(url, headers=LATEST).status_code == 404


def test_delete_refuses_a_node_with_an_instance(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}"
    instance = str(uuid.uuid4())
    client.patch(
        url, json=[{"op": "add", "path": "/instance_uuid", "value": instance}], headers=LATEST
    )
    response = client.delete(url, headers=LATEST)
    assert (response.status_code, fault(response)) == (
        409,
        f"Node {node['uuid']} is associated with instance {instance}; it cannot be deleted",
    )


def test_validate(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}"
    body = client.get(f"{url}/validate", headers=LATEST).json()
    assert body["deploy"] == {"result": True} and body["power"] == {"result": True}
    client.put(f"{url}/traits", json={"traits": ["CUSTOM_A"]}, headers=LATEST)
    client.patch(
        url,
        json=[{"op": "add", "path": "/instance_info/traits", "value": ["CUSTOM_A", "CUSTOM_B"]}],
        headers=LATEST,
    )
    assert client.get(f"{url}/validate", headers=LATEST).json()["deploy"] == {
        "result": False,
        "reason": f"Cannot specify instance traits that are not also set on the node. Node {node['uuid']} is missing traits CUSTOM_B",
    }
    client.patch(
        url,
        json=[{"op": "replace", "path": "/instance_info/traits", "value": "CUSTOM_A"}],
        headers=LATEST,
    )
    assert client.get(f"{url}/validate", headers=LATEST).json()["deploy"] == {
        "result": False,
        "reason": f"Error parsing traits from Node {node['uuid']} instance_info field. A list of strings is expected.",
    }
    client.patch(
        url,
        json=[{"op": "replace", "path": "/instance_info/traits", "value": ["CUSTOM_A"]}],
        headers=LATEST,
    )
    assert client.get(f"{url}/validate", headers=LATEST).json()["deploy"] == {"result": True}


def test_validate_reports_missing_driver_info(client: TestClient) -> None:
    redfish = create(client, driver="redfish")
    body = client.get(f"{URL}/{redfish['uuid']}/validate", headers=LATEST).json()
    assert body["power"] == {
        "result": False,
        "reason": "Some parameters were missing in node's driver_info. Missing are: redfish_address",
    }


def test_the_enabled_drivers_default_to_those_whose_steps_ship(client: TestClient) -> None:
    for driver in rules.DRIVERS:
        assert client.post(URL, json={"driver": driver}, headers=LATEST).status_code == 201


def test_only_the_configured_drivers_may_be_used(make_client: Any) -> None:
    client = make_client(enabled_drivers=("ipmi", "snmp"))
    assert client.post(URL, json={"driver": "snmp"}, headers=LATEST).status_code == 201
    refused = client.post(
        URL, json={"driver": "fake-hardware", "conductor_group": "rack-4"}, headers=LATEST
    )
    assert refused.status_code == 400
    assert fault(refused) == (
        "No valid host was found. Reason: No conductor service registered which supports "
        'driver fake-hardware for conductor group "rack-4". Ensure the driver is valid and '
        "enabled."
    )
    node = create(client, driver="ipmi", name=f"d-{uuid.uuid4().hex[:8]}")
    patch = [{"op": "replace", "path": "/driver", "value": "redfish"}]
    moved = client.patch(f"{URL}/{node['uuid']}", json=patch, headers=LATEST)
    assert moved.status_code == 400
    assert "supports driver redfish for conductor group" in fault(moved)
