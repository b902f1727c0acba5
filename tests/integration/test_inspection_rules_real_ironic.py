"""The inspection-rule sync against a real Ironic 39 (tests/support/ironic_api.py), with no
Flavorsmith hook installed: the trait rules that translate are created as Ironic's own
inspection rules through the `sync` command, a second apply writes nothing, an edit is one
patch, the operator's own rule is left alone, prune deletes what left the catalog; and Ironic's
built-in inspection of example inventories then sets and removes exactly the traits
Flavorsmith's own classification gives for those rules."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openstack.connection
import pytest

from flavorsmith.catalog.repo import Repository
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.trait_rules import trait_changes
from flavorsmith.ironic.inspection_rules import MARKER
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES
from tests.support.ironic_api import inspect_with_inventory, running_ironic, sdk_connection

# A file of the test's own: CPU model rules, one of them with two conditions (its removal is
# two Ironic rules: either condition failing).
BRANDS = """\
name: cpu-brand
prefix: CUSTOM_CPUBRAND_
rules:
  - name: EPYC
    when: {cpu_model: epyc}
    add: [CUSTOM_CPUBRAND_EPYC]
  - name: Xeon with SGX
    when: {cpu_model: xeon, cpu_flag: sgx}
    add: [CUSTOM_CPUBRAND_XEON_SGX]
"""
# The traits whose rules all translate: Ironic adds and removes them.
EXACT = {
    "HW_CPU_X86_AVX2",
    "HW_CPU_X86_AVX512F",
    "HW_CPU_X86_AMD_SEV",
    "CUSTOM_CPU_AVX512",
    "CUSTOM_CPU_SGX",
    "CUSTOM_CPUBRAND_EPYC",
    "CUSTOM_CPUBRAND_XEON_SGX",
}
OPERATOR_RULE = {
    "description": "the operator's own rule",
    "conditions": [],
    "actions": [{"op": "add-trait", "args": {"name": "CUSTOM_OPERATOR_SEEN"}}],
}


@dataclass
class Site:
    url: str
    conn: openstack.connection.Connection
    repo: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    repo = tmp_path_factory.mktemp("irules") / "catalog"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    (repo / "hardware" / "trait-rules" / "cpu-brand.yaml").write_text(BRANDS)
    with running_ironic(agent_inspection=True) as url:
        yield Site(url, sdk_connection(url), repo)


def rules(site: Site) -> dict[str, dict[str, Any]]:
    """Ironic's rules by description."""
    answer = site.conn.baremetal.get(
        "/inspection_rules", params={"detail": "True"}, microversion="1.96"
    )
    assert answer.status_code == 200, answer.text
    return {r["description"]: r for r in answer.json()["inspection_rules"]}


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "inspection" / name).read_text())
    return data


