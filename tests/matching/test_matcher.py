"""The indexed matcher against a brute-force reference; explanations; capacity."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from flavorsmith.matching.capacity import report
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, bitmap, positions
from flavorsmith.matching.match import brute_force, explain, flavors_for, known_traits
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

TRAITS = [f"CUSTOM_T{i}" for i in range(8)]
CLASSES = ["m1.small", "m1-small", "M1 Small", "c2.large", "gpu", None]

nodes_strategy = st.lists(
    st.builds(
        NodeInfo,
        uuid=st.uuids().map(str),
        name=st.none(),
        resource_class=st.sampled_from(CLASSES),
        traits=st.frozensets(st.sampled_from(TRAITS), max_size=5),
        provisioned=st.booleans(),
        maintenance=st.booleans(),
        provision_state=st.sampled_from(["available", "active", "manageable", "enroll", None]),
        power_state=st.sampled_from(["power on", "power off", "error", None]),
        instance_uuid=st.none() | st.uuids().map(str),
    ),
    max_size=40,
    unique_by=lambda n: n.uuid,
)
flavor_strategy = st.builds(
    FlavorRule,
    name=st.text(min_size=1, max_size=5),
    resource_class=st.sampled_from([c for c in CLASSES if c]),
    required=st.frozensets(st.sampled_from(TRAITS), max_size=3),
    forbidden=st.frozensets(st.sampled_from(TRAITS), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(nodes_strategy, st.lists(flavor_strategy, min_size=1, max_size=6))
def test_index_matches_brute_force(nodes: list[NodeInfo], flavors: list[FlavorRule]) -> None:
    snapshot = Snapshot(tuple(nodes))
    index = Index.build(snapshot)
    for flavor in flavors:
        assert set(positions(index.match(flavor))) == brute_force(flavor, snapshot)
    known = known_traits(snapshot)
    for position, node in enumerate(nodes):
        expected = [f for f in flavors if position in brute_force(f, snapshot)]
        assert flavors_for(node, flavors, known) == expected
        for flavor in flavors:
            matched = position in brute_force(flavor, snapshot)
            assert (explain(node, flavor, known) == []) == matched


@settings(max_examples=200, deadline=None)
@given(nodes_strategy, st.lists(flavor_strategy, min_size=1, max_size=6))
def test_capacity_counts_match_a_reference(
    nodes: list[NodeInfo], flavors: list[FlavorRule]
) -> None:
    snapshot = Snapshot(tuple(nodes))
    result = report(Index.build(snapshot), flavors)
    matched = [brute_force(f, snapshot) for f in flavors]
    per_node = {p: sum(p in m for m in matched) for p in range(len(nodes))}
    for capacity, members in zip(result.flavors, matched, strict=True):
        assert capacity.matching == len(members)
        assert capacity.available == sum(nodes[p].available for p in members)
        histogram: dict[int, int] = {}
        for p in members:
            histogram[per_node[p]] = histogram.get(per_node[p], 0) + 1
        assert capacity.competition == histogram
        assert capacity.exclusive == histogram.get(1, 0)
    unmatched = [nodes[p].label for p in range(len(nodes)) if per_node[p] == 0]
    assert result.findings.nodes_without_flavor == unmatched


def test_bitmap_round_trip() -> None:
    assert list(positions(bitmap([0, 3, 8, 64, 65]))) == [0, 3, 8, 64, 65]
    assert bitmap([]) == 0 and list(positions(0)) == []


def test_explain_lists_every_reason() -> None:
    node = NodeInfo("u1", "n1", "m1-small", frozenset({"CUSTOM_GPU", "CUSTOM_A"}))
    flavor = FlavorRule(
        "f", "c2.large", frozenset({"CUSTOM_NVME", "CUSTOM_X"}), frozenset({"CUSTOM_GPU"})
    )
    assert [r.as_dict() for r in explain(node, flavor)] == [
        {
            "kind": "resource-class",
            "detail": "the node has 'm1-small' (CUSTOM_M1_SMALL); the flavor needs 'c2.large' (CUSTOM_C2_LARGE)",
        },
        {"kind": "missing-trait", "detail": "the flavor requires CUSTOM_NVME; the node lacks it"},
        {"kind": "missing-trait", "detail": "the flavor requires CUSTOM_X; the node lacks it"},
        {"kind": "forbidden-trait", "detail": "the flavor forbids CUSTOM_GPU; the node has it"},
    ]
    # Resource classes compare as Placement names, as in Nova.
    assert explain(node, FlavorRule("g", "m1.small", frozenset(), frozenset())) == []


def test_findings() -> None:
    nodes = (
        NodeInfo("u1", "a", "m1.small", frozenset({"CUSTOM_A"})),
        NodeInfo("u2", "b", "orphan", frozenset()),
        NodeInfo("u3", None, None, frozenset()),
    )
    flavors = [
        FlavorRule("small", "m1.small", frozenset({"CUSTOM_A"}), frozenset()),
        FlavorRule("gpu", "m1.small", frozenset({"CUSTOM_GPU"}), frozenset()),
    ]
    found = report(Index.build(Snapshot(nodes)), flavors).findings
    assert found.flavors_without_nodes == ["gpu"]
    assert found.nodes_without_flavor == ["b", "u3"]
    assert found.resource_classes_without_flavor == ["orphan"]
    assert found.traits_no_node_has == {"CUSTOM_GPU": ["gpu"]}


def test_index_cache_follows_the_generation(migrated_engine: object) -> None:
    """A second process's change (here: another connection) is seen on the next request."""
    import uuid as uuidlib

    from sqlalchemy import Engine

    from flavorsmith.db.engine import writer
    from flavorsmith.nodes.index_cache import IndexCache
    from flavorsmith.store import nodes as store

    assert isinstance(migrated_engine, Engine)
    cache = IndexCache(migrated_engine)
    rc = f"rc-{uuidlib.uuid4().hex[:8]}"
    flavor = FlavorRule("f", rc, frozenset({"CUSTOM_CACHE"}), frozenset())
    first = cache.current()
    assert cache.current() is first and cache.rebuilds == 1
    with writer(migrated_engine).begin() as connection:
        node = store.create(connection, {"driver": "fake-hardware", "resource_class": rc})
        store.add_trait(connection, node, "CUSTOM_CACHE")
    second = cache.current()
    assert second is not first and (cache.rebuilds, cache.updates) == (1, 1)
    assert [second.snapshot.nodes[p].uuid for p in positions(second.match(flavor))] == [
        node["uuid"]
    ]
    with writer(migrated_engine).begin() as connection:
        store.remove_trait(connection, node, "CUSTOM_CACHE")
    assert cache.current().match(flavor) == 0
