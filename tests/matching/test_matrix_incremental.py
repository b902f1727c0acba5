"""The matrix's node groups after a change follow the previous index's (``matrix.follow``: only
the groups of the nodes that changed, came or went are made again) and equal the groups made
from every node (``matrix.group_all``), after each kind of node change: traits, resource class
(to none and back), provision state, availability (maintenance, an instance), a rename, a node
added, a node removed, the first node of a group changed; and through random sequences."""

from __future__ import annotations

import dataclasses
import random

import pytest

from flavorsmith.matching import matrix
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

CLASSES = ["m1.small", "c2.large", "baremetal", None]
TRAITS = ["CUSTOM_NIC_CX5", "HW_CPU_X86_VMX", "CUSTOM_GPU_A100", "CUSTOM_STORAGE_NVME"]


def _node(rng: random.Random, uuid: str) -> NodeInfo:
    return NodeInfo(
        uuid=uuid,
        name=f"n-{uuid}",
        resource_class=rng.choice(CLASSES),
        traits=frozenset(rng.sample(TRAITS, rng.randint(0, 2))),
        provisioned=rng.random() < 0.2,
        maintenance=rng.random() < 0.1,
        provision_state=rng.choice(["available", "active", "manageable"]),
    )


def _followed(before: Index, made: matrix.Groups, index: Index) -> matrix.Groups:
    followed = matrix.follow(before, made, index)
    assert followed is not None  # a change Index.updated makes is always followed
    assert followed == matrix.group_all(index)
    assert followed.by_key == {(g.resource_class, g.trait_set): g for g in followed.groups}
    # What the matrix answers from them, too: every group's numbers in the same order.
    assert [(g.id, g.position, g.example, g.counts(None)) for g in followed.groups] == [
        (g.id, g.position, g.example, g.counts(None)) for g in matrix.group_all(index).groups
    ]
    return followed


CHANGES = {
    "traits": lambda n, rng: dataclasses.replace(n, traits=frozenset(rng.sample(TRAITS, 2))),
    "no resource class": lambda n, rng: dataclasses.replace(n, resource_class=None),
    "resource class": lambda n, rng: dataclasses.replace(n, resource_class="m1.small"),
    "provision state": lambda n, rng: dataclasses.replace(n, provision_state="cleaning"),
    "maintenance": lambda n, rng: dataclasses.replace(n, maintenance=not n.maintenance),
    "instance": lambda n, rng: dataclasses.replace(
        n, provisioned=True, provision_state="active", instance_uuid="i-1"
    ),
    "rename": lambda n, rng: dataclasses.replace(n, name=f"renamed-{n.uuid}"),
}


def test_each_kind_of_change_gives_the_groups_made_afresh() -> None:
    rng = random.Random(11)
    nodes = [_node(rng, f"u{i}") for i in range(80)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    made = matrix.group_all(index)
    generation = 1
    for kind, change in CHANGES.items():
        for at in (rng.randrange(len(nodes)), made.groups[0].position):  # any; a group's first
            generation += 1
            nodes[at] = change(nodes[at], rng)
            before, index = index, index.updated(generation, (), [nodes[at]])
            unchanged = {id(g) for g in made.groups}
            made = _followed(before, made, index)
            # Only the node's old and new groups are made again; the others are the same.
            assert sum(id(g) not in unchanged for g in made.groups) <= 2, kind

    generation += 1  # a node added
    nodes.append(_node(rng, "u-new"))
    before, index = index, index.updated(generation, (), [nodes[-1]])
    made = _followed(before, made, index)

    for at in (5, 0, -1):  # a node removed: before others, the first, the last
        generation += 1
        gone = nodes.pop(at)
        before, index = index, index.updated(generation, {gone.uuid}, [])
        made = _followed(before, made, index)

    generation += 1  # a group's every node removed, and a group of a node alone made
    alone = [n for n in nodes if n.resource_class == "c2.large"]
    nodes = [n for n in nodes if n.resource_class != "c2.large"]
    nodes.append(dataclasses.replace(_node(rng, "u-alone"), resource_class="gpu"))
    before = index
    index = index.updated(generation, {n.uuid for n in alone}, [nodes[-1]])
    made = _followed(before, made, index)
    assert [g.resource_class for g in made.groups].count("gpu") == 1

    generation += 1  # the index built afresh (a restart): equal records, nothing regrouped
    before, index = index, Index.build(Snapshot(tuple(nodes), generation))
    followed = matrix.follow(before, made, index)
    assert followed is not None and followed.groups == made.groups
    assert all(a is b for a, b in zip(followed.groups, made.groups, strict=True))


def test_a_reordered_index_is_grouped_afresh() -> None:
    rng = random.Random(3)
    nodes = [_node(rng, f"u{i}") for i in range(20)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    made = matrix.group_all(index)
    reordered = Index.build(Snapshot(tuple(reversed(nodes)), 2))
    assert matrix.follow(index, made, reordered) is None


def test_the_cache_follows_the_previous_index() -> None:
    rng = random.Random(5)
    nodes = [_node(rng, f"c{i}") for i in range(50)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    matrix.groups(index)
    before = matrix.followed
    nodes[7] = dataclasses.replace(nodes[7], traits=frozenset(TRAITS[:2]))
    changed = index.updated(2, (), [nodes[7]])
    assert matrix.groups(changed) == matrix.group_all(changed)
    assert matrix.followed == before + 1


@pytest.mark.parametrize("seed", range(12))
def test_random_changes_give_the_groups_made_afresh(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [_node(rng, f"u{i}") for i in range(40)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    made = matrix.group_all(index)
    counter = 40
    for generation in range(2, 30):
        removed = {n.uuid for n in rng.sample(nodes, rng.choice([0, 0, 1, 3]))}
        nodes = [n for n in nodes if n.uuid not in removed]
        changed = []
        for at in rng.sample(range(len(nodes)), min(len(nodes), rng.randint(0, 5))):
            nodes[at] = _node(rng, nodes[at].uuid)
            changed.append(nodes[at])
        changed.sort(key=nodes.index)
        for _ in range(rng.randint(0, 3)):
            counter += 1
            nodes.append(_node(rng, f"u{counter}"))
            changed.append(nodes[-1])
        before, index = index, index.updated(generation, removed, changed)
        made = _followed(before, made, index)