def test_sync_then_ironic_inspection_sets_the_traits(site: Site, cli: Invoke) -> None:
    answer = site.conn.baremetal.post("/inspection_rules", json=OPERATOR_RULE, microversion="1.96")
    assert answer.status_code == 201, answer.text
    args = ["--only", "inspection-rules", "--endpoint", site.url, "--repo", str(site.repo)]

    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    kinds = [(a["action"], a["rule"]) for a in planned["actions"]]
    creates = [rule for action, rule in kinds if action == "create"]
    # each exact trait: one rule per adding trait rule, and its removals
    assert len(creates) == 17
    assert "cpu/Intel SGX adds CUSTOM_CPU_SGX" in creates
    assert "cpu-brand removes CUSTOM_CPUBRAND_XEON_SGX #2" in creates
    assert ("unmanaged", f"{answer.json()['uuid']} (the operator's own rule)") in kinds
    hook = {
        rule: a["reason"]
        for a in planned["actions"]
        if a["action"] == "needs-hook"
        for rule in [a["rule"]]
    }
    assert hook["nics/Intel E810"].startswith("interface: some network interface must match")
    assert hook["gpus/NVIDIA H100 SXM5 80GB"].startswith("pci: some PCI device must match")
    assert hook["storage/NVMe disk"].startswith("disk: some disk must match")
    assert "CUSTOM_CPU_*" in hook

    table = cli("sync", "plan", *args)
    assert table.exit_code == 0, table.stderr
    assert "needs-hook" in table.stdout and "nics/Intel E810" in table.stdout

    applied = cli("sync", "apply", *args, "--yes", "-f", "json")
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    assert json.loads(applied.stdout)["writes"] == 17
    found = rules(site)
    assert len(found) == 18 and "the operator's own rule" in found
    sgx = found[f"{MARKER}cpu/Intel SGX adds CUSTOM_CPU_SGX"]
    assert sgx["actions"] == [{"op": "add-trait", "args": {"name": "CUSTOM_CPU_SGX"}}]

    again = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert again["writes"] == 0 and again["api_calls"] == 1

    # Ironic's own inspection (no hook installed) sets what Flavorsmith's rules say, for the
    # traits Ironic owns exactly; a stale owned trait goes, the operator's rule still runs,
    # and a trait whose rules need the hook stays as it was.
    catalog = Repository(site.repo, RULES).load().catalog
    stale = {"CUSTOM_CPU_SGX", "CUSTOM_CPUBRAND_XEON_SGX", "HW_CPU_X86_AMD_SEV", "CUSTOM_NIC_OLD"}
    for name in ("r7615-m1-small.json", "dl360-c2-large.json"):
        node = site.conn.baremetal.create_node(driver="fake-hardware", name=name[:-5])
        site.conn.baremetal.set_node_traits(node, sorted(stale))
        done = inspect_with_inventory(site.conn, node, example(name))
        assert (done.provision_state, done.last_error) == ("manageable", None)
        traits = set(site.conn.baremetal.get_node(node.id).traits or [])
        flavorsmith = trait_changes(catalog.trait_rules, parse(example(name)), frozenset(stale))
        assert traits & EXACT == flavorsmith.result & EXACT, name
        assert "CUSTOM_NIC_OLD" in traits and "CUSTOM_OPERATOR_SEEN" in traits
    epyc = set(site.conn.baremetal.get_node("r7615-m1-small").traits or [])
    assert {"CUSTOM_CPUBRAND_EPYC", "HW_CPU_X86_AMD_SEV"} <= epyc
    assert not epyc & {"CUSTOM_CPU_SGX", "CUSTOM_CPUBRAND_XEON_SGX"}
    xeon = set(site.conn.baremetal.get_node("dl360-c2-large").traits or [])
    assert {"CUSTOM_CPU_SGX", "CUSTOM_CPUBRAND_XEON_SGX"} <= xeon
    assert not xeon & {"CUSTOM_CPUBRAND_EPYC", "HW_CPU_X86_AMD_SEV"}

    # An edit is one patch of the rule in place.
    cpu = site.repo / "hardware" / "trait-rules" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("cpu_flag: sgx", "cpu_flag: sgx_lc"))
    edited = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    changed = [r for r in edited["results"] if r["action"] == "update"]
    assert [r["rule"] for r in changed] == [
        "cpu removes CUSTOM_CPU_SGX #1",
        "cpu/Intel SGX adds CUSTOM_CPU_SGX",
    ]
    assert edited["writes"] == 2 and edited["api_calls"] == 3
    regex = rules(site)[f"{MARKER}cpu/Intel SGX adds CUSTOM_CPU_SGX"]["conditions"][0]
    assert regex["args"]["regex"] == "(?:\\[|, )'sgx_lc'(?:,|\\])"

    # A file gone from the catalog: its rules are kept, then pruned; the operator's stays.
    (site.repo / "hardware" / "trait-rules" / "cpu-brand.yaml").unlink()
    kept = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert kept["writes"] == 0
    assert sum(1 for a in kept["actions"] if a["action"] == "keep") == 7
    pruned = json.loads(cli("sync", "apply", *args, "--prune", "--yes", "-f", "json").stdout)
    assert pruned["writes"] == 7
    left = rules(site)
    assert len(left) == 11 and "the operator's own rule" in left
    assert not [d for d in left if "cpu-brand" in d]


def test_the_services_own_database_has_no_inspection_rules(cli: Invoke, tmp_path: Path) -> None:
    result = cli(
        "sync", "plan", "--only", "inspection-rules", "--repo", str(EXAMPLES),
        "--database", f"sqlite:///{tmp_path / 'x.db'}",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: inspection-rules cannot be synced into the service's own database, only into "
        "a real cloud's baremetal service (give --cloud or --endpoint)"
    )
