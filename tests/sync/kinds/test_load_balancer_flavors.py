"""The load-balancer flavor kind: its pure plan (profiles and flavors, replaces where Octavia
changes nothing in place, the managed marker, prune) and whole rounds into the service's own
/load-balancer, on SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog.model import LoadBalancerFlavor, LoadBalancerProfileDef
from flavorsmith.catalog.repo import Repository
from flavorsmith.db.engine import Engine, writer
from flavorsmith.servers_in_use import Servers
from flavorsmith.store import service_flavors as lb_store
from flavorsmith.sync.engine import in_use_refusal, run
from flavorsmith.sync.kinds import BY_NAME
from flavorsmith.sync.kinds.load_balancer_flavors import (
    IN_USE_HINT,
    KIND,
    LbAction,
    ObservedFlavor,
    ObservedProfile,
    ObservedProvider,
    StoreLbFlavors,
    check,
    flavor_key,
    plan,
    profile_key,
    provider_key,
)
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES

SINGLE = {"loadbalancer_topology": "SINGLE"}


def profile(name: str = "single", data: dict[str, Any] | None = None, *flavors: str) -> Any:
    return LoadBalancerProfileDef(
        name,
        "amphora",
        SINGLE if data is None else data,
        tuple(LoadBalancerFlavor(f, f"{f} flavor") for f in (flavors or ("lb.small",))),
    )


def have_profile(ident: str, name: str = "flavorsmith:single", data: str = "") -> ObservedProfile:
    return ObservedProfile(ident, name, "amphora", data or '{"loadbalancer_topology": "SINGLE"}')


def have_flavor(name: str, profile_id: str, managed: bool = True, **kw: Any) -> ObservedFlavor:
    values: dict[str, Any] = {"description": f"{name} flavor", "enabled": True} | kw
    return ObservedFlavor(
        f"id-{name}", name, values["description"], values["enabled"], profile_id, managed
    )


def observed(*objects: ObservedProfile | ObservedFlavor) -> dict[str, Any]:
    return {
        profile_key(o.id) if isinstance(o, ObservedProfile) else flavor_key(o.name): o
        for o in objects
    }


def summary(actions: list[LbAction]) -> list[tuple[str, str]]:
    return [(a.kind, a.subject) for a in actions]


def test_the_kind_is_registered_under_its_command_line_name_and_synced_only_when_named() -> None:
    """Not every cloud has an Octavia: a watcher of one without would fail every round."""
    assert BY_NAME["load-balancer-flavors"] is KIND
    assert (KIND.service, KIND.watched) == ("load_balancer", False)


def test_a_new_catalog_makes_the_profiles_first_with_the_marker_then_their_flavors() -> None:
    actions = plan([profile("single", None, "lb.small", "lb.tiny")], {})
    assert summary(actions) == [
        ("create", "profile single"),
        ("create", "flavor lb.small"),
        ("create", "flavor lb.tiny"),
    ]
    assert actions[0].body == {
        "name": "flavorsmith:single",
        "provider_name": "amphora",
        "flavor_data": '{"loadbalancer_topology": "SINGLE"}',
    }
    assert actions[1].body == {
        "name": "lb.small",
        "description": "lb.small flavor",
        "enabled": True,
    }
    assert actions[1].profile == "single" and actions[1].profile_id is None


def test_equal_objects_are_up_to_date_and_a_description_is_updated_in_place() -> None:
    now = observed(have_profile("p1"), have_flavor("lb.small", "p1"))
    assert summary(plan([profile()], now)) == [
        ("noop", "profile single"),
        ("noop", "flavor lb.small"),
    ]
    now = observed(
        have_profile("p1"), have_flavor("lb.small", "p1", description="old", enabled=False)
    )
    _, update = plan([profile()], now)
    assert (update.kind, update.ident) == ("update", "id-lb.small")
    assert update.body == {"description": "lb.small flavor", "enabled": True}
    assert update.reason == "description changed; enabled changed"


def test_changed_flavor_data_of_an_unused_profile_is_an_update() -> None:
    (action,) = plan(
        [
            LoadBalancerProfileDef(
                "single", "amphora", {"loadbalancer_topology": "ACTIVE_STANDBY"}, ()
            )
        ],
        observed(have_profile("p1")),
    )
    assert (action.kind, action.ident) == ("update", "p1")
    assert action.body == {
        "provider_name": "amphora",
        "flavor_data": '{"loadbalancer_topology": "ACTIVE_STANDBY"}',
    }
    assert [c.as_dict() for c in action.changes] == [
        {
            "op": "change",
            "field": "flavor_data.loadbalancer_topology",
            "old": "SINGLE",
            "new": "ACTIVE_STANDBY",
        }
    ]


def test_changed_flavor_data_of_a_used_profile_replaces_it_and_its_flavors() -> None:
    """Octavia refuses to change a profile a flavor uses, and a flavor's profile ever."""
    now = observed(have_profile("p1"), have_flavor("lb.small", "p1"))
    actions = plan([profile("single", {"loadbalancer_topology": "ACTIVE_STANDBY"})], now)
    assert summary(actions) == [
        ("replace", "profile single"),
        ("replace", "flavor lb.small"),
        ("delete", "profile single"),
    ]
    assert all(c.forces for c in actions[0].changes)
    assert actions[1].ident == "id-lb.small" and actions[1].profile_id is None
    assert actions[2].ident == "p1" and actions[2].reason == "replaced by the new profile"


