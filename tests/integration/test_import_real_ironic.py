"""`flavorsmith node import` of what a real Ironic 39 and the real `openstack baremetal` CLI
print: nodes made in Ironic (named and nameless, traits, resource classes, a BMC password, a
managed node with a power state, one in maintenance, one with an instance) dumped three ways
(GET /v1/nodes/detail, `node list --long -f json`, `node show -f json`), each imported into a
fresh database: the stored nodes are Ironic's, no password is stored anywhere, and a second
import of the same dump changes nothing."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Invoke
from tests.integration.clients import BIN, OPENSTACK
from tests.support.ironic_api import running_ironic
from tests.support.openstack_cli import run_openstack

PASSWORD = "hunter2-never-stored"
INSTANCE = "3f4c0c5e-9b1e-4a57-8d0e-6f1f5f0b2a11"


def call(url: str, method: str = "GET", body: Any = None) -> Any:
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"X-OpenStack-Ironic-API-Version": "latest", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


def make_nodes(v1: str) -> list[str]:
    """Four nodes in Ironic; returns their UUIDs."""
    specs: list[tuple[dict[str, Any], list[str]]] = [
        (
            {
                "name": "rack1-u01",
                "resource_class": "m1.small",
                "driver_info": {"ipmi_address": "10.0.0.1", "ipmi_password": PASSWORD},
                "properties": {"cpus": 16, "memory_mb": 131072, "cpu_arch": "x86_64"},
            },
            ["CUSTOM_NICX", "HW_CPU_X86_AVX2"],
        ),
        ({"resource_class": "baremetal", "description": "no name yet"}, ["CUSTOM_GPU"]),
        ({"resource_class": "baremetal", "extra": {"rack": "r2"}}, []),
        ({"name": "rack1-u02", "resource_class": "m1.small"}, ["HW_CPU_X86_AVX2"]),
    ]
    uuids = []
    for fields, traits in specs:
        node = call(f"{v1}/nodes", "POST", {"driver": "fake-hardware", **fields})
        if traits:
            call(f"{v1}/nodes/{node['uuid']}/traits", "PUT", {"traits": traits})
        uuids.append(node["uuid"])
    _, second, third, fourth = uuids
    call(f"{v1}/nodes/{second}/states/provision", "PUT", {"target": "manage"})
    call(f"{v1}/nodes/{third}/maintenance", "PUT", {"reason": "fan"})
    call(
        f"{v1}/nodes/{fourth}",
        "PATCH",
        [{"op": "add", "path": "/instance_uuid", "value": INSTANCE}],
    )
    wait(v1, second, "provision_state", "manageable")
    call(f"{v1}/nodes/{second}/states/power", "PUT", {"target": "power on"})
    wait(v1, second, "power_state", "power on")
    return uuids


def wait(v1: str, node: str, field: str, value: str) -> None:
    deadline = time.monotonic() + 60
    while call(f"{v1}/nodes/{node}")[field] != value:
        assert time.monotonic() < deadline, f"the node's {field} did not become {value!r}"
        time.sleep(0.3)


def baremetal(v1: str, *args: str) -> Any:
    assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
    result = run_openstack(
        ["--os-endpoint", v1, "--os-auth-type", "none", "baremetal", *args],
        {"PATH": str(BIN), "HOME": str(Path.home())},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The nodes as Ironic's API shows them, and the three dumps as files."""
    folder = tmp_path_factory.mktemp("dumps")
    with running_ironic() as url:
        v1 = f"{url}/v1"
        uuids = make_nodes(v1)
        detail = call(f"{v1}/nodes/detail")
        files = {
            "api": detail,
            "cli-list": baremetal(v1, "node", "list", "--long", "-f", "json"),
            "cli-show": baremetal(v1, "node", "show", uuids[1], "-f", "json"),
        }
    for name, data in files.items():
        (folder / f"{name}.json").write_text(json.dumps(data))
    yield {"folder": folder, "nodes": {n["uuid"]: n for n in detail["nodes"]}, "uuids": uuids}


