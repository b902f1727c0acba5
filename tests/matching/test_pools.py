"""Pool leaks: a private flavor's nodes that a flavor of other projects can also land on, with
and without the nodes, and the trait that closes each leak."""

from __future__ import annotations

from flavorsmith.catalog.model import Flavor, TraitRequirement
from flavorsmith.matching import reports
from flavorsmith.matching.index import Index
from flavorsmith.matching.pools import Leak, is_pool, leaks, outsiders
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

A, B, C = "project-a", "project-b", "project-c"


def flavor(
    name: str,
    *,
    required: tuple[str, ...] = (),
    absent: tuple[str, ...] = (),
    projects: tuple[str, ...] | None = None,
    rc: str = "m1.medium",
    specs: tuple[tuple[str, str], ...] = (),
) -> Flavor:
    reqs = tuple(TraitRequirement(t, "required") for t in required) + tuple(
        TraitRequirement(t, "absent") for t in absent
    )
    return Flavor(
        name,
        rc,
        traits=reqs,
        is_public=projects is None,
        projects=projects or (),
        extra_specs=specs,
    )


def nodes(*specs: tuple[int, str, frozenset[str]]) -> Index:
    """``(count, resource class, traits)`` groups of nodes."""
    built = []
    for count, rc, traits in specs:
        for _ in range(count):
            n = len(built)
            built.append(NodeInfo(f"uuid-{n}", f"node-{n}", rc, traits))
    return Index.build(Snapshot(tuple(built)))


POOL = frozenset({"CUSTOM_POOL_A"})
INVENTORY = nodes(
    (5, "m1.medium", POOL | {"CUSTOM_NVME"}),
    (3, "m1.medium", frozenset({"CUSTOM_NVME"})),
    (4, "m1.medium", frozenset()),
    (2, "m1.small", POOL),
)


def test_a_public_flavor_reaching_the_pool_is_counted_with_its_fix() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A,))
    general = flavor("general")
    (leak,) = leaks([general, pool], INVENTORY)
    assert leak == Leak("pool-a", "general", "public", 5, 5, "CUSTOM_POOL_A", 0)
    assert leak.summary() == "'general' (public) reaches 5 of the 5 nodes of 'pool-a'"
    assert leak.fix() == (
        "mark POOL_A absent in 'general' (trait: POOL_A, state: absent); or put the pool's "
        "nodes in a Nova aggregate with trait:CUSTOM_POOL_A=required and set "
        "[scheduler]enable_isolated_aggregate_filtering"
    )


def test_marking_the_trait_absent_closes_it() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A,))
    general = flavor("general", absent=("POOL_A",))
    assert leaks([general, pool], INVENTORY) == []
    assert leaks([general, pool]) == []


def test_the_closing_trait_is_the_one_costing_the_reaching_flavor_least() -> None:
    """NVME is on 3 of the public flavor's other nodes; POOL_A only on the pool's."""
    pool = flavor("pool-a", required=("NVME", "POOL_A"), projects=(A,))
    (leak,) = leaks([flavor("general"), pool], INVENTORY)
    assert (leak.close_with, leak.costs) == ("CUSTOM_POOL_A", 0)
    only_nvme = flavor("pool-a", required=("NVME",), projects=(A,))
    (leak,) = leaks([flavor("general"), only_nvme], INVENTORY)
    assert (leak.nodes, leak.pool_nodes, leak.close_with, leak.costs) == (8, 8, "CUSTOM_NVME", 0)
    (leak,) = leaks([flavor("general", required=("NVME",)), pool], INVENTORY)
    assert (leak.close_with, leak.costs) == ("CUSTOM_POOL_A", 0)


def test_without_a_trait_to_mark_the_pool_needs_one_of_its_own() -> None:
    pool = flavor("pool-a", projects=(A,))
    (leak,) = leaks([flavor("general"), pool], INVENTORY)
    assert (leak.nodes, leak.close_with, leak.costs) == (12, None, None)
    assert leak.fix().startswith(
        "give the pool's nodes a trait of their own (e.g. CUSTOM_POOL_POOL_A), require it in "
        "'pool-a' and mark it absent in 'general'; or put the pool's nodes in a Nova aggregate"
    )


