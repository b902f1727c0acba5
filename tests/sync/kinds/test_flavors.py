"""The sync plan is a pure diff: every kind of action, with its reason."""

from __future__ import annotations

from dataclasses import replace

from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.sync.kinds.nova_flavors import MARKER, ObservedFlavor, plan
from flavorsmith.sync.report import Change

SPECS = {"resources:CUSTOM_M1_SMALL": "1", "resources:VCPU": "0"}


def want(flavor_id: str = "m1.small", **changes: object) -> DerivedFlavor:
    base = DerivedFlavor(flavor_id, flavor_id, "Small", True, (), 16, 131072, 480, dict(SPECS))
    return replace(base, **changes)  # type: ignore[arg-type]


def have(flavor_id: str = "m1.small", managed: bool = True, **changes: object) -> ObservedFlavor:
    specs = {**SPECS, MARKER: "true"} if managed else dict(SPECS)
    base = ObservedFlavor(flavor_id, flavor_id, 16, 131072, 480, 0, 0, True, "Small", specs)
    return replace(base, **changes)  # type: ignore[arg-type]


def kinds(actions: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(a.kind, a.flavor) for a in actions]


def test_create_and_noop() -> None:
    assert kinds(plan([want()], {})) == [("create", "m1.small")]
    assert kinds(plan([want()], {"m1.small": have()})) == [("noop", "m1.small")]


def test_update_in_place_sets_only_changes_and_unsets_removed_keys() -> None:
    observed = have(
        description="Old",
        extra_specs={**SPECS, MARKER: "true", "resources:VCPU": "1", "old:key": "x"},
    )
    (action,) = plan([want()], {"m1.small": observed})
    assert action.kind == "update"
    assert action.set_specs == {"resources:VCPU": "0"}
    assert action.unset_specs == ("old:key",)
    assert action.change_description and action.description == "Small"
    assert (
        action.reason
        == "description changed; extra specs to set: resources:VCPU; extra specs to unset: old:key"
    )


def test_immutable_change_is_a_replace_with_the_same_id() -> None:
    (action,) = plan([want(ram=262144)], {"m1.small": have()})
    assert action.kind == "replace" and action.flavor == "m1.small"
    assert (
        action.reason
        == "Nova cannot change ram 131072 -> 262144 in place; delete and create with the same id"
    )
    (public,) = plan([want(is_public=False, projects=("p1",))], {"m1.small": have()})
    assert public.kind == "replace"


def test_access_changes_only_the_differences() -> None:
    desired = want(is_public=False, projects=("p1", "p2"))
    observed = have(is_public=False, projects=("p2", "p3"))
    (action,) = plan([desired], {"m1.small": observed})
    assert (action.kind, action.add_projects, action.remove_projects) == (
        "access",
        ("p1",),
        ("p3",),
    )


def test_prune_deletes_only_managed_flavors() -> None:
    observed = {"old": have("old"), "manual": have("manual", managed=False)}
    assert kinds(plan([], observed)) == [("unmanaged", "manual"), ("keep", "old")]
    assert kinds(plan([], observed, prune=True)) == [("unmanaged", "manual"), ("delete", "old")]


def test_unmanaged_flavor_in_the_way_is_a_conflict() -> None:
    (action,) = plan([want()], {"m1.small": have(managed=False, extra_specs={"x": "y"})})
    assert action.kind == "conflict"
    assert "not managed by Flavorsmith" in action.reason
    (by_name,) = plan([want()], {"other-id": have("other-id", managed=False, name="m1.small")})[:1]
    assert by_name.kind == "conflict" and "named 'm1.small' with id 'other-id'" in by_name.reason


def test_an_interrupted_create_is_repaired() -> None:
    bare = have(managed=False, extra_specs={})
    (action,) = plan([want()], {"m1.small": bare})
    assert action.kind == "repair" and action.set_specs == {**SPECS, MARKER: "true"}
    assert action.writes and [c.field for c in action.changes] == [
        "extra_specs.flavorsmith:managed",
        "extra_specs.resources:CUSTOM_M1_SMALL",
        "extra_specs.resources:VCPU",
    ]
    some = have(managed=False, extra_specs={"resources:VCPU": "0"}, description="Old")
    (partly,) = plan([want()], {"m1.small": some})
    assert partly.kind == "repair" and partly.change_description
    assert partly.set_specs == {"resources:CUSTOM_M1_SMALL": "1", MARKER: "true"}
    assert partly.reason.endswith("set its extra specs; change its description")


def test_a_half_made_private_flavor_gets_its_missing_projects() -> None:
    desired = want(is_public=False, projects=("p1", "p2"))
    some = have(managed=False, extra_specs={}, is_public=False, projects=("p2",))
    (action,) = plan([desired], {"m1.small": some})
    assert (action.kind, action.add_projects) == ("repair", ("p1",))
    assert action.changes[-1] == Change("add", "access", new="p1")


def test_only_what_the_catalog_would_write_is_half_made() -> None:
    foreign = {
        "a spec of its own": have(managed=False, extra_specs={"x": "y"}),
        "another value": have(managed=False, extra_specs={"resources:VCPU": "1"}),
        "another name": have(managed=False, extra_specs={}, name="small"),
        "other properties": have(managed=False, extra_specs={}, ram=1),
        "public": have(managed=False, extra_specs={}, is_public=True),
    }
    private = want(is_public=False, projects=("p1",))
    for why, observed in foreign.items():
        if why == "public":
            (action,) = plan([private], {"m1.small": observed})
        else:
            (action,) = plan([want()], {"m1.small": observed})
        assert action.kind == "conflict", why
    stranger = have(managed=False, extra_specs={}, is_public=False, projects=("p9",))
    (action,) = plan([private], {"m1.small": stranger})
    assert action.kind == "conflict"
