"""``flavorsmith explain --cloud`` against a real Ironic 39 and a real Placement 16 (the test
support's), with one node per reason: Ironic nodes driven through their real states (enroll,
manageable, available, maintenance, an instance, an owner), and Placement seeded as Nova's
ironic driver reports them, with deliberate drift (a provider missing, reserved, allocated,
without inventory, without a trait, on a disabled compute service)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.clients.placement import PlacementReader
from tests.conftest import EXAMPLES, Invoke
from tests.support.ironic_api import running_ironic
from tests.support.ironic_fleet import IronicHttp
from tests.support.placement_api import Placement, running_placement, seed

pytestmark = pytest.mark.slow

FLAVOR = "g1.8xh100"  # resource class g1.8xh100, requires CUSTOM_GPU_NVIDIA_H100
PRIVATE = "m1.medium.dedicated"
RC = "g1.8xh100"
TRAITS = ["CUSTOM_GPU_NVIDIA_H100"]
WAIT = 60.0

# name -> (resource class, traits, what is done to it in Ironic)
NODES: dict[str, tuple[str, list[str], str]] = {
    "ready": (RC, TRAITS, "available"),
    "no-trait": (RC, [], "available"),
    "other-class": ("c2.diskless", TRAITS, "available"),
    "in-maintenance": (RC, TRAITS, "maintenance"),
    "enrolled": (RC, TRAITS, "enroll"),
    "manageable": (RC, TRAITS, "manageable"),
    "instance": (RC, TRAITS, "instance"),
    "owned": (RC, TRAITS, "owner"),
    # Healthy in Ironic; Placement drifts (see DRIFT).
    "no-provider": (RC, TRAITS, "available"),
    "reserved": (RC, TRAITS, "available"),
    "allocated": (RC, TRAITS, "available"),
    "no-inventory": (RC, TRAITS, "available"),
    "trait-gone": (RC, TRAITS, "available"),
    "disabled": (RC, TRAITS, "available"),
}
# What Placement is seeded with instead of the node's own view.
DRIFT: dict[str, dict[str, Any]] = {
    "reserved": {"maintenance": True},  # reserved, as if Nova saw an older state
    "allocated": {"instance_uuid": "5d4bd4a4-79c5-4b7d-9b84-0b8f8b7d0c11"},
    "no-inventory": {"resource_class": None},
    "trait-gone": {"traits": []},
    "disabled": {"compute_disabled": True},
}


def wait_for(client: IronicHttp, uuid: str, field: str, value: Any) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        node = client.call("GET", f"/nodes/{uuid}")
        if node[field] == value and node.get("target_provision_state") is None:
            return
        if node.get("last_error"):
            raise AssertionError(f"{uuid}: {node['last_error']}")
        time.sleep(0.2)
    raise AssertionError(f"{uuid}: {field} never became {value!r}")


def make_nodes(url: str) -> dict[str, dict[str, Any]]:
    """Each node of NODES in the real Ironic, in its real state; name -> Ironic's node."""
    client = IronicHttp(url)
    made: dict[str, dict[str, Any]] = {}
    try:
        for name, (rc, traits, what) in NODES.items():
            created = client.call(
                "POST", "/nodes", {"name": name, "driver": "fake-hardware", "resource_class": rc}
            )
            uuid = created["uuid"]
            if traits:
                client.call("PUT", f"/nodes/{uuid}/traits", {"traits": traits})
            if what != "enroll":
                client.call("PUT", f"/nodes/{uuid}/states/provision", {"target": "manage"})
                wait_for(client, uuid, "provision_state", "manageable")
                client.call("PUT", f"/nodes/{uuid}/states/power", {"target": "power off"})
                wait_for(client, uuid, "power_state", "power off")
            if what not in ("enroll", "manageable"):
                client.call("PUT", f"/nodes/{uuid}/states/provision", {"target": "provide"})
                wait_for(client, uuid, "provision_state", "available")
            if what == "maintenance":
                client.call("PUT", f"/nodes/{uuid}/maintenance", {"reason": "disk swap"})
            if what == "instance":
                patch = [
                    {
                        "op": "add",
                        "path": "/instance_uuid",
                        "value": "0d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                    }
                ]
                client.call("PATCH", f"/nodes/{uuid}", patch)
            if what == "owner":
                patch = [
                    {"op": "add", "path": "/owner", "value": "p-owner"},
                    {"op": "add", "path": "/lessee", "value": "p-lessee"},
                ]
                client.call("PATCH", f"/nodes/{uuid}", patch)
            made[name] = client.call("GET", f"/nodes/{uuid}")
    finally:
        client.close()
    return made


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Ironic and Placement running and filled; a clouds.yaml naming both as cloud ``lab``."""
    with running_ironic() as ironic, running_placement() as placement:
        nodes = make_nodes(ironic)
        seed(placement.url, list(_seeded(nodes)))
        folder = tmp_path_factory.mktemp("cloud")
        clouds = folder / "clouds.yaml"
        clouds.write_text(_clouds(ironic, placement))
        yield clouds, nodes


def _seeded(nodes: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for name, node in nodes.items():
        if name == "no-provider":
            continue
        view = {
            "uuid": node["uuid"],
            "resource_class": node["resource_class"],
            "traits": node["traits"],
            "provision_state": node["provision_state"],
            "power_state": node["power_state"],
            "maintenance": node["maintenance"],
            "instance_uuid": node["instance_uuid"],
        }
        yield view | DRIFT.get(name, {})


def _clouds(ironic: str, placement: Placement) -> str:
    return (
        "clouds:\n"
        "  lab:\n"
        "    auth_type: admin_token\n"
        f"    auth: {{token: admin, endpoint: '{placement.url}'}}\n"
        f"    baremetal_endpoint_override: '{ironic}/v1'\n"
        f"    placement_endpoint_override: '{placement.url}'\n"
    )


@pytest.fixture
def explain(
    cli: Invoke, cloud: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> Any:
    clouds, _ = cloud
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds))

    def run(*args: str) -> Any:
        result = cli("explain", *args, "--repo", str(EXAMPLES), "--cloud", "lab", "-f", "json")
        assert result.exit_code == 0, result.stdout + result.stderr
        return json.loads(result.stdout)

    return run


def reasons(found: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return [(r["layer"], r["kind"], r["blocking"]) for r in found["reasons"]]


EXPECTED: dict[str, list[tuple[str, str, bool]]] = {
    "ready": [],
    "no-trait": [("catalog", "missing-trait", True)],
    "other-class": [("catalog", "resource-class", True)],
    "in-maintenance": [("ironic", "maintenance", True), ("placement", "reserved", True)],
    "enrolled": [
        ("ironic", "power-state", True),
        ("ironic", "provision-state", True),
        ("placement", "reserved", True),
    ],
    "manageable": [("ironic", "provision-state", True), ("placement", "reserved", True)],
    "instance": [
        ("ironic", "instance", True),
        ("placement", "reserved", True),
        ("placement", "allocated", True),
    ],
    "owned": [("ironic", "owner", False), ("ironic", "lessee", False)],
    "no-provider": [("placement", "no-provider", True)],
    "reserved": [("placement", "reserved", True)],
    "allocated": [("placement", "reserved", True), ("placement", "allocated", True)],
    "no-inventory": [
        ("placement", "no-inventory", True),
        ("placement", "provider-missing-trait", True),
    ],
    "trait-gone": [("placement", "provider-missing-trait", True)],
    "disabled": [("placement", "compute-disabled", True)],
}


@pytest.mark.parametrize("name", list(NODES))
def test_each_reason_is_found_on_the_real_services(explain: Any, name: str) -> None:
    found = explain(FLAVOR, name)
    assert found["placement"] == "real"
    assert reasons(found) == EXPECTED[name], found["reasons"]
    assert found["schedulable"] is (name in ("ready", "owned"))


def test_one_node_reads_only_its_own_provider(
    explain: Any, cloud: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """For one node, Placement is asked about that node's provider alone, not every one."""
    _, nodes = cloud
    paths: list[str] = []
    real = PlacementReader.request

    def recorded(self: PlacementReader, method: str, path: str, *args: Any, **kw: Any) -> Any:
        paths.append(f"{method} {path}")
        return real(self, method, path, *args, **kw)

    monkeypatch.setattr(PlacementReader, "request", recorded)
    found = explain(FLAVOR, "ready")
    assert found["schedulable"] and found["placement"] == "real"
    mine = f"/resource_providers/{nodes['ready']['uuid']}"
    assert sorted(paths) == sorted(
        f"GET {mine}{tail}" for tail in ("", "/inventories", "/usages", "/traits")
    )
    paths.clear()
    missing = explain(FLAVOR, "no-provider")
    assert paths == [f"GET /resource_providers/{nodes['no-provider']['uuid']}"]  # a 404
    assert [r["detail"] for r in missing["reasons"]] == [
        "Placement has no resource provider for the node: Nova's compute service has not "
        "reported it (is the node in a conductor group or shard a running nova-compute "
        "manages?)"
    ]


def test_the_flavor_counts_its_nodes_by_reason(explain: Any) -> None:
    found = explain(FLAVOR)
    assert found["candidates"] == 2 and found["nodes"] == len(NODES)
    assert found["summary"] == (
        "2 available, 1 of another resource class, 1 lack CUSTOM_GPU_NVIDIA_H100, "
        "1 have no provider, 1 have no inventory of the class in Placement, 1 provisioned, "
        "1 in maintenance, 1 with power state none, 1 in provision state manageable, "
        "2 reserved in Placement, 1 whose provider lacks CUSTOM_GPU_NVIDIA_H100, "
        "1 on a disabled nova-compute"
    )


def test_flavor_access_with_the_real_services(explain: Any) -> None:
    found = explain(PRIVATE, "ready", "--project", "p-outsider")
    assert ("access", "private-flavor", True) in reasons(found)


def test_an_unreachable_placement_is_one_line(
    cli: Invoke, cloud: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clouds, _ = cloud
    text = clouds.read_text()
    start = text.index("placement_endpoint_override")
    broken = tmp_path / "clouds.yaml"
    broken.write_text(text[:start] + "placement_endpoint_override: 'http://127.0.0.1:9'\n")
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(broken))
    result = cli("explain", FLAVOR, "ready", "--repo", str(EXAMPLES), "--cloud", "lab")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: cannot reach Placement")
    assert len(result.stderr.splitlines()) == 1
