"""``flavorsmith classify --ironic-endpoint URL --node N|--all [--apply]`` against a real
Ironic 39 whose nodes were inspected in-band: each example inventory posted through Ironic's
own inspection path (``/v1/continue_inspection``), so the classifier reads what Ironic stored
(``GET /v1/nodes/{node}/inventory``) and writes the resource class and the owned traits back,
one trait at a time; a trait no rule file owns survives, a deployed node is blocked (Ironic
refuses a resource-class change there), a node that fails does not stop the others, and every
bad input is one line that changes nothing.

The tests share one Ironic and run in order: the single-node ones first, then the fleet."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.support.ironic_api import inspect_with_inventory, running_ironic, sdk_connection

OPERATOR = "CUSTOM_OPERATOR_X"  # no trait-rule file owns it: never touched
FILLER = [f"CUSTOM_OPERATOR_{i:02d}" for i in range(48)]  # 48 + 2 owned = Ironic's 50 at most
SMALL_TRAITS = {
    "CUSTOM_CPU_AVX512",
    "CUSTOM_NIC_MELLANOX_CX5",
    "CUSTOM_NVME",
    "HW_CPU_X86_AMD_SEV",
    "HW_CPU_X86_AVX2",
    "HW_CPU_X86_AVX512F",
}
# name: (example inspection, resource class at creation, traits at creation)
FLEET: dict[str, tuple[str | None, str | None, list[str]]] = {
    # an owned trait the rules do not set (E810 on a ConnectX-5 machine) and an operator's
    "n-small": ("r7615-m1-small", "baremetal", [OPERATOR, "CUSTOM_NIC_INTEL_E810"]),
    "n-medium": ("r7615-m1-medium", None, []),
    "n-deployed": ("dl360-c2-large", "baremetal", []),  # deployed below: blocked
    "n-gpu": ("xe9680-g1-8xh100", None, FILLER),  # Ironic refuses a 51st trait: it fails
    "n-unknown": ("near-miss-supermicro", "custom-rc", []),  # no device type: traits only
    "n-bare": (None, None, []),  # never inspected: no inventory
}


def with_macs(document: dict[str, Any], node: int) -> dict[str, Any]:
    """The example with MAC addresses of its own wherever they appear (the examples share
    some, and Ironic's ports are unique); nothing the classifier reads changes."""
    text = json.dumps(document)
    for index, interface in enumerate(document["inventory"].get("interfaces") or []):
        text = text.replace(interface["mac_address"], f"52:54:00:00:{node:02x}:{index:02x}")
    out: dict[str, Any] = json.loads(text)
    return out


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic(agent_inspection=True) as url:
        conn = sdk_connection(url)
        for number, (name, (example, resource_class, traits)) in enumerate(FLEET.items()):
            fields: dict[str, Any] = {"name": name, "driver": "fake-hardware"}
            if resource_class is not None:
                fields["resource_class"] = resource_class
            node = conn.baremetal.create_node(**fields)
            if example is not None:
                document = json.loads((EXAMPLES / "inspection" / f"{example}.json").read_text())
                node = inspect_with_inventory(conn, node, with_macs(document, number))
                assert node.provision_state == "manageable", node.last_error
            if traits:
                conn.baremetal.set_node_traits(node, traits)
        deployed = conn.baremetal.get_node("n-deployed")
        conn.baremetal.set_node_provision_state(deployed, "provide", wait=True)
        conn.baremetal.set_node_provision_state(deployed, "active", wait=True)
        yield url


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("catalog") / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    return root


def fleet(url: str) -> dict[str, tuple[str, str | None, frozenset[str]]]:
    """Every node as Ironic has it: state, resource class, traits."""
    conn = sdk_connection(url)
    return {
        n.name: (n.provision_state, n.resource_class, frozenset(n.traits or ()))
        for n in conn.baremetal.nodes(details=True)
    }


def test_the_fleet_is_as_built(ironic: str) -> None:
    nodes = fleet(ironic)
    assert nodes["n-deployed"][0] == "active"
    assert nodes["n-small"] == (
        "manageable",
        "baremetal",
        frozenset({OPERATOR, "CUSTOM_NIC_INTEL_E810"}),
    )
    assert (
        sdk_connection(ironic)
        .baremetal.get("/nodes/n-small/inventory", microversion="1.81")
        .json()["inventory"]["system_vendor"]["product_name"]
    )


def test_bad_input_is_one_line_and_changes_nothing(
    cli: Invoke, ironic: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fleet(ironic)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    (tmp_path / "clouds.yaml").write_text("clouds: {}\n")
    broken = tmp_path / "broken"
    shutil.copytree(repo, broken)
    rule = broken / "hardware" / "trait-rules" / "nics.yaml"
    rule.write_text(rule.read_text().replace("prefix: CUSTOM_NIC", "prefix: 7"))
    endpoint = ("--ironic-endpoint", ironic)
    cases: dict[str, tuple[int, str, tuple[str, ...]]] = {
        "unknown cloud": (1, "error: cannot use cloud 'nowhere':", ("--cloud", "nowhere")),
        "unreachable": (1, "error: cannot reach Ironic", ("--ironic-endpoint", "http://127.0.0.1:9")),
        "no such node": (1, "error: node 'n-nothing' is not in this Ironic", (*endpoint, "--node", "n-nothing")),
        "no inventory": (1, "error: node 'n-bare': Ironic has no inspection inventory", (*endpoint, "--node", "n-bare")),
        "catalog errors": (1, "error: the catalog has errors, so no node is classified:", (*endpoint, "--repo", str(broken))),
        "no --node nor --all": (2, "", endpoint),
        "both --node and --all": (2, "", (*endpoint, "--node", "n-small", "--all")),
        "a file and an Ironic": (2, "", (str(EXAMPLES / "inspection" / "r7615-m1-small.json"), *endpoint, "--node", "n-small")),
        "--all without an Ironic": (2, "", ("--all",)),
        "--all --apply without --yes off a terminal": (2, "error: 4 nodes to change; pass --yes", (*endpoint, "--all")),
    }  # fmt: skip
    for what, (code, first, args) in cases.items():
        if "--node" not in args and "--all" not in args and code == 1:
            args = (*args, "--node", "n-small")
        result = cli("classify", "--apply", "--repo", str(repo), *args)
        assert result.exit_code == code, (what, result.stdout, result.stderr)
        if code == 1 or first:
            assert result.stderr.startswith(first), (what, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1, (what, result.stderr)
        else:
            assert "Usage:" in result.stderr, (what, result.stderr)
        assert result.stdout == "" or code == 2, (what, result.stdout)
    assert fleet(ironic) == before


def test_one_node_planned_changes_nothing(cli: Invoke, ironic: str, repo: Path) -> None:
    before = fleet(ironic)
    result = cli("classify", "--ironic-endpoint", ironic, "--node", "n-small", "--repo", str(repo))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "resource class baremetal → m1.small" in result.stdout
    as_json = cli(
        "classify", "--ironic-endpoint", ironic, "--node", "n-small", "--repo", str(repo), "-f", "json"
    )  # fmt: skip
    body = json.loads(as_json.stdout)
    assert body["resource_class"] == "m1.small" and body["node"] == "n-small"
    assert body["plan"]["action"] == "update"
    assert set(body["plan"]["traits_added"]) == SMALL_TRAITS
    assert body["plan"]["traits_removed"] == ["CUSTOM_NIC_INTEL_E810"]
    assert OPERATOR in body["traits_kept"]
    assert "applied" not in body
    assert fleet(ironic) == before


def test_one_node_applied_keeps_the_traits_it_does_not_own(
    cli: Invoke, ironic: str, repo: Path
) -> None:
    before = fleet(ironic)
    args = ("classify", "--ironic-endpoint", ironic, "--node", "n-small", "--repo", str(repo))
    result = cli(*args, "--apply", "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["applied"].startswith("resource class baremetal → m1.small")
    after = fleet(ironic)
    assert after["n-small"] == ("manageable", "m1.small", frozenset(SMALL_TRAITS | {OPERATOR}))
    assert {k: v for k, v in after.items() if k != "n-small"} == {
        k: v for k, v in before.items() if k != "n-small"
    }
    again = cli(*args, "--apply", "-f", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["applied"] == "nothing to change"


def test_the_fleet_planned_then_applied_node_by_node(cli: Invoke, ironic: str, repo: Path) -> None:
    args = ("classify", "--ironic-endpoint", ironic, "--all", "--repo", str(repo))
    before = fleet(ironic)

    plan = cli(*args, "-f", "json")
    assert plan.exit_code == 0, plan.stdout + plan.stderr
    body = json.loads(plan.stdout)
    by_node = {n["node"]: n for n in body["nodes"]}
    assert {n: a["action"] for n, a in by_node.items()} == {
        "n-bare": "no-inventory",
        "n-deployed": "blocked",
        "n-gpu": "update",
        "n-medium": "update",
        "n-small": "noop",
        "n-unknown": "update",
    }
    assert body["summary"] == {
        "change": 3,
        "blocked": 1,
        "unchanged": 1,
        "without_inventory": 1,
        "cannot_classify": 0,
    }
    blocked = by_node["n-deployed"]
    assert blocked["provision_state"] == "active"
    assert blocked["reason"].endswith("states. Current state is 'active'.")
    assert (blocked["resource_class"], blocked["new_resource_class"]) == ("baremetal", "c2.large")
    unknown = by_node["n-unknown"]
    assert unknown["new_resource_class"] is None and unknown["traits_added"]
    table = cli(*args)
    assert table.exit_code == 0
    rows = [line.split("|") for line in table.stdout.splitlines() if line.startswith("|")]
    listed = [cells[1].strip() for cells in rows[1:] if cells[1].strip()]
    assert listed == ["n-deployed", "n-gpu", "n-medium", "n-unknown"]  # changing or blocked
    assert "3 nodes would change (resource class, traits added, traits removed), 1 blocked" in (
        table.stdout
    )
    assert fleet(ironic) == before

    applied = cli(*args, "--apply", "--yes", "-f", "json")
    assert applied.exit_code == 1, applied.stdout + applied.stderr  # n-gpu failed
    body = json.loads(applied.stdout)
    outcomes = {n["node"]: (n["outcome"], n.get("error", "")) for n in body["nodes"]}
    assert outcomes["n-gpu"][0] == "failed" and "50" in outcomes["n-gpu"][1]
    assert outcomes["n-medium"] == ("done", "") and outcomes["n-unknown"] == ("done", "")
    assert outcomes["n-deployed"] == ("skipped", "")
    assert body["summary"]["changed"] == 2 and body["summary"]["failed"] == 1
    assert body["summary"]["blocked"] == 1
    after = fleet(ironic)
    assert after["n-medium"][1] == "m1.medium" and "CUSTOM_NICX" in after["n-medium"][2]
    assert after["n-unknown"][1] == "custom-rc" and "CUSTOM_NIC_INTEL_E810" in after["n-unknown"][2]
    assert after["n-deployed"] == before["n-deployed"]  # blocked: wholly left alone
    assert after["n-small"] == before["n-small"]

    # The operator makes room on n-gpu; the next apply finishes, and then nothing is left.
    conn = sdk_connection(ironic)
    conn.baremetal.set_node_traits(conn.baremetal.get_node("n-gpu"), [OPERATOR])
    done = cli(*args, "--apply", "--yes")
    assert done.exit_code == 0, done.stdout + done.stderr
    assert "1 changed, 3 unchanged, 1 blocked, 1 without an inventory, 0 failed" in done.stdout
    gpu = fleet(ironic)["n-gpu"]
    assert gpu[1] == "g1.8xh100" and {OPERATOR, "CUSTOM_GPU_NVIDIA_H100"} <= gpu[2]
    last = cli(*args, "-f", "json")
    assert json.loads(last.stdout)["summary"]["change"] == 0
    nothing = cli(*args, "--apply")  # nothing to change: no --yes needed, nothing asked
    assert nothing.exit_code == 0 and "0 nodes would change" in nothing.stdout
