"""The matcher on Nova's Placement request: one bare-metal provider per node."""

from __future__ import annotations

import pytest

from flavorsmith.catalog.model import (
    Catalog,
    DeviceType,
    Flavor,
    ResourceClass,
    TraitRequirement,
)
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.match import brute_force, explain, known_traits
from flavorsmith.matching.reports import rules_of
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.nova.placement_request import PlacementRequest, RequestGroup, request_for

BASE = {
    "resources:CUSTOM_GOLD": "1",
    "resources:VCPU": "0",
    "resources:MEMORY_MB": "0",
    "resources:DISK_GB": "0",
}
NODES = Snapshot(
    (
        NodeInfo("a", "plain", "gold", frozenset()),
        NodeInfo("b", "sgx", "gold", frozenset({"HW_CPU_X86_SGX", "CUSTOM_FAST"})),
        NodeInfo("c", "multi", "gold", frozenset({"COMPUTE_VOLUME_MULTI_ATTACH"})),
        NodeInfo("d", "silver", "silver", frozenset({"HW_CPU_X86_SGX"})),
    )
)


def rule(**specs: str) -> FlavorRule:
    derived = DerivedFlavor("f", "f", None, True, (), 16, 1024, 10, {**BASE, **specs})
    return FlavorRule.from_request("f", "gold", request_for(derived))


def matched(flavor: FlavorRule) -> list[str]:
    index = Index.build(NODES)
    names = [NODES.nodes[p].label for p in positions(index.match(flavor))]
    assert names == [NODES.nodes[p].label for p in sorted(brute_force(flavor, NODES))]
    return names


def test_a_plain_flavor_matches_its_class() -> None:
    assert matched(rule()) == ["plain", "sgx", "multi"]


def test_traits_from_extra_specs_are_required_and_forbidden() -> None:
    assert matched(rule(**{"trait:HW_CPU_X86_SGX": "required"})) == ["sgx"]
    assert matched(rule(**{"trait:HW_CPU_X86_SGX": "forbidden"})) == ["plain", "multi"]


def test_a_numbered_group_with_the_resource_and_its_traits() -> None:
    flavor = rule(
        **{
            "resources:CUSTOM_GOLD": "0",
            "resources1:CUSTOM_GOLD": "1",
            "trait1:CUSTOM_FAST": "required",
        }
    )
    assert flavor.never == ()
    assert matched(flavor) == ["sgx"]


def test_traits_nova_sets_itself() -> None:
    assert matched(rule(**{"trait:COMPUTE_NET_ATTACH_INTERFACE": "required"})) == [
        "plain",
        "sgx",
        "multi",
    ]
    # Nova's ironic driver removes this capability trait from every provider.
    assert matched(rule(**{"trait:COMPUTE_VOLUME_MULTI_ATTACH": "forbidden"})) == [
        "plain",
        "sgx",
        "multi",
    ]


@pytest.mark.parametrize(
    ("specs", "reason"),
    [
        ({"resources:CUSTOM_GOLD": "2"}, "total 1"),
        ({"resources:CUSTOM_SILVER": "1"}, "has only its resource class"),
        ({"resources:VCPU": "4"}, "has only its resource class"),
        ({"hw:cpu_policy": "dedicated"}, "PCPU:16"),
        ({"trait1:CUSTOM_FAST": "required"}, "no resources"),
        (
            {"resources1:CUSTOM_GOLD": "1", "resources2:CUSTOM_GOLD": "1"},
            "without group_policy",
        ),
        (
            {
                "resources:CUSTOM_GOLD": "0",
                "resources1:CUSTOM_GOLD": "1",
                "resources2:CUSTOM_GOLD": "1",
                "group_policy": "isolate",
            },
            "isolate",
        ),
        ({"resources:CUSTOM_GOLD": "0"}, "no resource at all"),
        ({"trait:COMPUTE_VOLUME_MULTI_ATTACH": "required"}, "removes from every provider"),
        ({"trait:OWNER_NOVA": "forbidden"}, "Nova sets on every provider"),
        ({"trait:COMPUTE_STATUS_DISABLED": "required"}, "disabled"),
        ({"trait:in:CUSTOM_A,CUSTOM_B": "required"}, "1.39"),
        ({"trait:custom_lower": "required"}, "no such trait"),
        ({"hw:mem_encryption": "true"}, "hw_firmware_type=uefi"),
        ({"hw:cpu_policy": "bogus"}, "Nova refuses"),
    ],
)
def test_never_a_candidate(specs: dict[str, str], reason: str) -> None:
    flavor = rule(**specs)
    assert any(reason in text for text in flavor.never), flavor.never
    assert matched(flavor) == []
    assert explain(NODES.nodes[1], flavor)[0].kind == "never"


