"""Smoke test of the real Ironic 39 test support (tests/support/ironic_api.py): it installs,
starts on loopback, and openstacksdk can create, list and delete a deploy template; with agent
inspection, an inventory posted as the agent does is stored."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from openstack import exceptions as sdk_exceptions

from tests.support.ironic_api import inspect_with_inventory, running_ironic, sdk_connection

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inspection" / "r7615-m1-small.json"


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


def test_root_lists_the_v1_api(ironic: str) -> None:
    with urllib.request.urlopen(f"{ironic}/", timeout=10) as response:
        versions = json.load(response)
    v1 = versions["default_version"]
    assert v1["id"] == "v1"
    major, minor = (int(part) for part in v1["version"].split("."))
    assert (major, minor) >= (1, 55)


def test_deploy_template_lifecycle_through_the_sdk(ironic: str) -> None:
    conn = sdk_connection(ironic)
    steps = [
        {
            "interface": "bios",
            "step": "apply_configuration",
            "args": {"settings": [{"name": "A", "value": "B"}]},
            "priority": 10,
        }
    ]
    created = conn.baremetal.create_deploy_template(name="CUSTOM_SMOKE", steps=steps)
    try:
        assert created.name == "CUSTOM_SMOKE"
        listed = {t.name: t for t in conn.baremetal.deploy_templates(details=True)}
        assert list(listed) == ["CUSTOM_SMOKE"]
        assert listed["CUSTOM_SMOKE"].steps == steps
        node = conn.baremetal.create_node(driver="fake-hardware", name="smoke-node")
        assert node.bios_interface == "fake" and node.provision_state == "enroll"
        conn.baremetal.delete_node(node)
    finally:
        conn.baremetal.delete_deploy_template(created)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.get_deploy_template(created.id)
    assert list(conn.baremetal.deploy_templates()) == []


def test_agent_inspection_stores_the_posted_inventory() -> None:
    document = json.loads(EXAMPLE.read_text())
    with running_ironic(agent_inspection=True) as url:
        conn = sdk_connection(url)
        node = conn.baremetal.create_node(driver="fake-hardware", name="inspected")
        assert node.inspect_interface == "fake"
        done = inspect_with_inventory(conn, node, document)
        assert (done.provision_state, done.last_error) == ("manageable", None)
        assert done.inspect_interface == "agent"
        macs = sorted(i["mac_address"] for i in document["inventory"]["interfaces"])
        assert sorted(p.address for p in conn.baremetal.ports(node_uuid=node.id)) == macs
        stored = conn.baremetal.get(f"/nodes/{node.id}/inventory", microversion="1.81")
        assert stored.status_code == 200
        assert stored.json()["inventory"] == document["inventory"]
        # The collectors' data arrives as plugin data, next to what Ironic's default hooks add
        # (validate-interfaces keeps the PXE interface: [inspector]add_ports = pxe).
        plugin_data = stored.json()["plugin_data"]
        assert plugin_data["pci_devices"] == document["plugin_data"]["pci_devices"]
        assert plugin_data["macs"] == [document["inventory"]["boot"]["pxe_interface"]]
