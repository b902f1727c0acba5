"""Index.updated: an index that follows node changes equals one built afresh from the same
nodes — every bitmap, the node order and the UUID-and-name lookup — through random removals,
changes, renames, additions and UUIDs that come back after a removal."""

from __future__ import annotations

import random

import pytest

from flavorsmith.matching.index import REBUILD_AFTER, Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

TRAITS = [f"CUSTOM_T{i}" for i in range(12)]
CLASSES = ["baremetal", "m1.small", "m1-small", "gpu", None]


def _node(rng: random.Random, uuid: str) -> NodeInfo:
    name = rng.choice([None, f"n-{rng.randrange(40)}", f"u-{rng.randrange(40)}"])
    return NodeInfo(
        uuid=uuid,
        name=name,
        resource_class=rng.choice(CLASSES),
        traits=frozenset(rng.sample(TRAITS, rng.randint(0, 4))),
        provisioned=rng.random() < 0.3,
        maintenance=rng.random() < 0.1,
    )


def assert_same(index: Index, fresh: Index) -> None:
    assert index.snapshot.nodes == fresh.snapshot.nodes
    assert index.snapshot.generation == fresh.snapshot.generation
    assert dict(index.snapshot.positions) == fresh.snapshot.positions
    assert index.by_class == fresh.by_class
    assert index.by_trait == fresh.by_trait
    assert index.available == fresh.available
    assert index.everything == fresh.everything
    assert index == fresh


def _step(
    rng: random.Random, nodes: list[NodeInfo], counter: list[int], removals: int
) -> tuple[list[NodeInfo], set[str], list[NodeInfo]]:
    """One random change: (the nodes after it, the removed UUIDs, the changed records)."""
    removed = {n.uuid for n in rng.sample(nodes, min(len(nodes), removals))}
    kept = [n for n in nodes if n.uuid not in removed]
    changed: list[NodeInfo] = []
    for at in rng.sample(range(len(kept)), min(len(kept), rng.randint(0, 6))):
        kept[at] = _node(rng, kept[at].uuid) if rng.random() < 0.8 else kept[at]
        changed.append(kept[at])
    changed.sort(key=kept.index)
    added = []
    for _ in range(rng.randint(0, 4)):
        if removed and rng.random() < 0.3:  # a UUID that comes back after its removal
            uuid = rng.choice(sorted(removed))
            if any(n.uuid == uuid for n in added):
                continue
        else:
            counter[0] += 1
            uuid = f"u-{counter[0]}"
        added.append(_node(rng, uuid))
    return kept + added, removed, changed + added


@pytest.mark.parametrize("seed", range(40))
def test_random_updates_equal_a_fresh_build(seed: int) -> None:
    rng = random.Random(seed)
    counter = [0]
    nodes = []
    for _ in range(rng.randint(0, 30)):
        counter[0] += 1
        nodes.append(_node(rng, f"u-{counter[0]}"))
    index = Index.build(Snapshot(tuple(nodes), 1))
    for generation in range(2, 30):
        nodes, removed, changed = _step(rng, nodes, counter, rng.choice([0, 0, 1, 2]))
        index = index.updated(generation, removed, changed)
        assert_same(index, Index.build(Snapshot(tuple(nodes), generation)))


def test_a_trait_change_keeps_the_lookup_and_other_bitmaps() -> None:
    nodes = tuple(
        NodeInfo(f"u-{i}", f"n-{i}", "baremetal", frozenset({"CUSTOM_A"})) for i in range(9)
    )
    index = Index.build(Snapshot(nodes, 1))
    changed = NodeInfo("u-4", "n-4", "baremetal", frozenset({"CUSTOM_B"}))
    after = index.updated(2, (), [changed])
    assert after.snapshot.positions is index.snapshot.positions
    assert after.by_trait == {"CUSTOM_A": 0b111101111, "CUSTOM_B": 0b000010000}
    assert after.snapshot.nodes[4] is changed
    assert index.by_trait == {"CUSTOM_A": 0b111111111}  # the old index is left as it was


def test_many_removals_rebuild_to_the_same_index() -> None:
    rng = random.Random(7)
    nodes = [_node(rng, f"u-{i}") for i in range(3 * REBUILD_AFTER)]
    index = Index.build(Snapshot(tuple(nodes), 1))
    removed = {n.uuid for n in nodes[::2]}
    after = index.updated(2, removed, [])
    kept = tuple(n for n in nodes if n.uuid not in removed)
    assert_same(after, Index.build(Snapshot(kept, 2)))


def test_unknown_removals_and_unchanged_records_change_nothing_but_the_generation() -> None:
    nodes = tuple(NodeInfo(f"u-{i}", None, "baremetal", frozenset()) for i in range(3))
    index = Index.build(Snapshot(nodes, 1))
    after = index.updated(5, {"nobody", "u-9"}, [nodes[1]])
    assert_same(after, Index.build(Snapshot(nodes, 5)))