def test_any_of_is_honoured_from_placement_1_39() -> None:
    group = RequestGroup(
        "", {"CUSTOM_GOLD": 1}, any_of=(frozenset({"HW_CPU_X86_SGX", "CUSTOM_FAST"}),)
    )
    at_136 = FlavorRule.from_request("f", "gold", PlacementRequest((group,)))
    assert "1.39" in at_136.never[0]
    at_139 = FlavorRule.from_request("f", "gold", PlacementRequest((group,), microversion="1.39"))
    assert at_139.never == ()
    assert matched(at_139) == ["sgx"]
    reasons = explain(NODES.nodes[0], at_139)
    assert [r.kind for r in reasons] == ["missing-any-trait"]


def test_any_of_naming_a_custom_trait_no_node_has_gets_no_candidate() -> None:
    # Placement 1.39 answers 400 "No such trait(s): CUSTOM_NONE." to required=in:...,CUSTOM_NONE
    # even when the other choice exists (tests/integration/test_matcher_agrees_with_placement).
    group = RequestGroup(
        "", {"CUSTOM_GOLD": 1}, any_of=(frozenset({"HW_CPU_X86_SGX", "CUSTOM_NONE"}),)
    )
    flavor = FlavorRule.from_request("f", "gold", PlacementRequest((group,), microversion="1.39"))
    assert matched(flavor) == []
    reasons = explain(NODES.nodes[1], flavor, known_traits(NODES))
    assert [r.kind for r in reasons] == ["unknown-trait"]
    assert "accepts, among others, CUSTOM_NONE, which no node has" in reasons[0].detail


def test_forbidding_a_custom_trait_no_node_has_gets_no_candidate() -> None:
    flavor = rule(**{"trait:CUSTOM_NOBODY": "forbidden"})
    assert flavor.never == ()
    assert matched(flavor) == []
    reasons = explain(NODES.nodes[0], flavor, known_traits(NODES))
    assert [r.kind for r in reasons] == ["unknown-trait"]


def test_aggregates_are_unmodelled_not_silently_matched() -> None:
    group = RequestGroup("", {"CUSTOM_GOLD": 1}, member_of=(frozenset({"agg"}),))
    flavor = FlavorRule.from_request("f", "gold", PlacementRequest((group,)))
    assert "aggregates" in flavor.unmodelled[0]


def catalog(*flavors: Flavor) -> Catalog:
    rc = ResourceClass("gold", 16, "AMD EPYC 9124", 131072, (480,), 2)
    return Catalog(
        device_types=(DeviceType("server", "Dell", "R7615", 1, True, (rc,)),), flavors=flavors
    )


def test_a_catalog_flavor_requiring_sgx_through_extra_specs_no_longer_matches_without_it() -> None:
    sgx = Flavor("sgx", "gold", extra_specs=(("trait:HW_CPU_X86_SGX", "required"),))
    fast = Flavor("fast", "gold", traits=(TraitRequirement("FAST", "required"),))
    lost = Flavor("lost", "bronze")
    rules = {r.name: r for r in rules_of(catalog(sgx, fast, lost))}
    assert matched(rules["sgx"]) == ["sgx"]
    assert matched(rules["fast"]) == ["sgx"]
    assert matched(rules["lost"]) == []
    assert "not defined in the catalog" in rules["lost"].never[0]
