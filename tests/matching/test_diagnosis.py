"""Why a flavor cannot land on a node, layer by layer, and a flavor's nodes counted by reason
(pure: nodes, providers and access built here)."""

from __future__ import annotations

from dataclasses import replace

from flavorsmith.matching.diagnosis import (
    DERIVED,
    Access,
    Context,
    Finding,
    diagnose_flavor,
    diagnose_node,
    node_findings,
)
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.provider import derived
from flavorsmith.matching.resource_providers import Inventory, Provider
from flavorsmith.matching.snapshot import NodeInfo

RC = "CUSTOM_M1_SMALL"
FLAVOR = FlavorRule(
    "m1.small.nvme", "m1.small", frozenset({"CUSTOM_NVME"}), frozenset({"CUSTOM_GPU"})
)
READY = NodeInfo("u-ready", "ready", "m1.small", frozenset({"CUSTOM_NVME"}))
DERIVED_CONTEXT = Context()
REAL = Context(real_placement=True)


def provider(node: NodeInfo, **changes: object) -> Provider:
    """The provider a healthy Nova reports for ``node``, with ``changes``."""
    return replace(derived(node), **changes)  # type: ignore[arg-type]


def kinds(findings: list[Finding] | tuple[Finding, ...]) -> list[tuple[str, str, bool]]:
    return [(f.layer, f.kind, f.blocking) for f in findings]


def test_a_ready_node_has_no_reason() -> None:
    assert node_findings(READY, FLAVOR, derived(READY), DERIVED_CONTEXT) == []
    result = diagnose_node(READY, FLAVOR, derived(READY), DERIVED_CONTEXT, candidates=1)
    assert result.schedulable and result.as_dict()["reasons"] == []
    assert result.as_dict()["node"]["inventory"] == "schedulable"


def test_catalog_reasons_come_from_the_matcher() -> None:
    node = replace(READY, resource_class="c2.large", traits=frozenset({"CUSTOM_GPU"}))
    found = node_findings(node, FLAVOR, derived(node), DERIVED_CONTEXT)
    assert kinds(found) == [
        ("catalog", "resource-class", True),
        ("catalog", "missing-trait", True),
        ("catalog", "forbidden-trait", True),
    ]
    assert [f.subject for f in found] == [None, "CUSTOM_NVME", "CUSTOM_GPU"]
    assert found[1].detail == "the flavor requires CUSTOM_NVME; the node lacks it"


def test_ironic_states_each_give_a_reason_and_placement_reserves() -> None:
    node = replace(
        READY,
        maintenance=True,
        power_state=None,
        provision_state="manageable",
    )
    found = node_findings(node, FLAVOR, derived(node), DERIVED_CONTEXT)
    assert kinds(found) == [
        ("ironic", "maintenance", True),
        ("ironic", "power-state", True),
        ("ironic", "provision-state", True),
        ("placement", "reserved", True),
    ]
    assert found[1].detail.startswith(
        "power state is none: Nova's ironic driver reports the node reserved"
    )
    assert found[2].subject == "manageable"
    assert "(derived from the node as Nova reports it)" in found[3].detail


def test_an_instance_makes_the_node_used() -> None:
    node = replace(READY, provision_state="active", power_state="power on", instance_uuid="i-1")
    found = node_findings(node, FLAVOR, derived(node), DERIVED_CONTEXT)
    assert kinds(found) == [
        ("ironic", "instance", True),
        ("ironic", "provision-state", True),
        ("placement", "reserved", True),
        ("placement", "allocated", True),
    ]
    assert found[0].subject == "i-1"


def test_owner_and_lessee_are_said_but_do_not_block() -> None:
    node = replace(READY, owner="p-owner", lessee="p-lessee")
    context = Context(project="p-other")
    found = node_findings(node, FLAVOR, derived(node), context)
    assert kinds(found) == [("ironic", "owner", False), ("ironic", "lessee", False)]
    assert "project p-owner, not p-other: Nova schedules and deploys regardless" in found[0].detail
    assert diagnose_node(node, FLAVOR, derived(node), context, 1).schedulable


