"""Network flavors in a review, on the example catalog changed in memory: a new service_type is a
flavor Neutron's sync would replace, profiles listed in another order are no change, a flavor
disabled is changed in place, and the review's Markdown says each as the sync plan would do it.
(A service_type other than L3_ROUTER_NAT is a schema error in a file, so only a catalog made in
memory can hold one: the review's rule must still follow the sync's if the schema allows more.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from flavorsmith.catalog.model import Catalog, NetworkFlavorDef
from flavorsmith.catalog.repo import Repository
from flavorsmith.cli.review import render
from flavorsmith.matching import review as diff
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import Snapshot
from flavorsmith.sync.review import net_replaced
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES


@pytest.fixture(scope="module")
def base() -> Catalog:
    return Repository(EXAMPLES, RULES).load().catalog


def changed(catalog: Catalog, name: str, **fields: Any) -> Catalog:
    """``catalog`` with the network flavor ``name``'s ``fields`` replaced."""
    flavors = tuple(
        dataclasses.replace(f, **fields) if f.name == name else f for f in catalog.network_flavors
    )
    return dataclasses.replace(catalog, network_flavors=flavors)


def ha(catalog: Catalog) -> NetworkFlavorDef:
    return next(f for f in catalog.network_flavors if f.name == "router.ha")


def test_a_new_service_type_is_a_replaced_flavor(base: Catalog) -> None:
    head = changed(base, "router.ha", service_type="FIREWALL")
    plan = net_replaced(base, head)
    assert plan == diff.NetReplaced(flavors=frozenset({"router.ha"}))
    result = diff.review(base, head, Index.build(Snapshot()), net_replaced=plan)
    (entry,) = result.as_dict()["network_flavors"]
    assert entry == {
        "flavor": "router.ha",
        "status": "changed",
        "changes": [{"field": "service_type", "before": "L3_ROUTER_NAT", "after": "FIREWALL"}],
        "replaced": True,
        "profiles": {"made": [], "removed": []},
    }
    assert diff.headline(result) == "network flavor router.ha changed (service_type), replaced"
    assert render.markdown(result, "a", "b", ()).splitlines()[4:10] == [
        "<details><summary>Network flavors (1 changed)</summary>",
        "",
        "- flavor router.ha: changed (service_type); replaced: Neutron never changes a "
        "service_type, so it is deleted and made again with its profiles (refused while routers "
        "use it)",
        '- flavor router.ha service_type: "L3_ROUTER_NAT" → "FIREWALL"',
        "",
        "</details>",
    ]


def test_profiles_listed_in_another_order_are_no_change(base: Catalog) -> None:
    profile = ha(base).service_profiles[0]
    other = dataclasses.replace(profile, metainfo='{"az": "b"}', enabled=False)
    two = changed(base, "router.ha", service_profiles=(profile, other))
    swapped = changed(base, "router.ha", service_profiles=(other, profile))
    assert net_replaced(two, swapped) == diff.NetReplaced()
    assert diff.network_flavor_changes(two.network_flavors, swapped.network_flavors) == []


def test_a_flavor_disabled_is_changed_in_place(base: Catalog) -> None:
    head = changed(base, "router.ha", enabled=False)
    plan = net_replaced(base, head)
    assert plan == diff.NetReplaced()
    assert diff.network_flavor_changes(base.network_flavors, head.network_flavors, plan) == [
        diff.NetFlavorDiff("router.ha", "changed", (diff.FieldChange("enabled", True, False),))
    ]


def test_a_profile_added_is_made_and_none_removed(base: Catalog) -> None:
    profile = ha(base).service_profiles[0]
    more = dataclasses.replace(profile, metainfo='{"az": "b"}')
    head = changed(base, "router.ha", service_profiles=(profile, more))
    plan = net_replaced(base, head)
    assert plan.flavors == frozenset()
    assert plan.made == {"router.ha": (more.as_dict(),)}
    assert plan.removed == {}
    (entry,) = diff.network_flavor_changes(base.network_flavors, head.network_flavors, plan)
    assert entry.changes == (diff.FieldChange("service_profiles[1]", None, more.as_dict()),)
    assert (entry.made, entry.removed) == ((more.as_dict(),), ())
