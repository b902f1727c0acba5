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
