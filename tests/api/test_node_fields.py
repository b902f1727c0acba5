"""Ironic 39's node data fields over HTTP, on SQLite and PostgreSQL: each is accepted, stored
and shown from the microversion Ironic introduced it, and refused (406, Ironic's body) below."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.baremetal import serialize
from flavorsmith.api.microversions import Version
from flavorsmith.ironic import nodes as rules

URL = "/baremetal/v1/nodes"
LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}

# One storable value per writable field added after 1.1 (and how it reads back).
SAMPLES: dict[str, Any] = {
    "automated_clean": False,
    "conductor_group": "rack-7",
    "owner": "project-a",
    "lessee": "project-b",
    "retired": True,
    "retired_reason": "end of life",
    "network_data": {"links": [], "networks": [], "services": []},
    "shard": "shard-1",
    "instance_name": "web-1",
    "disable_power_off": True,
    "boot_mode": "uefi",
    "secure_boot": True,
    "bios_interface": "no-bios",
    "boot_interface": "ipxe",
    "console_interface": "no-console",
    "deploy_interface": "direct",
    "firmware_interface": "no-firmware",
    "inspect_interface": "agent",
    "management_interface": "ipmitool",
    "network_interface": "flat",
    "power_interface": "ipmitool",
    "raid_interface": "no-raid",
    "rescue_interface": "no-rescue",
    "storage_interface": "noop",
    "vendor_interface": "no-vendor",
}


def version(v: Version) -> dict[str, str]:
    return {"X-OpenStack-Ironic-API-Version": str(v)}


def below(v: Version) -> Version:
    return Version(v.major, v.minor - 1)


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


def create(client: TestClient, headers: dict[str, str] = LATEST, **body: Any) -> dict[str, Any]:
    body.setdefault("driver", "ipmi")
    body.setdefault("name", f"n-{uuid.uuid4().hex[:8]}")
    response = client.post(URL, json=body, headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.mark.parametrize("field", sorted(SAMPLES))
def test_each_field_is_created_at_its_version_and_refused_below(
    client: TestClient, field: str
) -> None:
    since = serialize.FIELDS[field]
    value = SAMPLES[field]
    # retired may not be set on an available node (before 1.11 nodes start available).
    node = create(client, version(since), **{field: value})
    assert node[field] == value
    shown = client.get(f"{URL}/{node['uuid']}?fields={field}", headers=version(since))
    assert shown.status_code == 200 and shown.json()[field] == value
    older = version(below(since))
    response = client.post(URL, json={"driver": "ipmi", field: value}, headers=older)
    assert response.status_code == 406
    assert fault(response).startswith(f"Request not acceptable: field {field!r} needs API")
    empty = "" if field == "conductor_group" else None
    assert client.post(URL, json={"driver": "ipmi", field: empty}, headers=older).status_code == 201
    if below(since) >= Version(1, 8):
        refused = client.get(f"{URL}/{node['uuid']}?fields={field}", headers=older)
        assert refused.status_code == 406


@pytest.mark.parametrize("field", sorted(set(SAMPLES) & set(rules.PATCHABLE)))
def test_each_field_is_patched_at_its_version_and_refused_below(
    client: TestClient, field: str
) -> None:
    since = serialize.FIELDS[field]
    node = create(client, version(Version(1, 20)))  # an enroll node: it may be retired
    if field == "retired_reason":
        client.patch(
            f"{URL}/{node['uuid']}",
            json=[{"op": "add", "path": "/retired", "value": True}],
            headers=LATEST,
        )
    patch = [{"op": "add", "path": f"/{field}", "value": SAMPLES[field]}]
    refused = client.patch(f"{URL}/{node['uuid']}", json=patch, headers=version(below(since)))
    assert refused.status_code == 406, refused.text
    response = client.patch(f"{URL}/{node['uuid']}", json=patch, headers=version(since))
    assert response.status_code == 200, response.text
    assert response.json()[field] == SAMPLES[field]
    # A remove of a newer field is no change Ironic refuses.
    remove = [{"op": "remove", "path": f"/{field}"}]
    cleared = client.patch(f"{URL}/{node['uuid']}", json=remove, headers=version(below(since)))
    assert cleared.status_code == 200, cleared.text


def test_a_node_shows_exactly_the_fields_of_its_version(client: TestClient) -> None:
    node = create(client)
    for minor in (1, 31, 50, 66, 83, 104, 109, 115):
        v = Version(1, minor)
        shown = client.get(f"{URL}/{node['uuid']}", headers=version(v)).json()
        assert set(shown) - {"links"} == set(serialize.available(v)), minor


def test_defaults_and_conductor_state(client: TestClient) -> None:
    fake = create(client, driver="fake-hardware")
    assert (fake["boot_interface"], fake["network_interface"], fake["storage_interface"]) == (
        "fake",
        "noop",
        "noop",
    )
    ipmi = create(client, boot_interface="pxe")
    assert ipmi["boot_interface"] == "pxe" and ipmi["deploy_interface"] is None
    assert ipmi["conductor_group"] == "" and ipmi["network_data"] == {}
    assert ipmi["retired"] is False and ipmi["protected"] is False
    assert ipmi["automated_clean"] is None and ipmi["secure_boot"] is None
    assert ipmi["console_enabled"] is False and ipmi["clean_step"] == {}
    assert ipmi["conductor"] is None and ipmi["reservation"] is None
    assert create(client, conductor_group="Rack-A")["conductor_group"] == "rack-a"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"retired": "maybe"}, "'retired' must be true or false (or null), not 'maybe'"),
        ({"conductor_group": "a b"}, "Expected a conductor group but received 'a b'"),
        ({"owner": 1}, "'owner' must be a string or null, not int"),
        ({"boot_mode": "x" * 17}, "'boot_mode' is 17 characters long; at most 16 are allowed"),
        ({"network_data": [1]}, "'network_data' must be an object, not list"),
        ({"chassis_uuid": "rack"}, "Expected a UUID for chassis_uuid but received 'rack'."),
        ({"parent_node": "no-such-node"}, "Unable to apply the requested parent_node"),
        ({"protected": True}, "Unknown node field 'protected'"),
    ],
)
def test_bad_field_values_are_named(client: TestClient, body: dict[str, Any], message: str) -> None:
    response = client.post(URL, json={"driver": "ipmi", **body}, headers=LATEST)
    assert response.status_code == 400
    assert message in fault(response)


def test_boot_mode_and_secure_boot_are_set_at_create_only(client: TestClient) -> None:
    node = create(client, boot_mode="uefi", secure_boot=True)
    assert (node["boot_mode"], node["secure_boot"]) == ("uefi", True)
    patch = [{"op": "replace", "path": "/boot_mode", "value": "bios"}]
    response = client.patch(f"{URL}/{node['uuid']}", json=patch, headers=LATEST)
    assert response.status_code == 400 and "Cannot patch /boot_mode" in fault(response)


def test_protection_and_retirement_follow_ironic(client: TestClient) -> None:
    node = create(client)  # enroll
    url = f"{URL}/{node['uuid']}"
    protect = [{"op": "add", "path": "/protected", "value": True}]
    response = client.patch(url, json=protect, headers=LATEST)
    assert response.status_code == 409
    assert "can only be made protected in provision states 'active' or 'rescue'" in fault(response)
    reason = [{"op": "add", "path": "/retired_reason", "value": "old"}]
    response = client.patch(url, json=reason, headers=LATEST)
    assert response.status_code == 400
    assert fault(response) == "The retired_reason field can only be set when retired is True"
    retire = [
        {"op": "add", "path": "/retired", "value": "true"},
        {"op": "add", "path": "/retired_reason", "value": "old"},
    ]
    retired = client.patch(url, json=retire, headers=LATEST).json()
    assert (retired["retired"], retired["retired_reason"]) == (True, "old")
    back = [{"op": "replace", "path": "/retired", "value": False}]
    unretired = client.patch(url, json=back, headers=LATEST).json()
    assert (unretired["retired"], unretired["retired_reason"]) == (False, None)


def test_parent_node_links_by_name_or_uuid(client: TestClient) -> None:
    parent = create(client)
    child = create(client, parent_node=parent["name"])
    assert child["parent_node"] == parent["uuid"]
    url = f"{URL}/{parent['uuid']}"
    own = [{"op": "add", "path": "/parent_node", "value": parent["uuid"]}]
    response = client.patch(url, json=own, headers=LATEST)
    assert response.status_code == 400 and "cannot be its own parent_node" in fault(response)


def _listed(client: TestClient, query: str, headers: dict[str, str] = LATEST) -> list[str]:
    response = client.get(f"{URL}?{query}", headers=headers)
    assert response.status_code == 200, response.text
    return [n["name"] for n in response.json()["nodes"]]


def test_list_filters_on_the_data_fields(client: TestClient) -> None:
    tag = uuid.uuid4().hex[:8]
    a = create(client, owner=f"o-{tag}", shard=f"s-{tag}", conductor_group=f"g-{tag}")
    b = create(client, lessee=f"o-{tag}", instance_name=f"vm-{tag}", parent_node=a["uuid"])
    c = create(client, owner=f"o2-{tag}", description=f"rack {tag} 50%", driver="fake-hardware")
    client.patch(
        f"{URL}/{c['uuid']}",
        json=[{"op": "add", "path": "/retired", "value": True}],
        headers=LATEST,
    )
    assert _listed(client, f"owner=o-{tag}") == [a["name"]]
    assert _listed(client, f"project=o-{tag}") == [a["name"]]  # children are hidden ...
    assert _listed(client, f"project=o-{tag}&include_children=true") == [a["name"], b["name"]]
    assert _listed(client, f"parent_node={a['uuid']}") == [b["name"]]
    assert _listed(client, f"lessee=o-{tag}&include_children=1") == [b["name"]]
    assert _listed(client, f"shard=x,s-{tag}") == [a["name"]]
    assert _listed(client, f"conductor_group=g-{tag}") == [a["name"]]
    assert _listed(client, f"instance_name=vm-{tag}&include_children=yes") == [b["name"]]
    assert _listed(client, f"description_contains={tag} 50%25") == [c["name"]]
    assert c["name"] in _listed(client, "retired=true")
    assert c["name"] not in _listed(client, "retired=false")
    assert _listed(client, "fault=power%20failure") == []
    assert a["name"] in _listed(client, "sharded=true")
    assert c["name"] in _listed(client, "sharded=false")
    sorted_names = _listed(client, f"project=o-{tag}&include_children=1&sort_key=owner")
    assert sorted_names == [b["name"], a["name"]]  # NULL owner first


@pytest.mark.parametrize(
    ("query", "since"),
    [
        ("owner=x", "1.50"),
        ("lessee=x", "1.65"),
        ("conductor_group=x", "1.46"),
        ("shard=x", "1.82"),
        ("sharded=true", "1.82"),
        ("include_children=true", "1.83"),
        ("parent_node=x", "1.83"),
        ("instance_name=x", "1.104"),
        ("fault=x", "1.42"),
        ("sort_key=owner", "1.50"),
    ],
)
def test_list_filters_are_refused_below_their_version(
    client: TestClient, query: str, since: str
) -> None:
    major, minor = since.split(".")
    older = version(Version(int(major), int(minor) - 1))
    response = client.get(f"{URL}?{query}", headers=older)
    assert response.status_code == 406
    assert f"needs API version {since} or later" in fault(response)
    assert client.get(f"{URL}?{query}", headers=version(Version(1, int(minor)))).status_code == 200