def test_placement_reasons_from_a_real_provider() -> None:
    assert kinds(node_findings(READY, FLAVOR, None, REAL)) == [("placement", "no-provider", True)]
    empty = provider(READY, inventories={}, usages={})
    (missing,) = node_findings(READY, FLAVOR, empty, REAL)
    assert (missing.kind, missing.subject) == ("no-inventory", RC)
    assert missing.detail == f"the provider has no {RC} inventory (its inventory: none)"
    reserved = provider(READY, inventories={RC: Inventory(1, 1, 1)})
    assert kinds(node_findings(READY, FLAVOR, reserved, REAL)) == [("placement", "reserved", True)]
    allocated = provider(READY, usages={RC: 1})
    assert kinds(node_findings(READY, FLAVOR, allocated, REAL)) == [
        ("placement", "allocated", True)
    ]
    tiny = provider(READY, inventories={RC: Inventory(1, 0, 0)})
    assert kinds(node_findings(READY, FLAVOR, tiny, REAL)) == [("placement", "unit", True)]
    # Placement's capacity counts the allocation ratio: 2 of total 1 at ratio 2.0 is full.
    shared = provider(READY, inventories={RC: Inventory(1, 0, 1, allocation_ratio=2.0)})
    assert node_findings(READY, FLAVOR, replace(shared, usages={RC: 1}), REAL) == []
    full = replace(shared, usages={RC: 2})
    assert kinds(node_findings(READY, FLAVOR, full, REAL)) == [("placement", "allocated", True)]


def test_provider_traits_that_differ_from_ironic() -> None:
    drifted = provider(READY, traits=frozenset({"CUSTOM_GPU", "COMPUTE_STATUS_DISABLED"}))
    found = node_findings(READY, FLAVOR, drifted, REAL)
    assert kinds(found) == [
        ("placement", "provider-missing-trait", True),
        ("placement", "provider-forbidden-trait", True),
        ("placement", "compute-disabled", True),
    ]
    assert [f.subject for f in found] == ["CUSTOM_NVME", "CUSTOM_GPU", "COMPUTE_STATUS_DISABLED"]
    # A trait the node lacks too is the catalog's reason, not said twice.
    bare = replace(READY, traits=frozenset())
    assert kinds(node_findings(bare, FLAVOR, derived(bare), REAL)) == [
        ("catalog", "missing-trait", True)
    ]


def test_a_node_without_resource_class_has_no_inventory() -> None:
    node = replace(READY, resource_class=None)
    found = node_findings(node, FLAVOR, derived(node), DERIVED_CONTEXT)
    assert kinds(found) == [
        ("catalog", "resource-class", True),
        ("placement", "no-inventory", True),
    ]
    assert "the node has no resource class" in found[1].detail


def test_flavor_access() -> None:
    private = Access(is_public=False, projects=("p-dedicated",))
    unsaid = diagnose_node(READY, FLAVOR, derived(READY), Context(access=private), 1)
    assert kinds(unsaid.findings) == [("access", "private-flavor", False)] and unsaid.schedulable
    outsider = Context(project="p-other", access=private)
    refused = diagnose_node(READY, FLAVOR, derived(READY), outsider, 1)
    assert kinds(refused.findings) == [("access", "private-flavor", True)]
    assert not refused.schedulable
    assert refused.findings[0].detail == (
        "the flavor is private and project p-other is not on its access list"
    )
    member = Context(project="p-dedicated", access=private)
    assert diagnose_node(READY, FLAVOR, derived(READY), member, 1).findings == ()


def test_the_candidate_cap_is_said_only_when_it_bites() -> None:
    assert diagnose_node(READY, FLAVOR, derived(READY), DERIVED_CONTEXT, 1000).findings == ()
    (cap,) = diagnose_node(READY, FLAVOR, derived(READY), DERIVED_CONTEXT, 1001).findings
    assert (cap.layer, cap.kind, cap.blocking) == ("scheduler", "candidate-limit", False)
    assert "1,001 nodes qualify, but Nova asks Placement for at most 1,000" in cap.detail
    # A node that cannot land anyway is not told about the cap.
    busy = replace(READY, maintenance=True)
    found = diagnose_node(busy, FLAVOR, derived(busy), DERIVED_CONTEXT, 5000).findings
    assert "candidate-limit" not in [f.kind for f in found]


