"""The flavors API through openstacksdk (both databases) and the real `openstack flavor`
CLI (SQLite), against a live server."""

from __future__ import annotations

from typing import Any

import pytest
from openstack import exceptions as sdk_exceptions

from tests.integration.clients import OpenStack, clouds_yaml, sdk, unique


@pytest.fixture
def conn(backend_server: str) -> Any:
    return sdk(backend_server, "compute")


def test_sdk_flavor_lifecycle(conn: Any) -> None:
    name = unique("sdk")
    flavor = conn.compute.create_flavor(
        name=name, ram=2048, vcpus=4, disk=20, is_public=False, description="sdk"
    )
    assert (flavor.name, flavor.ram, flavor.vcpus, flavor.disk, flavor.is_public) == (
        name,
        2048,
        4,
        20,
        False,
    )
    specs = conn.compute.create_flavor_extra_specs(
        flavor, {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "1"}
    )
    assert specs.extra_specs == {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "1"}
    conn.compute.update_flavor_extra_specs_property(flavor, "hw:numa_nodes", "2")
    conn.compute.delete_flavor_extra_specs_property(flavor, "hw:cpu_policy")
    assert conn.compute.fetch_flavor_extra_specs(flavor).extra_specs == {"hw:numa_nodes": "2"}
    # openstacksdk sets extra specs below 2.86, where Nova does not validate; at 2.86 we do.
    response = conn.compute.put(
        f"/flavors/{flavor.id}/os-extra_specs/hw:numa_nodes",
        json={"hw:numa_nodes": "0"},
        microversion="2.86",
        raise_exc=False,
    )
    assert response.status_code == 400
    assert response.json()["badRequest"]["message"] == (
        "Validation failed; hw:numa_nodes: 0 is less than the minimum 1"
    )
    conn.compute.flavor_add_tenant_access(flavor, "project-a")
    assert conn.compute.get_flavor_access(flavor) == [
        {"flavor_id": flavor.id, "tenant_id": "project-a"}
    ]
    private = [f.id for f in conn.compute.flavors(is_public=False)]
    assert flavor.id in private
    assert flavor.id not in [f.id for f in conn.compute.flavors(is_public=True)]
    fetched = conn.compute.get_flavor(flavor.id)
    assert fetched.description == "sdk" and fetched.extra_specs == {"hw:numa_nodes": "2"}
    conn.compute.delete_flavor(flavor)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.compute.get_flavor(flavor.id)


def test_sdk_pages_through_flavors(conn: Any) -> None:
    tag = unique("page")
    made = {
        conn.compute.create_flavor(name=f"{tag}-{i}", ram=1, vcpus=1, disk=1).id for i in range(5)
    }
    listed = {f.id for f in conn.compute.flavors(limit=2) if f.name.startswith(f"{tag}-")}
    assert listed == made


@pytest.fixture(scope="module")
def flavor_cli(sqlite_server: str, tmp_path_factory: pytest.TempPathFactory) -> OpenStack:
    config = clouds_yaml(tmp_path_factory.mktemp("cfg"), sqlite_server, "compute")
    return OpenStack.cloud(config, "flavor")


def test_openstack_flavor_smoke(flavor_cli: OpenStack) -> None:
    created = flavor_cli.json(
        "create",
        "--ram",
        "1024",
        "--vcpus",
        "2",
        "--disk",
        "10",
        "--description",
        "smoke",
        "--property",
        "hw:cpu_policy=dedicated",
        "smoke-1",
    )
    assert created["name"] == "smoke-1" and created["properties"] == {"hw:cpu_policy": "dedicated"}
    listed = flavor_cli.json("list")
    assert [f["Name"] for f in listed] == ["smoke-1"]
    flavor_cli.ok("set", "--property", "hw:numa_nodes=2", "smoke-1")
    flavor_cli.ok("unset", "--property", "hw:cpu_policy", "smoke-1")
    shown = flavor_cli.json("show", "smoke-1")
    assert shown["properties"] == {"hw:numa_nodes": "2"} and shown["description"] == "smoke"
    flavor_cli.ok("delete", "smoke-1")
    assert flavor_cli.json("list") == []
