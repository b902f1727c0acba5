"""``flavorsmith verify --cloud`` against a real Ironic 39, Nova 34 and Placement 16 (started by
the test support), named by one clouds.yaml cloud: aligned (Placement seeded from Ironic's
nodes as Nova's ironic driver reports them, Nova synced from the catalog) it exits 0; with one
drift of each kind seeded on purpose it reports every kind and exits 1."""

from __future__ import annotations

import json
import shutil
import time
import uuid as uuidlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.matching.drift import KINDS
from tests.conftest import EXAMPLES, Invoke
from tests.support import nova_api
from tests.support.ironic_api import running_ironic
from tests.support.ironic_fleet import IronicHttp
from tests.support.placement_api import Placement, running_placement, seed
from tests.support.placement_api import inventory as nova_inventory

CLOUD = "lab"
TOKEN = "admin:admin"  # Nova's test shim and Placement's noauth2: the admin; Ironic: noauth
FIELDS = "uuid,name,resource_class,traits,provision_state,power_state,maintenance,instance_uuid"

# name -> (resource class, traits, state): "available", "instance" or "maintenance"
NODES: dict[str, tuple[str, list[str], str]] = {
    "ok-1": ("m1.small", [], "available"),
    "ok-2": ("m1.small", ["CUSTOM_NICX"], "available"),
    "ok-3": ("m1.small", [], "available"),
    "rc-1": ("m1.small", [], "available"),
    "gpu-1": ("g1.8xh100", ["CUSTOM_GPU_NVIDIA_H100"], "available"),
    "busy": ("m1.small", [], "instance"),
    "maint": ("m1.small", [], "maintenance"),
    # m1.medium.dedicated's pool (the public m1.medium marks CUSTOM_CPU_AVX512 absent)
    "pool-1": ("m1.medium", ["CUSTOM_CPU_AVX512"], "available"),
}


@dataclass(frozen=True)
class Cloud:
    ironic: str
    nova: str
    placement: Placement
    clouds_yaml: Path
    repo: Path


def _start_together(stack: ExitStack, *managers: AbstractContextManager[Any]) -> list[Any]:
    """Enter the context managers at the same time (each service takes seconds to start); all
    that started are exited with ``stack``."""
    with ThreadPoolExecutor(len(managers)) as pool:
        futures = [pool.submit(m.__enter__) for m in managers]
    values = []
    error: BaseException | None = None
    for manager, future in zip(managers, futures, strict=True):
        exc = future.exception()
        if exc is None:
            stack.push(manager.__exit__)
            values.append(future.result())
        else:
            error = error or exc
    if error is not None:
        raise error
    return values


def _ironic_nodes(ironic: str) -> list[dict[str, Any]]:
    client = IronicHttp(ironic)
    try:
        return list(client.call("GET", f"/nodes?fields={FIELDS}")["nodes"])
    finally:
        client.close()