def test_with_nodes_only_an_actual_overlap_is_a_leak() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A,))
    elsewhere = flavor("general", rc="m1.small", required=("NVME",))
    assert leaks([elsewhere, pool], INVENTORY) == []
    # The static check cannot tell: no node set, no trait conflict, but another class.
    assert leaks([elsewhere, pool]) == []
    same_class = flavor("general", required=("GPU",))
    assert leaks([same_class, pool], INVENTORY) == []  # no node has GPU
    (static,) = leaks([same_class, pool])  # but nothing keeps it off the pool's nodes
    assert (static.nodes, static.pool_nodes, static.static) == (None, None, True)
    assert static.summary() == (
        "'general' (public) can reach the nodes of private flavor 'pool-a': same resource "
        "class, and no trait one requires is forbidden by the other (checked without nodes)"
    )


def test_static_check_sees_conflicts_both_ways() -> None:
    pool = flavor("pool-a", required=("POOL_A",), absent=("GPU",), projects=(A,))
    assert leaks([flavor("gpu", required=("GPU",)), pool]) == []
    assert leaks([flavor("general", absent=("POOL_A",)), pool]) == []
    assert len(leaks([flavor("general"), pool])) == 1


def test_who_else_may_use_a_flavor() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A, B))
    same_projects = flavor("also-a", projects=(A,))
    other_project = flavor("pool-c", projects=(A, C))
    admins_only = flavor("admins", projects=())
    assert [is_pool(f) for f in (pool, admins_only, flavor("public"))] == [True, False, False]
    assert outsiders(pool, same_projects) is None
    assert outsiders(pool, admins_only) is None
    found = leaks([pool, same_projects, other_project, admins_only], INVENTORY)
    assert [(x.pool, x.reached_by, x.audience, x.nodes) for x in found] == [
        ("also-a", "pool-a", f"projects {B}", 5),
        ("also-a", "pool-c", f"projects {C}", 12),
        ("pool-a", "pool-c", f"projects {C}", 5),
        ("pool-c", "pool-a", f"projects {B}", 5),
    ]


def test_an_isolated_aggregate_closes_it() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A,))
    general = flavor("general")
    assert leaks([general, pool], INVENTORY, isolated={"CUSTOM_POOL_A"}) == []
    assert leaks([general, pool], isolated={"CUSTOM_POOL_A"}) == []
    assert len(leaks([general, pool], INVENTORY, isolated={"CUSTOM_OTHER"})) == 1


def test_a_standard_trait_fix_is_written_as_an_extra_spec() -> None:
    leak = Leak("pool-a", "general", "public", 5, 5, "HW_CPU_X86_AVX2", 3)
    assert leak.fixes()[0] == (
        "forbid HW_CPU_X86_AVX2 in 'general' (extra_specs trait:HW_CPU_X86_AVX2: forbidden), "
        "which also takes 3 other nodes from it"
    )


def test_who_may_not_read_access_lists_sees_no_project_named() -> None:
    pool = flavor("pool-a", required=("POOL_A",), projects=(A,))
    shared = flavor("shared", projects=(A, B, C))
    general = flavor("general")
    named = reports.pool_leaks([general, pool, shared], INVENTORY)
    assert [(x["pool"], x["reached_by"], x["audience"]) for x in named][:2] == [
        ("pool-a", "general", "public"),
        ("pool-a", "shared", f"projects {B}, {C}"),
    ]
    unnamed = reports.pool_leaks([general, pool, shared], INVENTORY, name_projects=False)
    assert [(x["pool"], x["reached_by"], x["audience"]) for x in unnamed] == [
        ("pool-a", "general", "public"),
        ("pool-a", "shared", "other projects"),
        ("shared", "general", "public"),  # shared is a pool too
    ]
    assert B not in str(unnamed) and C not in str(unnamed)
    assert unnamed[1]["summary"] == "'shared' (other projects) reaches 5 of the 5 nodes of 'pool-a'"
