"""The drift report on the service's own data, made incrementally (only the nodes changed since
the last report checked again: ``drift.NodeChecks``), equals the report made whole, after each
kind of node change: traits, resource class (to none and back), provision and power state,
maintenance, an instance, a rename, a node added, a node removed, and a rebuilt index."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog.model import Catalog
from flavorsmith.cli.options import repository
from flavorsmith.matching import drift
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from flavorsmith.sync import verification

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLASSES = ["m1.small", "c2.large", "baremetal", None]
TRAITS = ["CUSTOM_NIC_CX5", "HW_CPU_X86_VMX", "CUSTOM_GPU_A100", "CUSTOM_STORAGE_NVME"]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    view = repository(str(EXAMPLES)).load()
    return view.catalog


def _node(rng: random.Random, uuid: str) -> NodeInfo:
    return NodeInfo(
        uuid=uuid,
        name=f"n-{uuid}",
        resource_class=rng.choice(CLASSES),
        traits=frozenset(rng.sample(TRAITS, rng.randint(0, 3))),
        provisioned=rng.random() < 0.2,
        maintenance=rng.random() < 0.1,
        provision_state=rng.choice(["available", "active", "manageable"]),
        power_state=rng.choice(["power off", "power on", None]),
    )


def _whole(catalog: Catalog, index: Index) -> dict[str, Any]:
    return verification.own(None, catalog, index, {}).as_dict()  # type: ignore[arg-type]


def _incremental(catalog: Catalog, index: Index, checks: drift.NodeChecks) -> dict[str, Any]:
    made = verification.own(None, catalog, index, {}, checks)  # type: ignore[arg-type]
    return made.as_dict()


CHANGES = {
    "traits": lambda n, rng: dataclasses.replace(n, traits=frozenset(rng.sample(TRAITS, 2))),
    "no resource class": lambda n, rng: dataclasses.replace(n, resource_class=None),
    "resource class": lambda n, rng: dataclasses.replace(n, resource_class="m1.small"),
    "provision state": lambda n, rng: dataclasses.replace(n, provision_state="cleaning"),
    "power state": lambda n, rng: dataclasses.replace(n, power_state=None),
    "maintenance": lambda n, rng: dataclasses.replace(n, maintenance=not n.maintenance),
    "instance": lambda n, rng: dataclasses.replace(
        n, provisioned=True, provision_state="active", instance_uuid="i-1"
    ),
    "rename": lambda n, rng: dataclasses.replace(n, name=f"renamed-{n.uuid}"),
}


def test_each_kind_of_change_gives_the_whole_report(catalog: Catalog) -> None:
    rng = random.Random(7)
    nodes = [_node(rng, f"u{i}") for i in range(60)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    checks = drift.NodeChecks(verification.OWN_FIXES)
    assert _incremental(catalog, index, checks) == _whole(catalog, index)
    assert checks.checked == 60
    generation = 1
    findings = set()
    for kind, change in CHANGES.items():
        generation += 1
        at = rng.randrange(len(nodes))
        nodes[at] = change(nodes[at], rng)
        index = index.updated(generation, (), [nodes[at]])
        before = checks.checked
        shown = _incremental(catalog, index, checks)
        assert shown == _whole(catalog, index), kind
        assert checks.checked == before + 1, kind  # that node alone was checked again
        findings |= {f["kind"] for f in shown["findings"]}

    generation += 1  # a node added
    nodes.append(_node(rng, "u-new"))
    index = index.updated(generation, (), [nodes[-1]])
    before = checks.checked
    assert _incremental(catalog, index, checks) == _whole(catalog, index)
    assert checks.checked == before + 1

    generation += 1  # a node removed
    gone = nodes.pop(5)
    index = index.updated(generation, {gone.uuid}, [])
    before = checks.checked
    assert _incremental(catalog, index, checks) == _whole(catalog, index)
    assert checks.checked == before

    generation += 1  # the index built afresh (a restart, many removals): equal records kept
    index = Index.build(Snapshot(tuple(nodes), generation))
    before = checks.checked
    assert _incremental(catalog, index, checks) == _whole(catalog, index)
    assert checks.checked == before
    assert findings  # the reports compared are not empty


@pytest.mark.parametrize("seed", range(10))
def test_random_changes_give_the_whole_report(catalog: Catalog, seed: int) -> None:
    rng = random.Random(seed)
    nodes = [_node(rng, f"u{i}") for i in range(30)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    checks = drift.NodeChecks(verification.OWN_FIXES)
    counter = 30
    for generation in range(2, 20):
        removed = {n.uuid for n in rng.sample(nodes, rng.choice([0, 0, 1, 2]))}
        nodes = [n for n in nodes if n.uuid not in removed]
        changed = []
        for at in rng.sample(range(len(nodes)), min(len(nodes), rng.randint(0, 4))):
            nodes[at] = _node(rng, nodes[at].uuid)
            changed.append(nodes[at])
        changed.sort(key=nodes.index)
        for _ in range(rng.randint(0, 3)):
            counter += 1
            nodes.append(_node(rng, f"u{counter}"))
            changed.append(nodes[-1])
        index = index.updated(generation, removed, changed)
        assert _incremental(catalog, index, checks) == _whole(catalog, index)