def _wait(ironic: str, ready: Callable[[dict[str, Any]], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not all(ready(n) for n in _ironic_nodes(ironic)):
        assert time.monotonic() < deadline, f"Ironic's nodes did not become {what}"
        time.sleep(0.3)


def _make_nodes(ironic: str) -> None:
    """The nodes of NODES in Ironic (fake hardware), made available and powered on; then one
    with an instance and one in maintenance."""
    client = IronicHttp(ironic)
    try:
        made = {}
        for name, (rc, traits, _) in NODES.items():
            node = client.call(
                "POST", "/nodes", {"name": name, "driver": "fake-hardware", "resource_class": rc}
            )
            made[name] = node["uuid"]
            if traits:
                client.call("PUT", f"/nodes/{node['uuid']}/traits", {"traits": traits})
            client.call("PUT", f"/nodes/{node['uuid']}/states/provision", {"target": "manage"})
        _wait(ironic, lambda n: n["provision_state"] == "manageable", "manageable")
        for uuid in made.values():
            client.call("PUT", f"/nodes/{uuid}/states/provision", {"target": "provide"})
        _wait(ironic, lambda n: n["provision_state"] == "available", "available")
        for uuid in made.values():
            client.call("PUT", f"/nodes/{uuid}/states/power", {"target": "power on"})
        _wait(ironic, lambda n: n["power_state"] == "power on", "powered on")
        instance = [{"op": "add", "path": "/instance_uuid", "value": str(uuidlib.uuid4())}]
        client.call("PATCH", f"/nodes/{made['busy']}", instance)
        client.call("PUT", f"/nodes/{made['maint']}/maintenance", {"reason": "fan"})
    finally:
        client.close()


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    folder = tmp_path_factory.mktemp("verify")
    repo = folder / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    with ExitStack() as stack:
        ironic, nova, placement = _start_together(
            stack, running_ironic(), nova_api.running(folder / "nova"), running_placement()
        )
        _make_nodes(ironic)
        seed(placement.url, _ironic_nodes(ironic))
        clouds = {
            "clouds": {
                CLOUD: {
                    "auth_type": "admin_token",
                    "auth": {"endpoint": nova, "token": TOKEN},
                    "compute_endpoint_override": nova,
                    "baremetal_endpoint_override": f"{ironic}/v1",
                    "placement_endpoint_override": placement.url,
                }
            }
        }
        (folder / "clouds.yaml").write_text(json.dumps(clouds))
        yield Cloud(ironic, nova, placement, folder / "clouds.yaml", repo)


def _verify(cli: Invoke, cloud: Cloud) -> tuple[int, dict[str, Any]]:
    result = cli("verify", "--cloud", CLOUD, "--repo", str(cloud.repo), "-f", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def _nova(cloud: Cloud, method: str, path: str, body: Any = None) -> None:
    import urllib.request

    request = urllib.request.Request(
        f"{cloud.nova}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "X-Auth-Token": TOKEN,
            "Content-Type": "application/json",
            "OpenStack-API-Version": "compute 2.55",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def _seed_drift(cloud: Cloud) -> dict[str, str]:
    """One drift of each kind, in Ironic, Placement and Nova; returns name -> node UUID."""
    nodes = {n["name"]: n for n in _ironic_nodes(cloud.ironic)}
    uuids = {name: str(n["uuid"]) for name, n in nodes.items()}
    placement = cloud.placement.call
    client = IronicHttp(cloud.ironic)
    try:
        # trait-not-on-provider (and flavor-candidates: m1.small.nicX now matches ok-1)
        client.call("PUT", f"/nodes/{uuids['ok-1']}/traits", {"traits": ["CUSTOM_NICX"]})
        # provider-missing: a node no nova-compute has reported
        made = client.call(
            "POST",
            "/nodes",
            {"name": "new-1", "driver": "fake-hardware", "resource_class": "m1.small"},
        )
        uuids["new-1"] = made["uuid"]
    finally:
        client.close()

    def inventories(name: str, body: dict[str, Any]) -> None:
        path = f"/resource_providers/{uuids[name]}"
        generation = placement("GET", path)["generation"]
        placement(
            "PUT",
            f"{path}/inventories",
            {"resource_provider_generation": generation, "inventories": body},
        )

    # trait-not-in-ironic
    placement("PUT", "/traits/CUSTOM_STALE")
    path = f"/resource_providers/{uuids['gpu-1']}/traits"
    have = placement("GET", path)
    placement(
        "PUT",
        path,
        {
            "resource_provider_generation": have["resource_provider_generation"],
            "traits": [*have["traits"], "CUSTOM_STALE"],
        },
    )
    # provider-without-node
    orphan = str(uuidlib.uuid4())
    placement("POST", "/resource_providers", {"uuid": orphan, "name": orphan})
    uuids["orphan"] = orphan
    inventories("orphan", nova_inventory({"resource_class": "m1.small"}, reserve=False))
    # inventory-reserved: ok-2 is available in Ironic
    inventories("ok-2", nova_inventory(nodes["ok-2"], reserve=True))
    # inventory-not-reserved: maint is in maintenance
    inventories("maint", nova_inventory(nodes["maint"], reserve=False))
    # inventory-absent
    inventories("ok-3", {})
    # resource-class-mismatch
    placement("PUT", "/resource_classes/CUSTOM_C2_LARGE")
    inventories("rc-1", nova_inventory({"resource_class": "c2.large"}, reserve=False))

    # pool-leak: the public m1.medium no longer marks the pool's trait absent
    medium = cloud.repo / "hardware" / "flavors" / "m1.medium.yaml"
    medium.write_text(medium.read_text().split("traits:")[0])
    # flavor-missing
    _nova(cloud, "DELETE", "/flavors/m1.small.no-gpu")
    # flavor-extra-spec
    _nova(cloud, "DELETE", "/flavors/g1.8xh100/os-extra_specs/scheduling:tier")
    # flavor-public: m1.medium made again, private
    _nova(cloud, "DELETE", "/flavors/m1.medium")
    _nova(
        cloud,
        "POST",
        "/flavors",
        {
            "flavor": {
                "id": "m1.medium",
                "name": "m1.medium",
                "ram": 262144,
                "vcpus": 32,
                "disk": 960,
                "os-flavor-access:is_public": False,
            }
        },
    )
    # flavor-access
    _nova(
        cloud,
        "POST",
        "/flavors/m1.medium.dedicated/action",
        {"removeTenantAccess": {"tenant": "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"}},
    )
    return uuids


def test_verify_a_real_cloud(cli: Invoke, cloud: Cloud, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cloud.clouds_yaml))
    synced = cli("sync", "apply", "--yes", "--cloud", CLOUD, "--repo", str(cloud.repo))
    assert synced.exit_code == 0, synced.output

    status, aligned = _verify(cli, cloud)
    assert aligned["findings"] == [] and status == 0
    assert aligned["checked"] == {
        "flavors": 12,
        "nodes": len(NODES),
        "providers": len(NODES),
        "nova_flavors": 12,
    }
    assert aligned["sources"]["placement"] == f"cloud {CLOUD}"

    uuids = _seed_drift(cloud)
    status, drifted = _verify(cli, cloud)
    assert status == 1
    found = {(f["kind"], f["subject"]) for f in drifted["findings"]}
    assert found >= {
        ("flavor-candidates", "m1.small.nicX"),
        ("provider-missing", "new-1"),
        ("provider-without-node", uuids["orphan"]),
        ("resource-class-mismatch", "rc-1"),
        ("inventory-absent", "ok-3"),
        ("inventory-reserved", "ok-2"),
        ("inventory-not-reserved", "maint"),
        ("trait-not-on-provider", "ok-1"),
        ("trait-not-in-ironic", "gpu-1"),
        ("flavor-missing", "m1.small.no-gpu"),
        ("flavor-extra-spec", "g1.8xh100"),
        ("flavor-public", "m1.medium"),
        ("flavor-access", "m1.medium.dedicated"),
        ("pool-leak", "m1.medium.dedicated"),
    }
    assert {kind for kind, _ in found} == set(KINDS)
    by_kind = {f["kind"]: f for f in drifted["findings"]}
    assert "only the matcher: ok-1" in by_kind["flavor-candidates"]["detail"]
    assert by_kind["trait-not-in-ironic"]["fix"].startswith(
        f"openstack --os-cloud {CLOUD} resource provider trait set "
    )
    assert (
        by_kind["flavor-missing"]["fix"] == f"flavorsmith sync apply --only flavors --cloud {CLOUD}"
    )

    # Counted on the cloud's nodes: pool-1 is the pool, and m1.medium reaches it.
    assert by_kind["pool-leak"]["detail"] == (
        "'m1.medium' (public) reaches 1 of the 1 nodes of 'm1.medium.dedicated'"
    )
    leak_fix = by_kind["pool-leak"]["fix"]
    assert leak_fix.startswith(
        "mark CPU_AVX512 absent in 'm1.medium' (trait: CPU_AVX512, state: absent), in "
    )
    assert leak_fix.endswith(
        "hardware/flavors/m1.medium.yaml; or put the pool's nodes in a Nova aggregate with "
        "trait:CUSTOM_CPU_AVX512=required and set [scheduler]enable_isolated_aggregate_filtering"
    )

    table = cli("verify", "--cloud", CLOUD, "--repo", str(cloud.repo))
    assert table.exit_code == 1
    assert f"placement: cloud {CLOUD}" in table.stdout


def test_a_cloud_that_cannot_be_used_is_one_line(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    (tmp_path / "clouds.yaml").write_text("clouds: {}\n")
    result = cli("verify", "--cloud", "nowhere", "--repo", str(EXAMPLES))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot use cloud 'nowhere'")
    assert len(result.stderr.strip().splitlines()) == 1
