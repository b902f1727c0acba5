"""The same requests to a real Ironic 39 and to this service answer alike: a created node has
the same fields (at every version) and the same data values, a too-new field is 406 in the same
body shape, and maintenance is set and cleared with the same answers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ironic_api import running_ironic

# Links to Ironic's sub-resources (ports, port groups, states, volume): not served here.
SUBRESOURCE_LINKS = {"ports", "portgroups", "states", "volume"}
# Values that differ by nature: identity, time, and the conductor that handled the node (and
# may still hold its lock on it).
OWN_VALUES = {"uuid", "created_at", "updated_at", "links", "conductor", "reservation"}


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


def call(
    url: str, method: str, body: Any = None, version: str = "latest"
) -> tuple[int, dict[str, Any] | None]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("X-OpenStack-Ironic-API-Version", version)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None


def both(ironic: str, ours: str, path: str, method: str = "GET", **kwargs: Any) -> list[Any]:
    return [call(root + path, method, **kwargs) for root in (f"{ironic}/v1", f"{ours}/v1")]


@pytest.fixture(scope="module")
def ours(sqlite_server: str) -> str:
    return f"{sqlite_server}/baremetal"


def node_body(name: str) -> dict[str, Any]:
    return {
        "driver": "fake-hardware",
        "name": name,
        "description": "rack 4",
        "lessee": "project-b",
        "shard": "shard-1",
        "automated_clean": False,
        "instance_name": "web-1",
        "disable_power_off": True,
        "boot_mode": "uefi",
        "secure_boot": True,
        "network_data": {"links": [], "networks": [], "services": []},
        "properties": {"cpus": 8},
        "extra": {"k": "v"},
        "resource_class": "baremetal",
    }


def test_a_created_node_has_ironics_fields_and_values(ironic: str, ours: str) -> None:
    name = f"cmp-{uuid.uuid4().hex[:8]}"
    (real_status, real), (our_status, mine) = both(
        ironic, ours, "/nodes", "POST", body=node_body(name)
    )
    assert (real_status, our_status) == (201, 201)
    assert real is not None and mine is not None
    assert set(mine) == set(real) - SUBRESOURCE_LINKS
    # Ironic's noauth caller may not create a node for another owner; it may patch one in.
    patch = [
        {"op": "add", "path": "/owner", "value": "project-a"},
        {"op": "add", "path": "/conductor_group", "value": ""},
        {"op": "add", "path": "/retired", "value": True},
        {"op": "add", "path": "/retired_reason", "value": "old"},
    ]
    (real_status, real), (our_status, mine) = both(
        ironic, ours, f"/nodes/{name}", "PATCH", body=patch
    )
    assert (real_status, our_status) == (200, 200)
    assert real is not None and mine is not None
    differing = {
        key: (real[key], mine[key]) for key in set(mine) - OWN_VALUES if real[key] != mine[key]
    }
    assert differing == {}
    for version in ("1.1", "1.20", "1.31", "1.46", "1.50", "1.66", "1.83", "1.104", "1.109"):
        (_, real_node), (_, my_node) = both(ironic, ours, f"/nodes/{name}", version=version)
        if version == "1.1":  # no names before 1.5
            (_, real_node), (_, my_node) = (
                call(f"{ironic}/v1/nodes/{real['uuid']}", "GET", version=version),
                call(f"{ours}/v1/nodes/{mine['uuid']}", "GET", version=version),
            )
        assert real_node is not None and my_node is not None
        assert set(my_node) == set(real_node) - SUBRESOURCE_LINKS, version


def test_a_too_new_field_is_refused_alike(ironic: str, ours: str) -> None:
    body = {"driver": "fake-hardware", "owner": "project-a"}
    (real_status, real), (our_status, mine) = both(
        ironic, ours, "/nodes", "POST", body=body, version="1.49"
    )
    assert (real_status, our_status) == (406, 406)
    assert real is not None and mine is not None
    assert set(mine) == set(real) == {"error_message"}
    real_error, my_error = json.loads(real["error_message"]), json.loads(mine["error_message"])
    assert set(my_error) == set(real_error) == {"faultcode", "faultstring", "debuginfo"}
    assert my_error["faultcode"] == real_error["faultcode"] == "Client"
    assert my_error["faultstring"].startswith(real_error["faultstring"].rstrip("."))


def test_maintenance_is_set_and_cleared_alike(ironic: str, ours: str) -> None:
    name = f"mnt-{uuid.uuid4().hex[:8]}"
    for root in (f"{ironic}/v1", f"{ours}/v1"):
        assert call(f"{root}/nodes", "POST", body={"driver": "fake-hardware", "name": name})[0]
    path = f"/nodes/{name}/maintenance"
    assert both(ironic, ours, path, "PUT", body={"reason": "fan"}) == [(202, None)] * 2
    fields = f"/nodes/{name}?fields=maintenance,maintenance_reason"
    shown = [answer[1] for answer in both(ironic, ours, fields)]
    assert [(s["maintenance"], s["maintenance_reason"]) for s in shown] == [(True, "fan")] * 2
    bad = both(ironic, ours, path, "PUT", body={"reason": 5})
    assert [status for status, _ in bad] == [400, 400]
    assert both(ironic, ours, path, "DELETE") == [(202, None)] * 2
    shown = [answer[1] for answer in both(ironic, ours, fields)]
    assert [(s["maintenance"], s["maintenance_reason"]) for s in shown] == [(False, None)] * 2
