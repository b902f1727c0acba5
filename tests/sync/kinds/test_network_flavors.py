"""The network flavor kind's pure parts: what it observes of Neutron's lists (the marker in a
profile's description, loose profiles), its plan (creates, in-place updates, profiles replaced,
a new service type a replace, conflicts, keep and prune) and the engine's guards over it. The
steps and the counts run against the real Neutron in
tests/integration/test_network_flavors_neutron.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flavorsmith.catalog.model import NetworkFlavorDef, NetworkServiceProfile
from flavorsmith.servers_in_use import Servers
from flavorsmith.sync.engine import in_use_refusal, prune_refusal
from flavorsmith.sync.fingerprint import fingerprints
from flavorsmith.sync.kinds import BY_NAME
from flavorsmith.sync.kinds.network_flavors import (
    IN_USE_HINT,
    KIND,
    LooseProfile,
    NetAction,
    ObservedProfile,
    marker,
    observed_of,
    plan,
)

HA = "neutron.services.l3_router.service_providers.ha.HaDriver"
SINGLE = "neutron.services.l3_router.service_providers.single_node.SingleNodeDriver"


def flavor(name: str = "router.ha", *drivers: str, **kw: Any) -> NetworkFlavorDef:
    profiles = tuple(NetworkServiceProfile(d, "", f"{d} profile") for d in (drivers or (HA,)))
    return NetworkFlavorDef(
        name,
        kw.get("service_type", "L3_ROUTER_NAT"),
        profiles,
        kw.get("description", f"{name} flavor"),
        kw.get("enabled", True),
    )


def neutron_profile(
    ident: str, driver: str = HA, flavor: str | None = "router.ha"
) -> dict[str, Any]:
    description = f"{driver} profile" if flavor is None else marker(flavor, f"{driver} profile")
    return {
        "id": ident,
        "driver": driver,
        "metainfo": "",
        "description": description,
        "enabled": True,
    }


def neutron_flavor(
    ident: str, name: str = "router.ha", *profiles: str, **kw: Any
) -> dict[str, Any]:
    return {
        "id": ident,
        "name": name,
        "description": kw.get("description", f"{name} flavor"),
        "service_type": kw.get("service_type", "L3_ROUTER_NAT"),
        "enabled": kw.get("enabled", True),
        "service_profiles": list(profiles),
    }


def summary(actions: list[NetAction]) -> list[tuple[str, str]]:
    return [(a.kind, a.subject) for a in actions]


def test_the_kind_syncs_only_into_a_real_neutron_and_only_when_named() -> None:
    assert BY_NAME["network-flavors"] is KIND
    assert (KIND.service, KIND.store_target, KIND.watched) == ("network", None, False)


def test_the_marker_names_the_flavor_and_keeps_the_catalogs_description() -> None:
    assert marker("router.ha", "HA routers") == "flavorsmith:router.ha: HA routers"
    assert marker("router.ha", None) == "flavorsmith:router.ha"
    seen = ObservedProfile("p1", HA, "", "flavorsmith:router.ha: HA: two nodes", True)
    assert seen.marked_for == "router.ha"
    assert seen.as_catalog()["description"] == "HA: two nodes"
    bare = ObservedProfile("p2", HA, "", "flavorsmith:router.ha", True)
    assert (bare.marked_for, bare.as_catalog()["description"]) == ("router.ha", "")
    theirs = ObservedProfile("p3", HA, "", "made by hand", True)
    assert (theirs.managed, theirs.as_catalog()["description"]) == (False, "made by hand")


def test_a_flavor_is_the_catalogs_when_a_profile_marked_for_it_is_associated() -> None:
    seen = observed_of(
        [
            neutron_flavor("f1", "router.ha", "p1"),
            neutron_flavor("f2", "router.hand", "p2"),
            # marked, but for another flavor's name: not this one's
            neutron_flavor("f3", "router.other", "p1"),
        ],
        [neutron_profile("p1"), neutron_profile("p2", flavor=None)],
    )
    assert {k: v.managed for k, v in seen.items()} == {
        "flavor:f1": True,
        "flavor:f2": False,
        "flavor:f3": False,
    }


def test_a_profile_no_flavor_uses_is_loose_and_not_counted_as_managed() -> None:
    """A round stopped between making a flavor and associating its profile: the flavor, with
    no profile at all, is taken back through the loose profile marked for it."""
    seen = observed_of(
        [neutron_flavor("f1", "router.ha")],
        [neutron_profile("p1"), neutron_profile("p2", flavor=None)],
    )
    assert set(seen) == {"flavor:f1", "profile:p1"}  # a loose profile not the catalog's: unseen
    loose = seen["profile:p1"]
    assert isinstance(loose, LooseProfile) and not loose.managed
    assert seen["flavor:f1"].managed
    (action,) = plan([flavor()], seen)
    assert (action.kind, action.reuse, action.make) == ("update", ("p1",), ())
    assert action.changes[0].field == "service_profiles[0]"


def test_a_new_catalog_makes_each_flavor_with_its_marked_profiles() -> None:
    actions = plan([flavor("router.standard", SINGLE), flavor("router.ha", HA)], {})
    assert summary(actions) == [
        ("create", "flavor router.ha"),
        ("create", "flavor router.standard"),
    ]
    create = actions[0]
    assert create.body == {
        "name": "router.ha",
        "service_type": "L3_ROUTER_NAT",
        "description": "router.ha flavor",
        "enabled": True,
    }
    assert create.make == (
        {
            "driver": HA,
            "metainfo": "",
            "description": f"flavorsmith:router.ha: {HA} profile",
            "enabled": True,
        },
    )
    assert [c.field for c in create.changes] == [
        "service_type",
        "description",
        "enabled",
        "service_profiles[0]",
    ]


def test_equal_flavors_are_up_to_date_and_fields_change_in_place() -> None:
    profiles = [neutron_profile("p1")]
    same = observed_of([neutron_flavor("f1", "router.ha", "p1")], profiles)
    assert summary(plan([flavor()], same)) == [("noop", "flavor router.ha")]
    changed = observed_of(
        [neutron_flavor("f1", "router.ha", "p1", description="old", enabled=False)], profiles
    )
    (update,) = plan([flavor()], changed)
    assert (update.kind, update.ident, update.make, update.drop) == ("update", "f1", (), ())
    assert update.body == {"description": "router.ha flavor", "enabled": True}
    assert update.reason == "description changed; enabled changed"


def test_a_changed_profile_is_a_new_one_and_the_old_one_removed() -> None:
    seen = observed_of([neutron_flavor("f1", "router.ha", "p1")], [neutron_profile("p1")])
    (update,) = plan([flavor("router.ha", SINGLE)], seen)
    assert (update.kind, update.body, update.drop) == ("update", {}, ("p1",))
    assert [m["driver"] for m in update.make] == [SINGLE]
    assert [(c.op, c.field) for c in update.changes] == [
        ("add", "service_profiles[0]"),
        ("remove", "service_profiles"),
    ]
    assert "Neutron changes no profile a flavor uses" in update.reason


def test_a_profile_made_by_hand_on_a_catalog_flavor_is_left_alone() -> None:
    seen = observed_of(
        [neutron_flavor("f1", "router.ha", "p1", "p2")],
        [neutron_profile("p1"), neutron_profile("p2", SINGLE, flavor=None)],
    )
    assert summary(plan([flavor()], seen)) == [("noop", "flavor router.ha")]


def test_a_new_service_type_replaces_the_flavor() -> None:
    seen = observed_of(
        [neutron_flavor("f1", "router.ha", "p1", service_type="CORE")], [neutron_profile("p1")]
    )
    (action,) = plan([flavor()], seen)
    assert (action.kind, action.ident, action.drop) == ("replace", "f1", ("p1",))
    assert action.changes[0].forces and action.changes[0].field == "service_type"
    assert "Neutron never changes in place" in action.reason
    assert len(action.make) == 1


def test_a_flavor_of_the_catalogs_name_made_by_hand_is_a_conflict() -> None:
    seen = observed_of(
        [neutron_flavor("f1", "router.ha", "p1")], [neutron_profile("p1", flavor=None)]
    )
    (action,) = plan([flavor()], seen)
    assert (action.kind, action.writes) == ("conflict", False)
    assert "a network flavor named router.ha exists that is not synced" in action.reason


def test_a_flavor_gone_from_the_catalog_is_kept_until_pruned_with_its_profiles() -> None:
    seen = observed_of(
        [neutron_flavor("f1", "router.ha", "p1"), neutron_flavor("f2", "router.hand")],
        [neutron_profile("p1"), neutron_profile("p9", flavor="router.ha")],  # p9: loose
    )
    assert summary(plan([], seen)) == [
        ("keep", "flavor router.ha"),
        ("unmanaged", "flavor router.hand"),
    ]
    delete, _ = plan([], seen, prune=True)
    assert (delete.kind, delete.ident, delete.drop, delete.discard) == (
        "delete",
        "f1",
        ("p1",),
        ("p9",),
    )


def test_pruning_every_catalog_flavor_is_refused_loose_profiles_or_not() -> None:
    seen = observed_of(
        [neutron_flavor("f1", "router.ha", "p1")],
        [neutron_profile("p1"), neutron_profile("p9", flavor="router.std")],
    )
    actions = plan([], seen, prune=True)
    refused, why = prune_refusal(actions, seen, KIND.noun)
    assert refused == 1
    assert why is not None and "the only managed network flavor" in why


def test_a_flavor_routers_use_is_refused_with_their_count_and_what_to_do() -> None:
    seen = observed_of([neutron_flavor("f1", "router.ha", "p1")], [neutron_profile("p1")])
    (delete,) = plan([], seen, prune=True)
    counted = replace(delete, servers=Servers(2, noun="router"))
    used, why = in_use_refusal([counted], KIND.noun, IN_USE_HINT)
    assert used == {"flavor router.ha": 2}
    assert why == (
        "refused: the plan deletes or replaces a network flavor in use: flavor router.ha (2 "
        "routers); nothing applied. Delete those routers first (Neutron moves no router to "
        "another flavor), or apply anyway with --force"
    )
    assert counted.servers is not None and counted.servers.phrase() == "2 routers use it"


def test_the_first_of_two_catalog_flavors_of_one_name_is_kept_the_other_pruned() -> None:
    seen = observed_of(
        [neutron_flavor("f2", "router.ha", "p2"), neutron_flavor("f1", "router.ha", "p1")],
        [neutron_profile("p1"), neutron_profile("p2")],
    )
    assert summary(plan([flavor()], seen)) == [
        ("noop", "flavor router.ha"),
        ("keep", "flavor router.ha"),
    ]
    _, second = plan([flavor()], seen, prune=True)
    assert (second.kind, second.ident) == ("delete", "f2")
    assert second.reason == "another flavor of this name synced from the catalog"


def test_a_profiles_change_changes_its_flavors_fingerprint() -> None:
    """A saved plan records each observed flavor's fingerprint: a change Neutron shows of one of
    its profiles makes applying the plan refuse, as a change of the flavor itself does."""
    first = fingerprints(
        observed_of([neutron_flavor("f1", "router.ha", "p1")], [neutron_profile("p1")])
    )
    other = fingerprints(
        observed_of(
            [neutron_flavor("f1", "router.ha", "p1")],
            [{**neutron_profile("p1"), "enabled": False}],
        )
    )
    assert list(first) == list(other) == ["flavor:f1"]
    assert first["flavor:f1"] != other["flavor:f1"]