def test_a_flavor_moved_to_another_profile_is_replaced() -> None:
    now = observed(
        have_profile("p1"),
        have_profile("p2", "flavorsmith:ha", '{"loadbalancer_topology": "ACTIVE_STANDBY"}'),
        have_flavor("lb.small", "p1"),
    )
    ha = LoadBalancerProfileDef(
        "ha",
        "amphora",
        {"loadbalancer_topology": "ACTIVE_STANDBY"},
        (LoadBalancerFlavor("lb.small", "lb.small flavor"),),
    )
    actions = plan([ha], now, prune=True)
    assert summary(actions) == [
        ("noop", "profile ha"),
        ("replace", "flavor lb.small"),
        ("delete", "profile single"),
    ]
    assert actions[1].profile_id == "p2"
    assert [c.as_dict() for c in actions[1].changes] == [
        {"op": "change", "field": "profile", "old": "single", "new": "ha", "forces_replace": True}
    ]


def test_objects_not_synced_from_the_catalog_are_left_alone_or_in_conflict() -> None:
    now = observed(
        have_profile("p9", "by-hand"),
        have_flavor("lb.small", "p9", managed=False),
        have_flavor("lb.theirs", "p9", managed=False),
    )
    actions = plan([profile()], now, prune=True)
    assert summary(actions) == [
        ("create", "profile single"),
        ("conflict", "flavor lb.small"),
        ("unmanaged", "flavor lb.theirs"),
        ("unmanaged", "profile by-hand"),
    ]
    assert "not synced from the catalog" in actions[1].reason


def test_removed_objects_are_kept_without_prune_and_deleted_flavors_first_with_it() -> None:
    now = observed(
        have_profile("p1"),
        have_profile("p2", "flavorsmith:gone"),
        have_flavor("lb.small", "p1"),
        have_flavor("lb.gone", "p2"),
    )
    assert summary(plan([profile()], now)) == [
        ("noop", "profile single"),
        ("noop", "flavor lb.small"),
        ("keep", "flavor lb.gone"),
        ("keep", "profile gone"),
    ]
    assert summary(plan([profile()], now, prune=True)) == [
        ("noop", "profile single"),
        ("noop", "flavor lb.small"),
        ("delete", "flavor lb.gone"),
        ("delete", "profile gone"),
    ]


def test_a_profile_a_kept_flavor_still_uses_is_not_deleted() -> None:
    now = observed(have_profile("p1"), have_flavor("lb.small", "p1"), have_flavor("lb.old", "p1"))
    actions = plan([profile("single", {"loadbalancer_topology": "ACTIVE_STANDBY"})], now)
    assert summary(actions) == [
        ("replace", "profile single"),
        ("replace", "flavor lb.small"),
        ("keep", "flavor lb.old"),
        ("keep", "profile single"),
    ]
    assert actions[-1].reason == "replaced by the new profile, but flavors still use it: lb.old"


def test_flavors_load_balancers_use_refuse_the_apply_in_their_words() -> None:
    used = LbAction(
        "delete", "flavor", "lb.small", "gone", ident="x", servers=Servers(2, noun="load balancer")
    )
    free = LbAction(
        "replace", "flavor", "lb.tiny", "moved", ident="y", servers=Servers(0, noun="load balancer")
    )
    counts, why = in_use_refusal([used, free], KIND.noun, IN_USE_HINT)
    assert counts == {"flavor lb.small": 2}
    assert why == (
        "refused: the plan deletes or replaces a load-balancer flavor in use: flavor lb.small "
        "(2 load balancers); nothing applied. Move those load balancers to another flavor or "
        "delete them first, or apply anyway with --force"
    )
    assert used.servers is not None and used.servers.phrase() == "2 load balancers use it"


@pytest.fixture
def engine(migrated_engine: Engine) -> Iterator[Engine]:
    """The shared database with no flavor profile nor flavor but Octavia's placeholder, before
    the test (another test on this worker may have left its own) and after it."""
    _empty(migrated_engine)
    yield migrated_engine
    _empty(migrated_engine)


def _empty(engine: Engine) -> None:
    with writer(engine).begin() as connection:
        for row in lb_store.flavors(connection):
            if row["id"] != lb_store.NIL:
                lb_store.delete_flavor(connection, row["id"])
        for row in lb_store.profiles(connection):
            lb_store.delete_profile(connection, row["id"])


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "hardware")
    return tmp_path


