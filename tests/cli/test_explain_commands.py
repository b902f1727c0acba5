"""flavorsmith explain on the example catalog and inventory (a real SQLite database), and on
an import file that states no power state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flavorsmith.cli import build
from tests.conftest import EXAMPLES, Invoke

PRIVATE_PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # on m1.medium.dedicated's access list


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('explain') / 'nodes.db'}"
    result = CliRunner().invoke(
        build(), ["node", "import", str(EXAMPLES / "nodes.yaml"), "--database", url]
    )
    assert result.exit_code == 0, result.output
    return url


@pytest.fixture
def args(database: str) -> list[str]:
    return ["--repo", str(EXAMPLES), "--database", database]


def json_of(cli: Invoke, *args: str) -> dict[str, object]:
    result = cli("explain", *args, "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    found = json.loads(result.stdout)
    assert isinstance(found, dict)
    return found


def reasons(found: dict[str, object]) -> list[tuple[str, str, bool]]:
    listed = found["reasons"]
    assert isinstance(listed, list)
    return [(r["layer"], r["kind"], r["blocking"]) for r in listed]


def test_a_ready_node_can_take_the_flavor(cli: Invoke, args: list[str]) -> None:
    found = json_of(cli, "g1.8xh100", "xe9680-g01-u06", *args)
    assert found["schedulable"] is True and found["reasons"] == []
    assert found["placement"] == "derived"
    node = found["node"]
    assert isinstance(node, dict)
    assert (node["provision_state"], node["power_state"], node["inventory"]) == (
        "available",
        "power off",
        "schedulable",
    )
    table = cli("explain", "g1.8xh100", "xe9680-g01-u06", *args).stdout
    assert table.splitlines()[0] == "g1.8xh100 on xe9680-g01-u06: can land there"


def test_a_deployed_node_is_reserved_in_ironic_and_placement(cli: Invoke, args: list[str]) -> None:
    found = json_of(cli, "g1.8xh100", "xe9680-g01-u12", *args)
    assert found["schedulable"] is False
    assert reasons(found) == [
        ("ironic", "provision-state", True),
        ("placement", "reserved", True),
    ]
    table = cli("explain", "g1.8xh100", "xe9680-g01-u12", *args).stdout.splitlines()
    assert table[0] == "g1.8xh100 on xe9680-g01-u12: cannot land there (2 blocking reasons)"
    # One line per reason.
    assert sum(line.startswith("| ironic ") for line in table) == 1
    assert sum(line.startswith("| placement ") for line in table) == 1


def test_every_layer_of_a_node_that_cannot_take_a_private_flavor(
    cli: Invoke, args: list[str]
) -> None:
    found = json_of(cli, "m1.medium.dedicated", "unknown-z01-u01", "--project", "p-other", *args)
    assert reasons(found) == [
        ("catalog", "resource-class", True),
        ("catalog", "missing-trait", True),
        ("ironic", "power-state", True),
        ("ironic", "provision-state", True),
        ("access", "private-flavor", True),
    ]
    listed = found["reasons"]
    assert isinstance(listed, list)
    assert listed[2]["detail"].startswith(
        "power state is none: Nova's ironic driver reports the node reserved"
    )
    assert found["project"] == "p-other"
    member = json_of(
        cli, "m1.medium.dedicated", "unknown-z01-u01", "--project", PRIVATE_PROJECT, *args
    )
    assert ("access", "private-flavor", True) not in reasons(member)


def test_a_flavor_alone_counts_its_nodes_by_reason(cli: Invoke, args: list[str]) -> None:
    found = json_of(cli, "g1.8xh100", *args)
    assert found["summary"] == (
        "6 available, 334 of another resource class, 9 provisioned, 1 in maintenance"
    )
    counts = found["counts"]
    assert isinstance(counts, list)
    assert sum(c["count"] for c in counts) == found["nodes"] == 350
    assert found["candidates"] == 6 and found["reasons"] == []
    table = cli("explain", "g1.8xh100", *args).stdout
    assert table.startswith("g1.8xh100: 6 available, 334 of another resource class")
    assert "| 9     | provisioned " in table
    private = json_of(cli, "m1.medium.dedicated", *args)
    assert reasons(private) == [("access", "private-flavor", False)]


def test_unknown_names_are_one_line(cli: Invoke, args: list[str]) -> None:
    result = cli("explain", "nope", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "error: No flavor named 'nope' in the catalog\n",
    )
    result = cli("explain", "g1.8xh100", "nope", *args)
    assert (result.exit_code, result.stderr) == (1, "error: Node nope could not be found.\n")


@pytest.mark.parametrize("node", [[], ["r7615-b01-u01"]], ids=["flavor", "node"])
def test_an_unknown_cloud_is_one_line(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, node: list[str]
) -> None:
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text("clouds: {lab: {auth_type: none}}\n")
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds))
    result = cli("explain", "g1.8xh100", *node, "--cloud", "nope", "--repo", str(EXAMPLES))
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        f"error: cannot use cloud 'nope': no cloud named 'nope' in {clouds} (its clouds: lab)\n",
    )


def test_an_import_without_power_states_is_explained(cli: Invoke, tmp_path: Path) -> None:
    """``node import`` stores no power state when the file gives none (as Ironic has none
    before it manages a node): Nova would report such a node reserved, and explain says so."""
    database = f"sqlite:///{tmp_path / 'bare.db'}"
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(
        "- {name: bare, resource_class: c2.diskless}\n"
        "- {name: idle, resource_class: c2.diskless, power_state: power off}\n"
    )
    assert cli("node", "import", str(inventory), "--database", database).exit_code == 0
    args = ["--repo", str(EXAMPLES), "--database", database]
    found = json_of(cli, "c2.diskless", "bare", *args)
    assert reasons(found) == [("ironic", "power-state", True), ("placement", "reserved", True)]
    node = found["node"]
    assert isinstance(node, dict) and node["power_state"] is None
    assert json_of(cli, "c2.diskless", *args)["summary"] == "1 available, 1 with power state none"
    table = cli("explain", "c2.diskless", "bare", *args).stdout
    assert "power state is none: Nova's ironic driver reports the node reserved" in table
