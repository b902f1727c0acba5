"""``runbook plan NODE``: which of the catalog's runbooks a node may run (Ironic 39: the node
has one of the runbook's traits), because of which trait, and the steps each runs in order;
on the example catalog's runbooks and the example nodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke


@pytest.fixture
def database(example_repo: Path, tmp_path: Path, cli: Invoke) -> str:
    """The example catalog (three runbooks), and the example nodes in a database."""
    url = f"sqlite:///{tmp_path / 'nodes.db'}"
    imported = cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", url)
    assert imported.exit_code == 0, imported.stderr
    return url


MAY_RUN = """\
+--------------------+---------+----------------------------------------------+
| runbook            | may run | why                                          |
+--------------------+---------+----------------------------------------------+
| bios-gpu-servicing | no      | the node has none of its traits (CUSTOM_GPU) |
| firmware-update    | yes     | the node has CUSTOM_NVME                     |
| raid-rebuild       | yes     | the node has CUSTOM_NVME                     |
+--------------------+---------+----------------------------------------------+
"""
LINE = "+-----------------+-------+-----------+----------------------+" + "-" * 78 + "+\n"
STEPS = (
    LINE
    + "| runbook         | order | interface | step                 | args"
    + " " * 73
    + "|\n"
    + LINE
    + "| firmware-update | 10    | firmware  | update               | "
    '{"settings": [{"component": "bmc", "url": "http://fw.example.com/bmc.bin"}]} |\n'
    "| firmware-update | 20    | bios      | factory_reset        |" + " " * 78 + "|\n"
    "| raid-rebuild    | 10    | raid      | delete_configuration |" + " " * 78 + "|\n"
    "| raid-rebuild    | 20    | raid      | create_configuration | "
    '{"create_nonroot_volumes": true, "create_root_volume": true}' + " " * 17 + "|\n" + LINE
)


def test_the_runbooks_a_node_may_run_and_their_steps_in_order(cli: Invoke, database: str) -> None:
    result = cli("runbook", "plan", "r7615-a01-u03", "--database", database)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "node r7615-a01-u03 (driver idrac); traits: CUSTOM_NVME, HW_CPU_X86_AVX2\n"
        + MAY_RUN
        + STEPS
    )


def test_a_node_without_any_runbook_trait_may_run_none(cli: Invoke, database: str) -> None:
    result = cli("runbook", "plan", "r7615-a01-u02", "--database", database)
    assert (result.exit_code, result.stderr) == (0, "")
    why = "the node has none of its traits"
    raid = "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE, CUSTOM_NVME"
    width = len(f"{why} ({raid})")  # the longest reason
    line = "+--------------------+---------+" + "-" * (width + 2) + "+\n"
    assert result.stdout == (
        "node r7615-a01-u02 (driver idrac); traits: HW_CPU_X86_AVX2\n"
        + line
        + f"| runbook            | may run | {'why':{width}} |\n"
        + line
        + f"| bios-gpu-servicing | no      | {why + ' (CUSTOM_GPU)':{width}} |\n"
        + f"| firmware-update    | no      | {why + ' (CUSTOM_NVME)':{width}} |\n"
        + f"| raid-rebuild       | no      | {why} ({raid}) |\n"
        + line
    )


def test_a_node_may_run_a_runbook_because_of_another_of_its_traits(
    cli: Invoke, database: str
) -> None:
    result = cli("runbook", "plan", "dl360-c01-u02", "--database", database, "-f", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["node"], report["driver"]) == ("dl360-c01-u02", "redfish")
    assert [(r["runbook"], r["because"]) for r in report["runbooks"]] == [
        ("bios-gpu-servicing", []),
        ("firmware-update", []),
        (
            "raid-rebuild",
            ["CUSTOM_BM_CONFIG_RAID_DISK_MIRROR", "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"],
        ),
    ]
    assert [(s["order"], s["step"]) for s in report["runbooks"][2]["steps"]] == [
        (10, "delete_configuration"),
        (20, "create_configuration"),
    ]


def test_a_step_the_driver_lacks_fails_the_plan(cli: Invoke, database: str) -> None:
    added = cli("node", "trait", "add", "unknown-z01-u01", "CUSTOM_NVME", "--database", database)
    assert added.exit_code == 0, added.stderr
    result = cli("runbook", "plan", "unknown-z01-u01", "--database", database)
    assert result.exit_code == 1
    assert result.stdout == (
        "node unknown-z01-u01 (driver ipmi); traits: CUSTOM_NVME\n" + MAY_RUN + STEPS
    )
    assert result.stderr == (
        "error: runbook firmware-update: firmware.update is not a clean or service step of "
        "driver ipmi: Ironic fails the runbook there\n"
        "error: runbook firmware-update: bios.factory_reset is not a clean or service step of "
        "driver ipmi: Ironic fails the runbook there\n"
    )
    report = json.loads(
        cli("runbook", "plan", "unknown-z01-u01", "--database", database, "-f", "json").stdout
    )
    assert [(r["runbook"], r["allowed"], r["because"]) for r in report["runbooks"]] == [
        ("bios-gpu-servicing", False, []),
        ("firmware-update", True, ["CUSTOM_NVME"]),
        ("raid-rebuild", True, ["CUSTOM_NVME"]),
    ]
    assert len(report["problems"]) == 2


def test_an_unknown_node(cli: Invoke, database: str) -> None:
    result = cli("runbook", "plan", "nope", "--database", database)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "error: Node nope could not be found.\n",
    )