def test_the_example_catalog_syncs_into_the_service_s_own_load_balancer_api(
    engine: Engine, catalog: Path
) -> None:
    repository = Repository(catalog, RULES)
    target = StoreLbFlavors(engine)
    first = run(KIND, repository, target, prune=False, execute=True)
    assert first.error is None and first.report is not None and not first.report.failed
    assert first.report.changed() == {
        "create": [
            "profile amphora-active-standby",
            "profile amphora-single",
            "flavor lb.ha",
            "flavor lb.ha.trial",
            "flavor lb.standalone",
        ]
    }
    with engine.connect() as connection:
        profiles = {p["id"]: p for p in lb_store.profiles(connection)}
        flavors = {f["name"]: f for f in lb_store.flavors(connection)}
    assert sorted(p["name"] for p in profiles.values()) == [
        "flavorsmith:amphora-active-standby",
        "flavorsmith:amphora-single",
    ]
    assert profiles[flavors["lb.ha"]["flavor_profile_id"]]["flavor_data"] == (
        '{"amp_image_tag": "amphora", "compute_flavor": "amphora.medium", '
        '"loadbalancer_topology": "ACTIVE_STANDBY"}'
    )
    assert flavors["lb.ha.trial"]["enabled"] is False
    again = run(KIND, repository, StoreLbFlavors(engine), prune=True, execute=False)
    assert again.changes == 0 and set(again.summary()) == {"noop"}

    # A changed topology replaces the profile, and the flavor on it; the old profile goes.
    single = catalog / "hardware" / "load-balancer-flavors" / "amphora-single.yaml"
    single.write_text(single.read_text().replace("topology: SINGLE", "topology: ACTIVE_STANDBY"))
    changed = run(KIND, repository, StoreLbFlavors(engine), prune=False, execute=True)
    assert changed.report is not None and not changed.report.failed, changed.as_dict()
    assert changed.report.changed() == {
        "replace": ["profile amphora-single", "flavor lb.standalone"],
        "delete": ["profile amphora-single"],
    }
    with engine.connect() as connection:
        now = {f["name"]: f for f in lb_store.flavors(connection)}
        kept = lb_store.profile(connection, now["lb.standalone"]["flavor_profile_id"])
        assert len(lb_store.profiles(connection)) == 2
    assert kept["name"] == "flavorsmith:amphora-single" and "ACTIVE_STANDBY" in kept["flavor_data"]
    assert now["lb.ha"]["id"] == flavors["lb.ha"]["id"]  # untouched

    # Removing every file prunes nothing unless allowed: the all-gone guard.
    for path in single.parent.iterdir():
        path.unlink()
    kustomization = catalog / "hardware" / "base" / "kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().split("- name: load-balancer-flavors")[0]
        + "- name: load-balancer-providers"
        + kustomization.read_text().split("- name: load-balancer-providers")[1]
    )
    refused = run(KIND, repository, StoreLbFlavors(engine), prune=True, execute=True)
    assert refused.blocked and refused.report is None and refused.refused == 5
    assert refused.error is not None and "all 5 managed load-balancer flavors" in refused.error
    emptied = run(
        KIND, repository, StoreLbFlavors(engine), prune=True, execute=True, allow_empty=True
    )
    assert emptied.report is not None and emptied.report.writes == 5
    with engine.connect() as connection:
        assert lb_store.profiles(connection) == []
        assert lb_store.flavors(connection) == []


def test_a_target_s_providers_check_the_catalog_at_plan_time_naming_file_and_line() -> None:
    """What a real Octavia lists (its providers, their flavor capabilities) is what the plan
    checks the catalog against, at the file and line of each refused key."""
    profiles = Repository(EXAMPLES, RULES).load().catalog.load_balancer_profiles
    older = ObservedProvider("amphora", ("loadbalancer_topology", "compute_flavor"))
    found = check(profiles, {provider_key("amphora"): older})
    assert [(d.path, d.line, d.code) for d in found] == [
        (
            "examples/hardware/load-balancer-flavors/amphora-active-standby.yaml",
            7,
            "load-balancer-unknown-capability",
        ),
        (
            "examples/hardware/load-balancer-flavors/amphora-single.yaml",
            7,
            "load-balancer-unknown-capability",
        ),
    ]
    assert found[0].message == (
        "'amp_image_tag' is not a flavor capability of provider amphora in the target Octavia "
        "(GET /v2/lbaas/providers/amphora/flavor_capabilities); allowed: "
        "loadbalancer_topology, compute_flavor"
    )
    (missing,) = {
        d.message for d in check(profiles, {provider_key("ovn"): ObservedProvider("ovn", ())})
    }
    assert missing == (
        "provider 'amphora' is not enabled in the target Octavia (GET /v2/lbaas/providers): "
        "enabled: ovn"
    )
    # A provider that does not list its capabilities, and a target that lists no provider
    # (the service's own), check nothing.
    assert check(profiles, {provider_key("amphora"): ObservedProvider("amphora", None)}) == []
    assert check(profiles, {}) == []