def stored(database: Path) -> dict[str, dict[str, Any]]:
    """Every stored node with its traits, by UUID."""
    with sqlite3.connect(database) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT id, uuid, name, driver, resource_class, provision_state, power_state,"
            " maintenance, instance_uuid, description, properties, extra, driver_info FROM nodes"
        ).fetchall()
        traits: dict[int, list[str]] = {}
        for node_id, trait in connection.execute("SELECT node_id, trait FROM node_traits"):
            traits.setdefault(node_id, []).append(trait)
    out = {}
    for row in rows:
        node = dict(row)
        node["maintenance"] = bool(node["maintenance"])
        for column in ("properties", "extra", "driver_info"):
            node[column] = json.loads(node[column])
        node["traits"] = sorted(traits.pop(node.pop("id"), []))
        out[node["uuid"]] = node
    return out


def everything_in(database: Path) -> str:
    with sqlite3.connect(database) as connection:
        return "\n".join(connection.iterdump())


FIELDS = (
    "name",
    "driver",
    "resource_class",
    "provision_state",
    "power_state",
    "maintenance",
    "instance_uuid",
    "description",
    "properties",
    "extra",
)


@pytest.mark.parametrize("dump", ["api", "cli-list", "cli-show"])
def test_import_a_real_ironic_dump(
    cli: Invoke, dumps: dict[str, Any], tmp_path: Path, dump: str
) -> None:
    database = tmp_path / "flavorsmith.db"
    url = f"sqlite:///{database}"
    file = str(dumps["folder"] / f"{dump}.json")
    first = cli("node", "import", file, "--database", url)
    assert first.exit_code == 0, first.stdout + first.stderr
    ironic = dumps["nodes"]
    expected_uuids = [dumps["uuids"][1]] if dump == "cli-show" else dumps["uuids"]
    count = len(expected_uuids)
    assert first.stdout == f"created: {count}\nupdated: 0\nunchanged: 0\n"
    assert "error" not in first.stderr
    nodes = stored(database)
    assert sorted(nodes) == sorted(expected_uuids)
    for node_uuid, node in nodes.items():
        assert {f: node[f] for f in FIELDS} == {f: ironic[node_uuid][f] for f in FIELDS}
        assert node["traits"] == sorted(ironic[node_uuid]["traits"])
        assert node["driver_info"] == {}
    if dump != "cli-show":
        assert (
            "note: driver_info is not imported from Ironic output (1 of 4 nodes have one)"
            in first.stderr
        )
        by_name = {n["name"]: n for n in nodes.values()}
        assert by_name["rack1-u01"]["traits"] == ["CUSTOM_NICX", "HW_CPU_X86_AVX2"]
        assert by_name["rack1-u02"]["instance_uuid"] == INSTANCE
        assert sum(n["name"] is None for n in nodes.values()) == 2
        assert sum(n["maintenance"] for n in nodes.values()) == 1
    managed = nodes[dumps["uuids"][1]]
    assert (managed["name"], managed["provision_state"]) == (None, "manageable")
    assert managed["power_state"] == "power on"
    assert managed["traits"] == ["CUSTOM_GPU"]
    everything = everything_in(database)
    assert PASSWORD not in everything and "******" not in everything
    assert "ipmi_password" not in everything and "10.0.0.1" not in everything
    again = cli("node", "import", file, "--database", url)
    assert again.stdout == f"created: 0\nupdated: 0\nunchanged: {count}\n"
    assert stored(database) == nodes


def test_the_three_dumps_agree(cli: Invoke, dumps: dict[str, Any], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'flavorsmith.db'}"
    folder = dumps["folder"]
    assert cli("node", "import", str(folder / "api.json"), "--database", url).exit_code == 0
    for dump, count in (("cli-list", 4), ("cli-show", 1)):
        again = cli("node", "import", str(folder / f"{dump}.json"), "--database", url)
        assert again.stdout == f"created: 0\nupdated: 0\nunchanged: {count}\n"
