"""The flavors API through openstacksdk (both databases) and the real `openstack flavor`
CLI (SQLite), against a live server."""

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
from openstack import exceptions as sdk_exceptions
from sqlalchemy import Engine

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.live import serving

OPENSTACK = shutil.which("openstack", path=str(Path(sys.executable).parent))


@pytest.fixture(scope="module")
def server(migrated_engine: Engine) -> Iterator[str]:
    with serving(build_app(migrated_engine)) as url:
        yield url


@pytest.fixture
def conn(server: str) -> Any:
    return openstack.connect(
        auth_type="none",
        compute_endpoint_override=f"{server}/compute/v2.1",
        load_yaml_config=False,
        load_envvars=False,
    )


def test_sdk_flavor_lifecycle(conn: Any) -> None:
    name = f"sdk-{uuid.uuid4().hex[:8]}"
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
    tag = uuid.uuid4().hex[:6]
    made = {
        conn.compute.create_flavor(name=f"page-{tag}-{i}", ram=1, vcpus=1, disk=1).id
        for i in range(5)
    }
    listed = {f.id for f in conn.compute.flavors(limit=2) if f.name.startswith(f"page-{tag}-")}
    assert listed == made


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('cli') / 'cli.db'}")
    migrate.upgrade(engine)
    with serving(build_app(engine)) as url:
        config = tmp_path_factory.mktemp("cfg") / "clouds.yaml"
        # The CLI insists on an identity v3 endpoint even when it never calls it.
        config.write_text(
            "clouds:\n  flavorsmith:\n    auth_type: none\n"
            f"    compute_endpoint_override: {url}/compute/v2.1\n"
            '    identity_api_version: "3"\n'
            f"    identity_endpoint_override: {url}/compute/v2.1\n"
        )
        yield config
    engine.dispose()


def openstack_cli(config: Path, *args: str) -> str:
    assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
    result = subprocess.run(
        [OPENSTACK, "--os-cloud", "flavorsmith", "flavor", *args],
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


def test_openstack_flavor_smoke(cloud: Path) -> None:
    created = json.loads(
        openstack_cli(
            cloud,
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
            "-f",
            "json",
        )
    )
    assert created["name"] == "smoke-1" and created["properties"] == {"hw:cpu_policy": "dedicated"}
    listed = json.loads(openstack_cli(cloud, "list", "-f", "json"))
    assert [f["Name"] for f in listed] == ["smoke-1"]
    openstack_cli(cloud, "set", "--property", "hw:numa_nodes=2", "smoke-1")
    openstack_cli(cloud, "unset", "--property", "hw:cpu_policy", "smoke-1")
    shown = json.loads(openstack_cli(cloud, "show", "smoke-1", "-f", "json"))
    assert shown["properties"] == {"hw:numa_nodes": "2"} and shown["description"] == "smoke"
    openstack_cli(cloud, "delete", "smoke-1")
    assert json.loads(openstack_cli(cloud, "list", "-f", "json")) == []
