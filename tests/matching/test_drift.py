"""Drift between the catalog, Ironic, Placement and Nova's flavors: each finding kind, from
small views built here (the pure module; the CLI and the real services have their own tests)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from flavorsmith.matching.drift import (
    NOVA_OWNED_TRAITS,
    Finding,
    Fixes,
    candidate_findings,
    flavor_findings,
    node_findings,
)
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index
from flavorsmith.matching.provider import Inventory, derived
from flavorsmith.matching.resource_providers import Provider
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

U1 = "11111111-1111-1111-1111-111111111111"
U2 = "22222222-2222-2222-2222-222222222222"
U3 = "33333333-3333-3333-3333-333333333333"
ORPHAN = "99999999-9999-9999-9999-999999999999"


def provider(
    uuid: str,
    name: str,
    inventories: dict[str, Inventory] | None = None,
    usages: dict[str, int] | None = None,
    traits: frozenset[str] = frozenset(),
) -> Provider:
    """A provider as Placement shows it (generation 0)."""
    return Provider(uuid, name, 0, inventories or {}, usages or {}, traits)


def node(uuid: str, name: str, rc: str | None = "m1.small", *traits: str, **kw: bool) -> NodeInfo:
    return NodeInfo(uuid, name, rc, frozenset(traits), **kw)


@dataclass(frozen=True)
class Wanted:
    id: str
    is_public: bool = True
    projects: tuple[str, ...] = ()
    extra_specs: Mapping[str, str] = field(default_factory=dict)


def kinds(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.kind, f.subject) for f in findings]


def test_providers_derived_as_nova_derives_them_show_no_drift() -> None:
    nodes = [
        node(U1, "a", "m1.small", "CUSTOM_X", "COMPUTE_VOLUME_MULTI_ATTACH"),
        node(U2, "b", "m1.small", maintenance=True),
        node(U3, "c", "c2.large", provisioned=True),
        node(ORPHAN, "d", None, "CUSTOM_X"),
    ]
    providers = [derived(n) for n in nodes]
    assert node_findings(nodes, providers) == []


def test_a_node_without_a_provider_and_a_provider_without_a_node() -> None:
    nodes = [node(U1, "a"), node(U2, "b", None)]
    providers = [
        provider(ORPHAN, ORPHAN, {"CUSTOM_M1_SMALL": Inventory(1)}),
        provider("hv", "compute-1", {"VCPU": Inventory(64)}),  # a hypervisor: not a node's
    ]
    found = node_findings(nodes, providers, Fixes("lab"))
    assert kinds(found) == [
        ("provider-missing", "a"),
        ("provider-missing", "b"),
        ("provider-without-node", ORPHAN),
    ]
    assert "no resource class" in found[1].detail
    assert found[1].fix == "openstack --os-cloud lab baremetal node set --resource-class CLASS b"
    assert found[2].fix.startswith(f"openstack --os-cloud lab resource provider delete {ORPHAN}")


def test_a_provider_named_by_the_node_uuid_is_the_nodes() -> None:
    nodes = [node(U1, "a")]
    seen = provider("other-uuid", U1, {"CUSTOM_M1_SMALL": Inventory(1)}, traits=frozenset())
    assert node_findings(nodes, [seen]) == []


def test_resource_class_mismatch_and_absent_inventory() -> None:
    nodes = [node(U1, "a"), node(U2, "b"), node(U3, "c", None)]
    providers = [
        provider(U1, U1, {"CUSTOM_C2_LARGE": Inventory(1)}),
        provider(U2, U2, {}),
        provider(U3, U3, {"CUSTOM_GPU": Inventory(1)}),
    ]
    found = node_findings(nodes, providers)
    assert kinds(found) == [
        ("resource-class-mismatch", "a"),
        ("inventory-absent", "b"),
        ("resource-class-mismatch", "c"),
    ]
    assert "CUSTOM_C2_LARGE" in found[0].detail and "'m1.small'" in found[0].detail
    assert found[1].fix == (
        f"openstack resource provider inventory class set {U2} CUSTOM_M1_SMALL --total 1 "
        "--reserved 0 --max_unit 1"
    )


def test_reservation_against_the_nodes_state() -> None:
    nodes = [
        node(U1, "free"),
        node(U2, "maint", maintenance=True),
        node(U3, "busy", provisioned=True),
    ]
    providers = [
        provider(U1, U1, {"CUSTOM_M1_SMALL": Inventory(1, 1)}),  # reserved, node schedulable
        provider(U2, U2, {"CUSTOM_M1_SMALL": Inventory(1, 0)}),  # offered, node in maintenance
        # an instance's allocation uses it: Placement does not offer it, no drift
        provider(U3, U3, {"CUSTOM_M1_SMALL": Inventory(1, 0)}, usages={"CUSTOM_M1_SMALL": 1}),
    ]
    found = node_findings(nodes, providers)
    assert kinds(found) == [("inventory-reserved", "free"), ("inventory-not-reserved", "maint")]
    assert "--reserved 0" in found[0].fix and "--reserved 1" in found[1].fix


def test_traits_in_one_view_only_leave_novas_own_out() -> None:
    nodes = [node(U1, "a", "m1.small", "CUSTOM_NVME", "CUSTOM_GPU", "COMPUTE_VOLUME_MULTI_ATTACH")]
    seen = provider(
        U1,
        U1,
        {"CUSTOM_M1_SMALL": Inventory(1)},
        traits=frozenset(
            {"CUSTOM_NVME", "CUSTOM_STALE", "COMPUTE_NODE", "OWNER_NOVA", "COMPUTE_STATUS_DISABLED"}
        ),
    )
    found = node_findings(nodes, [seen])
    assert kinds(found) == [("trait-not-on-provider", "a"), ("trait-not-in-ironic", "a")]
    assert "CUSTOM_GPU" in found[0].detail and "MULTI_ATTACH" not in found[0].detail
    assert "CUSTOM_STALE" in found[1].detail and "COMPUTE_NODE" not in found[1].detail
    # The fix sets Ironic's traits and keeps the ones Nova owns that the provider has.
    assert found[0].fix == (
        "openstack resource provider trait set --trait COMPUTE_NODE "
        "--trait COMPUTE_STATUS_DISABLED --trait CUSTOM_GPU --trait CUSTOM_NVME "
        f"--trait OWNER_NOVA {U1}"
    )
    assert "baremetal node add trait a CUSTOM_STALE" in found[1].fix
    assert {"COMPUTE_NODE", "OWNER_NOVA", "COMPUTE_STATUS_DISABLED"} <= NOVA_OWNED_TRAITS


def test_flavor_candidates_name_the_nodes_only_in_one_view() -> None:
    nodes = (
        node(U1, "a", "m1.small", "CUSTOM_X"),
        node(U2, "b", "m1.small", "CUSTOM_X"),
        node(U3, "c", "m1.small", "CUSTOM_X", maintenance=True),
    )
    index = Index.build(Snapshot(nodes))
    rules = [
        FlavorRule("m1.small", "m1.small", frozenset({"CUSTOM_X"}), frozenset()),
        FlavorRule("same", "m1.small", frozenset(), frozenset()),
        FlavorRule("unasked", "m1.small", frozenset(), frozenset()),
    ]
    providers = [provider("p-" + n.uuid, n.uuid) for n in nodes]
    candidates = {
        # Placement offers the node in maintenance and not b (by their provider UUIDs)
        "m1.small": {"p-" + U1, "p-" + U3},
        "same": {"p-" + U1, "p-" + U2},
    }
    found = candidate_findings(index, rules, candidates, providers, Fixes("lab"))
    assert kinds(found) == [("flavor-candidates", "m1.small")]
    assert "only the matcher: b" in found[0].detail
    assert "only Placement: c" in found[0].detail
    assert found[0].fix.endswith("flavorsmith explain m1.small b --cloud lab")


def test_catalog_flavors_against_novas() -> None:
    marker = {"flavorsmith:managed": "true"}
    wanted = [
        Wanted("gone"),
        Wanted("specs", extra_specs={"resources:CUSTOM_A": "1", "trait:CUSTOM_X": "required"}),
        Wanted("public", is_public=False, projects=("p1",)),
        Wanted("access", is_public=False, projects=("p1", "p2")),
        Wanted("adopt"),
        Wanted("aligned", extra_specs={"k": "v"}),
    ]
    nova = {
        "specs": Wanted(
            "specs",
            extra_specs={"resources:CUSTOM_A": "2", "hw:cpu_policy": "dedicated", **marker},
        ),
        "public": Wanted("public", extra_specs=marker),
        "access": Wanted("access", False, ("p1", "p3"), marker),
        "adopt": Wanted("adopt"),
        "aligned": Wanted("aligned", extra_specs={"k": "v", **marker}),
        "unrelated": Wanted("unrelated"),
    }
    found = flavor_findings(wanted, nova, Fixes(), marker)
    assert kinds(found) == [
        ("flavor-access", "access"),
        ("flavor-extra-spec", "adopt"),
        ("flavor-missing", "gone"),
        ("flavor-public", "public"),
        ("flavor-extra-spec", "specs"),
        ("flavor-extra-spec", "specs"),
        ("flavor-extra-spec", "specs"),
    ]
    details = [f.detail for f in found]
    assert details[0] == "Nova also gives it to p3; Nova does not give it to p2"
    assert details[4] == "extra spec hw:cpu_policy=dedicated is in Nova, not in the catalog"
    assert details[5] == "extra spec resources:CUSTOM_A is '2' in Nova, '1' in the catalog"
    assert details[6] == "extra spec trait:CUSTOM_X=required is in the catalog, not in Nova"
    assert found[2].fix == "flavorsmith sync apply --only flavors"
    assert found[1].fix.startswith("openstack flavor set --property flavorsmith:managed=true adopt")
