"""A smoke set through the real `openstack baremetal` CLI against a live server (SQLite)."""

from __future__ import annotations

import pytest

from tests.integration.clients import OpenStack


@pytest.fixture(scope="module")
def baremetal(sqlite_server: str) -> OpenStack:
    return OpenStack.noauth(sqlite_server, "baremetal", "baremetal")


def test_openstack_baremetal_smoke(baremetal: OpenStack) -> None:
    created = baremetal.json(
        "node",
        "create",
        "--driver",
        "fake-hardware",
        "--name",
        "smoke-1",
        "--resource-class",
        "m1.small",
    )
    assert created["name"] == "smoke-1" and created["resource_class"] == "m1.small"
    assert baremetal.ok("node", "add", "trait", "smoke-1", "CUSTOM_NICX", "CUSTOM_GPU") == (
        "Added trait CUSTOM_NICX\nAdded trait CUSTOM_GPU\n"
    )
    assert (
        baremetal.ok("node", "remove", "trait", "smoke-1", "CUSTOM_GPU")
        == "Removed trait CUSTOM_GPU\n"
    )
    traits = baremetal.json("node", "trait", "list", "smoke-1")
    assert traits == [{"traits": "CUSTOM_NICX"}]
    listed = baremetal.json("node", "list", "--fields", "uuid", "traits")
    assert {"uuid": created["uuid"], "traits": ["CUSTOM_NICX"]} in listed
    validation = baremetal.json("node", "validate", "smoke-1")
    assert {"Interface": "deploy", "Result": True, "Reason": ""} in validation


def test_openstack_baremetal_data_fields_maintenance_and_conductor_actions(
    baremetal: OpenStack,
) -> None:
    created = baremetal.json(
        "node",
        "create",
        "--driver",
        "fake-hardware",
        "--name",
        "fields-1",
        "--owner",
        "p1",
        "--conductor-group",
        "Rack-7",
        "--shard",
        "s1",
    )
    assert (created["owner"], created["conductor_group"], created["shard"]) == (
        "p1",
        "rack-7",
        "s1",
    )
    assert created["deploy_interface"] == "fake" and created["retired"] is False
    assert baremetal.ok("node", "set", "fields-1", "--lessee", "p2", "--retired") == ""
    shown = baremetal.json("node", "show", "fields-1", "--fields", "lessee", "retired")
    assert shown == {"lessee": "p2", "retired": True}
    assert baremetal.ok("node", "maintenance", "set", "fields-1", "--reason", "fan failed") == ""
    shown = baremetal.json("node", "show", "fields-1", "--fields", "maintenance_reason")
    assert shown == {"maintenance_reason": "fan failed"}
    assert baremetal.ok("node", "maintenance", "unset", "fields-1") == ""
    shown = baremetal.json("node", "show", "fields-1", "--fields", "maintenance")
    assert shown == {"maintenance": False}
    listed = baremetal.json("node", "list", "--owner", "p1", "--fields", "name")
    assert listed == [{"name": "fields-1"}]
    error = baremetal.error("node", "power", "on", "fields-1")
    assert "Ironic's conductor handles power state changes" in error
    assert f"Send this request for node {created['uuid']} to Ironic. (HTTP 400)" in error
