"""The cross-site write guard on a live server (SQLite): a browser-style write from another
site is refused over a real socket, while the `openstack` CLI and openstacksdk still create
and delete in every API family."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import requests

from tests.integration.clients import OpenStack, clouds_yaml, sdk, unique


def test_the_issue_request_is_refused_and_prunes_nothing(sqlite_server: str) -> None:
    flavor = unique("kept")
    created = requests.post(
        f"{sqlite_server}/compute/v2.1/flavors",
        json={"flavor": {"name": flavor, "id": flavor, "ram": 512, "vcpus": 1, "disk": 1}},
    )
    assert created.status_code == 200
    marker = {"extra_specs": {"flavorsmith:managed": "true"}}
    assert requests.post(
        f"{sqlite_server}/compute/v2.1/flavors/{flavor}/os-extra_specs", json=marker
    )
    # curl -X POST -H 'Origin: http://example.test'
    #      -H 'Content-Type: application/x-www-form-urlencoded' '.../v1/sync/apply?prune=true'
    response = requests.post(
        f"{sqlite_server}/v1/sync/apply?prune=true",
        headers={
            "Origin": "http://example.test",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    assert response.status_code == 403
    assert response.json()["detail"].startswith(
        "Cross-site request refused: Origin 'http://example.test' is not this service's "
        f"origin ({sqlite_server});"
    )
    assert requests.get(f"{sqlite_server}/compute/v2.1/flavors/{flavor}").status_code == 200
    # The service's own origin, as a browser on the same page would send it, may write.
    mine = requests.post(
        f"{sqlite_server}/compute/v2.1/flavors",
        json={"flavor": {"name": unique("own"), "ram": 512, "vcpus": 1, "disk": 1}},
        headers={"Origin": sqlite_server, "Sec-Fetch-Site": "same-origin"},
    )
    assert mine.status_code == 200


def test_openstacksdk_creates_and_deletes_in_every_family(sqlite_server: str) -> None:
    conn: Any = sdk(sqlite_server, "compute", "baremetal", "load_balancer")
    flavor = conn.compute.create_flavor(name=unique("sdk"), ram=512, vcpus=1, disk=1)
    conn.compute.create_flavor_extra_specs(flavor, {"hw:numa_nodes": "1"})
    conn.compute.delete_flavor_extra_specs_property(flavor, "hw:numa_nodes")
    conn.compute.delete_flavor(flavor)
    assert conn.compute.find_flavor(flavor.id) is None

    node = conn.baremetal.create_node(driver="fake-hardware", name=unique("sdk"))
    conn.baremetal.add_node_trait(node, "CUSTOM_X")
    conn.baremetal.remove_node_trait(node, "CUSTOM_X")
    conn.baremetal.patch_node(node, [{"op": "add", "path": "/extra/k", "value": "v"}])
    conn.baremetal.delete_node(node)
    assert conn.baremetal.find_node(node.id) is None

    profile = conn.load_balancer.create_flavor_profile(
        name=unique("sdk"), provider_name="noop", flavor_data="{}"
    )
    conn.load_balancer.delete_flavor_profile(profile)
    assert conn.load_balancer.find_flavor_profile(profile.id) is None


def test_openstack_cli_creates_and_deletes(sqlite_server: str, tmp_path: Path) -> None:
    cli = OpenStack.cloud(clouds_yaml(tmp_path, sqlite_server, "compute", "baremetal"))
    name = unique("cli")
    created = cli.json("flavor", "create", "--ram", "512", "--vcpus", "1", name)
    cli.ok("flavor", "delete", created["id"])
    assert requests.get(f"{sqlite_server}/compute/v2.1/flavors/{created['id']}").status_code == 404

    node = cli.json("baremetal", "node", "create", "--driver", "fake-hardware", "--name", name)
    cli.ok("baremetal", "node", "add", "trait", name, "CUSTOM_CLI")
    cli.ok("baremetal", "node", "delete", node["uuid"])
    gone = requests.get(
        f"{sqlite_server}/baremetal/v1/nodes/{node['uuid']}",
        headers={"X-OpenStack-Ironic-API-Version": "1.81"},
    )
    assert gone.status_code == 404
