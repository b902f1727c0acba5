"""The cross-site write guard on a live server (SQLite): a browser-style write from another
site is refused over a real socket, while the `openstack` CLI and openstacksdk still create
and delete in every API family."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest
import requests

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.live import serving

OPENSTACK = shutil.which("openstack", path=str(Path(sys.executable).parent))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('xsite') / 'xsite.db'}")
    migrate.upgrade(engine)
    with serving(build_app(engine)) as url:
        yield url
    engine.dispose()


def unique(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:8]}"


def test_the_issue_request_is_refused_and_prunes_nothing(server: str) -> None:
    flavor = unique("kept")
    created = requests.post(
        f"{server}/compute/v2.1/flavors",
        json={"flavor": {"name": flavor, "id": flavor, "ram": 512, "vcpus": 1, "disk": 1}},
    )
    assert created.status_code == 200
    marker = {"extra_specs": {"flavorsmith:managed": "true"}}
    assert requests.post(f"{server}/compute/v2.1/flavors/{flavor}/os-extra_specs", json=marker)
    # curl -X POST -H 'Origin: http://example.test'
    #      -H 'Content-Type: application/x-www-form-urlencoded' '.../v1/sync/apply?prune=true'
    response = requests.post(
        f"{server}/v1/sync/apply?prune=true",
        headers={
            "Origin": "http://example.test",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    assert response.status_code == 403
    assert response.json()["detail"].startswith(
        "Cross-site request refused: Origin 'http://example.test' is not this service's "
        f"origin ({server});"
    )
    assert requests.get(f"{server}/compute/v2.1/flavors/{flavor}").status_code == 200
    # The service's own origin, as a browser on the same page would send it, may write.
    mine = requests.post(
        f"{server}/compute/v2.1/flavors",
        json={"flavor": {"name": unique("own"), "ram": 512, "vcpus": 1, "disk": 1}},
        headers={"Origin": server, "Sec-Fetch-Site": "same-origin"},
    )
    assert mine.status_code == 200


def test_openstacksdk_creates_and_deletes_in_every_family(server: str) -> None:
    conn: Any = openstack.connect(
        auth_type="none",
        compute_endpoint_override=f"{server}/compute/v2.1",
        baremetal_endpoint_override=f"{server}/baremetal",
        load_balancer_endpoint_override=f"{server}/load-balancer",
        load_yaml_config=False,
        load_envvars=False,
    )
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


def openstack_cli(server: str, tmp_path: Path, *args: str) -> str:
    assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
    config = tmp_path / "clouds.yaml"
    # The CLI insists on an identity v3 endpoint even when it never calls it.
    config.write_text(
        "clouds:\n  flavorsmith:\n    auth_type: none\n"
        f"    compute_endpoint_override: {server}/compute/v2.1\n"
        f"    baremetal_endpoint_override: {server}/baremetal\n"
        '    identity_api_version: "3"\n'
        f"    identity_endpoint_override: {server}/compute/v2.1\n"
    )
    result = subprocess.run(
        [OPENSTACK, "--os-cloud", "flavorsmith", *args],
        capture_output=True,
        text=True,
        check=False,
        env={
            "PATH": str(Path(sys.executable).parent),
            "HOME": str(Path.home()),
            "OS_CLIENT_CONFIG_FILE": str(config),
        },
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_openstack_cli_creates_and_deletes(server: str, tmp_path: Path) -> None:
    name = unique("cli")
    created = json.loads(
        openstack_cli(
            server, tmp_path, "flavor", "create", "--ram", "512", "--vcpus", "1", name, "-f", "json"
        )
    )
    openstack_cli(server, tmp_path, "flavor", "delete", created["id"])
    assert requests.get(f"{server}/compute/v2.1/flavors/{created['id']}").status_code == 404

    node = json.loads(
        openstack_cli(
            server,
            tmp_path,
            "baremetal",
            "node",
            "create",
            "--driver",
            "fake-hardware",
            "--name",
            name,
            "-f",
            "json",
        )
    )
    openstack_cli(server, tmp_path, "baremetal", "node", "add", "trait", name, "CUSTOM_CLI")
    openstack_cli(server, tmp_path, "baremetal", "node", "delete", node["uuid"])
    gone = requests.get(
        f"{server}/baremetal/v1/nodes/{node['uuid']}",
        headers={"X-OpenStack-Ironic-API-Version": "1.81"},
    )
    assert gone.status_code == 404
