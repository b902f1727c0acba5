"""The nodes and traits API through openstacksdk against a live server, on both databases,
and concurrent trait writers (no lost update, no mixed set, no "database is locked")."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import requests
from openstack import exceptions as sdk_exceptions

from tests.integration.clients import sdk, unique


@pytest.fixture
def conn(backend_server: str) -> Any:
    return sdk(backend_server, "baremetal")


def test_sdk_node_and_trait_lifecycle(conn: Any) -> None:
    rc = unique("rc")
    node = conn.baremetal.create_node(driver="fake-hardware", name=f"{rc}-n1", resource_class=rc)
    assert node.provision_state == "enroll" and node.resource_class == rc
    conn.baremetal.add_node_trait(node, "CUSTOM_NICX")
    assert conn.baremetal.get_node(node.id).traits == ["CUSTOM_NICX"]
    conn.baremetal.set_node_traits(node, ["CUSTOM_GPU", "HW_CPU_X86_AVX2"])
    assert sorted(conn.baremetal.get_node(node.name).traits) == ["CUSTOM_GPU", "HW_CPU_X86_AVX2"]
    conn.baremetal.remove_node_trait(node, "CUSTOM_GPU")
    assert conn.baremetal.get_node(node.id).traits == ["HW_CPU_X86_AVX2"]
    with pytest.raises(sdk_exceptions.BadRequestException, match="Invalid trait 'nicx'"):
        conn.baremetal.add_node_trait(node, "nicx")
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.remove_node_trait(node, "CUSTOM_NEVER")
    found = list(conn.baremetal.nodes(details=True, resource_class=rc))
    assert [(n.id, n.traits) for n in found] == [(node.id, ["HW_CPU_X86_AVX2"])]
    updated = conn.baremetal.update_node(node.id, extra={"rack": "r7"})
    assert updated.extra == {"rack": "r7"}
    result = conn.baremetal.validate_node(node, required=("deploy",))
    assert result["deploy"].result is True
    conn.baremetal.delete_node(node)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.get_node(node.id)


def test_sdk_ironic_data_fields_maintenance_and_conductor_actions(conn: Any) -> None:
    shard = unique("shard")
    node = conn.baremetal.create_node(
        driver="fake-hardware", name=unique("n"), lessee="p2", shard=shard, conductor_group="G"
    )
    assert (node.lessee, node.shard, node.conductor_group) == ("p2", shard, "g")
    assert (node.boot_interface, node.network_interface, node.is_retired) == ("fake", "noop", False)
    updated = conn.baremetal.update_node(node, owner="p1", is_automated_clean_enabled=False)
    assert (updated.owner, updated.is_automated_clean_enabled) == ("p1", False)
    assert [n.id for n in conn.baremetal.nodes(shard=shard)] == [node.id]
    conn.baremetal.set_node_maintenance(node, reason="fan failed")
    shown = conn.baremetal.get_node(node.id)
    assert (shown.is_maintenance, shown.maintenance_reason) == (True, "fan failed")
    conn.baremetal.unset_node_maintenance(node)
    shown = conn.baremetal.get_node(node.id)
    assert (shown.is_maintenance, shown.maintenance_reason) == (False, None)
    with pytest.raises(sdk_exceptions.BadRequestException, match="conductor handles power state"):
        conn.baremetal.set_node_power_state(node, "power on")
    with pytest.raises(sdk_exceptions.BadRequestException, match="provision state changes"):
        conn.baremetal.set_node_provision_state(node, "manage")


def test_sdk_pages_through_many_nodes(conn: Any) -> None:
    rc = unique("rc")
    created = {
        conn.baremetal.create_node(driver="fake-hardware", resource_class=rc).id for _ in range(7)
    }
    listed = [n.id for n in conn.baremetal.nodes(resource_class=rc, limit=3, paginated=True)]
    assert sorted(listed) == sorted(created)


HEADERS = {"X-OpenStack-Ironic-API-Version": "latest"}
Request = tuple[str, str, dict[str, Any] | None]  # method, url, JSON body


def hammer(requests_by_writer: list[list[Request]]) -> list[str]:
    """Each writer sends its requests on its own connection, all writers at once;
    returns every response that was not a 204."""
    failures: list[str] = []

    def writer(calls: list[Request]) -> None:
        with requests.Session() as session:
            for method, url, body in calls:
                response = session.request(method, url, json=body, headers=HEADERS, timeout=30)
                if response.status_code != 204:
                    failures.append(f"{response.status_code} {response.text}")

    threads = [threading.Thread(target=writer, args=(calls,)) for calls in requests_by_writer]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def new_node(server: str) -> str:
    url = f"{server}/baremetal/v1/nodes"
    node = requests.post(url, json={"driver": "fake-hardware"}, headers=HEADERS, timeout=10).json()
    return f"{url}/{node['uuid']}/traits"


def test_sixteen_writers_set_traits_without_mixing(backend_server: str) -> None:
    traits_url = new_node(backend_server)
    sets = [[f"CUSTOM_W{i}_{j}" for j in range(3)] for i in range(16)]
    assert hammer([[("PUT", traits_url, {"traits": s})] * 10 for s in sets]) == []
    final = requests.get(traits_url, headers=HEADERS, timeout=10).json()["traits"]
    assert sorted(final) in [sorted(s) for s in sets]


def test_sixteen_writers_adding_traits_lose_nothing(backend_server: str) -> None:
    traits_url = new_node(backend_server)
    adds: list[list[Request]] = [
        [("PUT", f"{traits_url}/CUSTOM_ADD_{i}_{j}", None) for j in range(3)] for i in range(16)
    ]
    assert hammer(adds) == []
    final = requests.get(traits_url, headers=HEADERS, timeout=10).json()["traits"]
    assert len(final) == 48