def test_a_flavor_counts_its_nodes_by_first_reason() -> None:
    def node(i: int, **changes: object) -> NodeInfo:
        return replace(READY, uuid=f"u{i}", name=f"n{i}", **changes)  # type: ignore[arg-type]

    nodes = [
        node(0),
        node(1),
        node(2, provision_state="active", instance_uuid="i", maintenance=True),
        node(3, maintenance=True),
        node(4, traits=frozenset()),
        node(5, traits=frozenset(), maintenance=True),  # the trait comes first
        node(6, resource_class="c2.large"),
        node(7, power_state=None),
        node(8, provision_state="manageable"),
        node(9),  # no provider in Placement
    ]
    result = diagnose_flavor(nodes, FLAVOR, DERIVED, DERIVED_CONTEXT)
    assert result.summary == (
        "3 available, 1 of another resource class, 2 lack CUSTOM_NVME, 1 provisioned, "
        "1 in maintenance, 1 with power state none, 1 in provision state manageable"
    )
    counts = {(c.kind, c.subject): c.count for c in result.counts}
    assert counts == {
        ("available", None): 3,
        ("resource-class", None): 1,
        ("missing-trait", "CUSTOM_NVME"): 2,
        ("provisioned", None): 1,
        ("maintenance", None): 1,
        ("power-state", "none"): 1,
        ("provision-state", "manageable"): 1,
    }
    assert result.candidates == 3 and result.nodes == 10

    real = {n.uuid: derived(n) for n in nodes if n.uuid != "u9"}
    with_cloud = diagnose_flavor(nodes, FLAVOR, lambda n: real.get(n.uuid), REAL)
    assert {(c.kind, c.count) for c in with_cloud.counts} >= {("available", 2), ("no-provider", 1)}
    assert "1 have no provider" in with_cloud.summary
    as_dict = with_cloud.as_dict()
    assert as_dict["placement"] == "real" and as_dict["counts"][0] == {
        "reason": "available",
        "subject": None,
        "count": 2,
        "text": "2 available",
    }


def test_a_request_no_node_can_satisfy_is_said_for_the_flavor() -> None:
    never = replace(
        FLAVOR, never=("asks for VCPU:4; a bare-metal node's provider has only its resource class",)
    )
    found = node_findings(READY, never, derived(READY), DERIVED_CONTEXT)
    assert kinds(found) == [("catalog", "never", True)]
    result = diagnose_flavor([READY, replace(READY, uuid="u2")], never, DERIVED, DERIVED_CONTEXT)
    assert result.summary == "2 excluded by the flavor's Placement request itself"
    assert result.candidates == 0 and kinds(result.findings) == [("catalog", "never", True)]


def test_unmodelled_parts_and_one_of_several_traits() -> None:
    rule = replace(
        FLAVOR,
        required=frozenset(),
        any_of=(frozenset({"CUSTOM_A", "CUSTOM_B"}),),
        unmodelled=("request group '1' names aggregates (member_of)",),
    )
    result = diagnose_node(READY, rule, derived(READY), DERIVED_CONTEXT, 1)
    assert kinds(result.findings) == [
        ("catalog", "missing-any-trait", True),
        ("catalog", "unmodelled", False),
    ]
    assert result.findings[0].subject == "CUSTOM_A, CUSTOM_B"
    counted = diagnose_flavor([READY], rule, DERIVED, DERIVED_CONTEXT)
    assert counted.summary == "1 have none of CUSTOM_A, CUSTOM_B"
    assert kinds(counted.findings) == [("catalog", "unmodelled", False)]


def test_a_forbidden_trait_placement_never_saw_refuses_the_request() -> None:
    context = Context(known_traits=frozenset({"CUSTOM_NVME"}))  # no node has CUSTOM_GPU
    result = diagnose_flavor([READY], FLAVOR, DERIVED, context)
    assert [(c.kind, c.count) for c in result.counts] == [("never", 1)]
    assert kinds(result.findings) == [("catalog", "unknown-trait", True)]
