"""``sync plan|apply --only network-flavors`` against the real Neutron 29 of the test support
(started once for the module): the example catalog's two router flavors sync in and a second
plan is empty; a change shows as a diff and applies; a removed flavor is deleted only with
--prune; a flavor a router uses is not deleted without --force; the catalog never takes over a
flavor of its name made by hand; and without --cloud or --endpoint there is no target."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog.repo import Repository
from flavorsmith.clients.cloud import connect
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds import BY_NAME
from flavorsmith.sync.kinds.network_flavors import SdkNetFlavors
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES
from tests.support.neutron_api import Neutron, sdk_connection

pytestmark = pytest.mark.slow
KIND = BY_NAME["network-flavors"]
FOLDER = "hardware/network-flavors"
SINGLE_NODE = "neutron.services.l3_router.service_providers.single_node.SingleNodeDriver"
HA = "neutron.services.l3_router.service_providers.ha.HaDriver"
DVR = "neutron.services.l3_router.service_providers.dvr.DvrDriver"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the example catalog."""
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "hardware")
    return tmp_path


def target(neutron: Neutron) -> SdkNetFlavors:
    return SdkNetFlavors(connect(None, "network", neutron.url))


def held(neutron: Neutron) -> dict[str, dict[str, Any]]:
    """Neutron's flavors by name, each with its associated profiles (listed in full)."""
    client = target(neutron)
    profiles = {p["id"]: p for p in client.service_profiles()}
    return {
        f["name"]: {**f, "service_profiles": [profiles[i] for i in f["service_profiles"]]}
        for f in client.flavors()
    }


def sync(cli: Invoke, neutron: Neutron, root: Path, verb: str, *more: str) -> Any:
    args = ["sync", verb, "--only", "network-flavors", "--repo", str(root)]
    args += ["--endpoint", neutron.url, *more]
    return cli(*args, *(["--yes"] if verb == "apply" else []))


def test_two_router_flavors_sync_in_and_a_second_plan_is_empty(
    clean_neutron: Neutron, root: Path, cli: Invoke
) -> None:
    planned = sync(cli, clean_neutron, root, "plan")
    assert planned.exit_code == 0, planned.output
    assert planned.stdout == (
        "+ create network flavor router.ha\n"
        '    + service_type: "L3_ROUTER_NAT"\n'
        '    + description: "A router kept on two network nodes by VRRP; a failed node is taken'
        ' over in seconds"\n'
        "    + enabled: true\n"
        f'    + service_profiles[0]: {{"driver": "{HA}", "metainfo": "", "description": "HA'
        ' routers, active on one L3 agent and standby on another", "enabled": true}\n'
        "+ create network flavor router.standard\n"
        '    + service_type: "L3_ROUTER_NAT"\n'
        '    + description: "A router on one network node; it moves to another if that node'
        ' fails"\n'
        "    + enabled: true\n"
        f'    + service_profiles[0]: {{"driver": "{SINGLE_NODE}", "metainfo": "", "description":'
        ' "Legacy routers, one L3 agent each", "enabled": true}\n'
        "Plan: 2 changes (2 to create).\n"
    )
    applied = sync(cli, clean_neutron, root, "apply")
    assert applied.exit_code == 0, applied.output
    # Each flavor: made (1), its profile made (1) and associated (1); the observation: 2 lists.
    assert applied.stdout.splitlines()[-1] == "2 changes, 0 failed, 8 API calls"
    flavors = held(clean_neutron)
    assert sorted(flavors) == ["router.ha", "router.standard"]
    ha = flavors["router.ha"]
    assert (ha["service_type"], ha["enabled"]) == ("L3_ROUTER_NAT", True)
    [profile] = ha["service_profiles"]
    assert (profile["driver"], profile["metainfo"], profile["enabled"]) == (HA, "", True)
    assert profile["description"] == (
        "flavorsmith:router.ha: HA routers, active on one L3 agent and standby on another"
    )
    # A router can be made with each: the flavor's profile names a driver Neutron serves.
    network = sdk_connection(clean_neutron.url).network
    for name in ("router.ha", "router.standard"):
        router = network.create_router(name=f"uses-{name}", flavor_id=flavors[name]["id"])
        assert router.flavor_id == flavors[name]["id"]

    again = sync(cli, clean_neutron, root, "plan")
    assert again.stdout == "No changes. 2 up to date.\n"


def test_a_change_shows_a_diff_and_applies(clean_neutron: Neutron, root: Path, cli: Invoke) -> None:
    assert sync(cli, clean_neutron, root, "apply").exit_code == 0
    before = held(clean_neutron)["router.standard"]
    standard = root / FOLDER / "router.standard.yaml"
    standard.write_text(
        standard.read_text()
        .replace("if that node fails", "if that node fails; for development")
        .replace(SINGLE_NODE, DVR)
        .replace("Legacy routers, one L3 agent each", "Distributed routers")
        + "enabled: false\n"
    )
    planned = sync(cli, clean_neutron, root, "plan")
    assert planned.stdout == (
        "~ update network flavor router.standard\n"
        '    ~ description: "A router on one network node; it moves to another if that node'
        ' fails" → "A router on one network node; it moves to another if that node fails; for'
        ' development"\n'
        "    ~ enabled: true → false\n"
        f'    + service_profiles[0]: {{"driver": "{DVR}", "metainfo": "", "description":'
        ' "Distributed routers", "enabled": true}\n'
        f'    - service_profiles: {{"driver": "{SINGLE_NODE}", "metainfo": "", "description":'
        ' "Legacy routers, one L3 agent each", "enabled": true}\n'
        "Plan: 1 change (1 to update). 1 up to date.\n"
    )
    saved = root / "plan.json"
    assert sync(cli, clean_neutron, root, "plan", "--out", str(saved)).exit_code == 0
    reasons = [a["reason"] for a in json.loads(saved.read_text())["actions"]]
    assert reasons[1] == (
        "description changed; enabled changed; service profiles changed (Neutron changes no "
        "profile a flavor uses: a new one is associated, the old one removed)"
    )
    applied = cli(
        "sync", "apply", str(saved), "--repo", str(root), "--endpoint", clean_neutron.url, "--yes"
    )  # fmt: skip
    assert applied.exit_code == 0, applied.output
    after = held(clean_neutron)["router.standard"]
    assert after["id"] == before["id"]  # changed in place
    assert (after["description"].endswith("for development"), after["enabled"]) == (True, False)
    assert [p["driver"] for p in after["service_profiles"]] == [DVR]
    # The old profile is gone, not only disassociated.
    assert sorted(p["driver"] for p in target(clean_neutron).service_profiles()) == sorted(
        [HA, DVR]
    )
    assert sync(cli, clean_neutron, root, "plan").stdout == "No changes. 2 up to date.\n"


def remove(root: Path, name: str) -> None:
    (root / FOLDER / f"{name}.yaml").unlink()
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    line = f"  - {name}.yaml=../network-flavors/{name}.yaml\n"
    kustomization.write_text(kustomization.read_text().replace(line, ""))


def test_a_removed_flavor_is_deleted_only_with_prune(
    clean_neutron: Neutron, root: Path, cli: Invoke
) -> None:
    assert sync(cli, clean_neutron, root, "apply").exit_code == 0
    remove(root, "router.ha")
    kept = sync(cli, clean_neutron, root, "apply")
    assert kept.exit_code == 0, kept.output
    assert re.search(r"\| keep +\| flavor router\.ha +\| synced from the catalog", kept.stdout)
    assert sorted(held(clean_neutron)) == ["router.ha", "router.standard"]

    pruned = sync(cli, clean_neutron, root, "apply", "--prune")
    assert pruned.exit_code == 0, pruned.output
    assert sorted(held(clean_neutron)) == ["router.standard"]
    # Its profile went with it.
    assert [p["driver"] for p in target(clean_neutron).service_profiles()] == [SINGLE_NODE]

    # Pruning the last one is refused unless allowed: a wrong --repo looks the same.
    remove(root, "router.standard")
    refused = sync(cli, clean_neutron, root, "apply", "--prune")
    assert refused.exit_code != 0
    assert "pruning would delete the only managed network flavor" in refused.stderr
    assert sorted(held(clean_neutron)) == ["router.standard"]


def test_a_flavor_a_router_uses_is_not_deleted_without_force(
    clean_neutron: Neutron, root: Path, cli: Invoke
) -> None:
    assert sync(cli, clean_neutron, root, "apply").exit_code == 0
    used = held(clean_neutron)["router.ha"]
    sdk_connection(clean_neutron.url).network.create_router(name="busy", flavor_id=used["id"])
    remove(root, "router.ha")

    planned = sync(cli, clean_neutron, root, "plan", "--prune")
    assert "- delete network flavor router.ha (1 router uses it)" in planned.stdout
    refused = sync(cli, clean_neutron, root, "apply", "--prune")
    assert refused.exit_code != 0
    assert (
        "error: refused: the plan deletes or replaces a network flavor in use: flavor router.ha"
        " (1 router); nothing applied. Delete those routers first (Neutron moves no router to"
        " another flavor), or apply anyway with --force"
    ) in refused.stderr
    assert held(clean_neutron)["router.ha"] == used

    # Forced, Neutron itself refuses, and the flavor keeps its profile.
    result = run(
        KIND, Repository(root, RULES), target(clean_neutron), prune=True, execute=True, force=True
    )
    assert result.report is not None
    [failed] = result.report.failed
    assert failed.action.subject == "flavor router.ha"
    assert "(FlavorInUse)" in str(failed.error)
    assert held(clean_neutron)["router.ha"] == used


def test_a_flavor_of_the_catalogs_name_made_by_hand_is_a_conflict(
    clean_neutron: Neutron, root: Path, cli: Invoke
) -> None:
    client = target(clean_neutron)
    theirs = client.create_flavor(name="router.ha", service_type="L3_ROUTER_NAT")
    profile = client.create_service_profile(driver=HA, description="made by hand")
    client.associate(theirs["id"], profile["id"])
    result = run(KIND, Repository(root, RULES), client, prune=True, execute=True)
    assert result.report is not None
    assert [(a.kind, a.subject) for a in result.actions] == [
        ("conflict", "flavor router.ha"),
        ("create", "flavor router.standard"),
    ]
    assert [o.action.subject for o in result.report.failed] == ["flavor router.ha"]
    flavors = held(clean_neutron)
    assert flavors["router.ha"]["id"] == theirs["id"]  # left alone, not taken over
    assert flavors["router.ha"]["service_profiles"][0]["description"] == "made by hand"


def test_an_interrupted_round_is_taken_up_again(clean_neutron: Neutron, root: Path) -> None:
    """A flavor made but its profile not yet associated (the round stopped between the two):
    the next round takes the flavor and the loose profile back instead of calling the flavor
    someone else's."""
    client = target(clean_neutron)
    flavor = client.create_flavor(
        name="router.ha",
        service_type="L3_ROUTER_NAT",
        description="A router kept on two network nodes by VRRP; a failed node is taken over"
        " in seconds",
    )
    loose = client.create_service_profile(
        driver=HA,
        description="flavorsmith:router.ha: HA routers, active on one L3 agent and standby on "
        "another",
    )
    result = run(KIND, Repository(root, RULES), client, prune=False, execute=True)
    assert result.report is not None and not result.report.failed
    ha = next(a for a in result.actions if a.subject == "flavor router.ha")
    assert (ha.kind, ha.reuse) == ("update", (loose["id"],))
    flavors = held(clean_neutron)
    assert flavors["router.ha"]["id"] == flavor["id"]
    assert [p["id"] for p in flavors["router.ha"]["service_profiles"]] == [loose["id"]]


def test_a_service_type_neutron_will_not_change_is_a_replace(
    clean_neutron: Neutron, root: Path, cli: Invoke
) -> None:
    """A catalog flavor Neutron holds with another service type (made so by hand: the catalog
    allows one type) is deleted and made again, and the plan says why; Neutron itself refuses
    the update."""
    client = target(clean_neutron)
    old = client.create_flavor(
        name="router.ha",
        service_type="CORE",
        description="A router kept on two network nodes by VRRP; a failed node is taken over"
        " in seconds",
    )
    profile = client.create_service_profile(
        driver=HA,
        description="flavorsmith:router.ha: HA routers, active on one L3 agent and standby on "
        "another",
    )
    client.associate(old["id"], profile["id"])
    planned = sync(cli, clean_neutron, root, "plan")
    assert planned.stdout.startswith(
        "-/+ replace network flavor router.ha (service_type forces replacement; no routers use"
        ' it)\n    ~ service_type: "CORE" → "L3_ROUTER_NAT" (forces replacement)\n'
    ), planned.stdout
    saved = root / "plan.json"
    assert sync(cli, clean_neutron, root, "plan", "--out", str(saved)).exit_code == 0
    [replaced] = [a for a in json.loads(saved.read_text())["actions"] if a["action"] == "replace"]
    assert replaced["reason"] == (
        "its service_type changed, which Neutron never changes in place: the flavor is deleted "
        "and made again"
    )
    assert replaced["servers"] == {"count": 0, "scope": "all_projects", "of": "router"}

    applied = sync(cli, clean_neutron, root, "apply")
    assert applied.exit_code == 0, applied.output
    new = held(clean_neutron)["router.ha"]
    assert (new["service_type"], new["id"] != old["id"]) == ("L3_ROUTER_NAT", True)
    assert [p["driver"] for p in new["service_profiles"]] == [HA]
    assert profile["id"] not in {p["id"] for p in client.service_profiles()}  # the old one went
    assert sync(cli, clean_neutron, root, "plan").stdout == "No changes. 2 up to date.\n"


def test_a_driver_neutron_refuses_leaves_no_flavor_behind(
    clean_neutron: Neutron, root: Path
) -> None:
    """A profile whose driver Neutron has not configured is refused in Neutron's words; the
    flavor is not made without it, and once the catalog is fixed the profile made before the
    refused one is taken back, not made twice."""
    ha = root / FOLDER / "router.ha.yaml"
    ha.write_text(ha.read_text() + "  - driver: example.routers.NoSuchDriver\n")
    client = target(clean_neutron)
    result = run(KIND, Repository(root, RULES), client, prune=False, execute=True)
    assert result.report is not None
    [failed] = result.report.failed
    assert failed.action.subject == "flavor router.ha"
    assert failed.error == (
        "POST /service_profiles: 404 Service Profile driver example.routers.NoSuchDriver could "
        "not be found. (ServiceProfileDriverNotFound)"
    )
    assert sorted(held(clean_neutron)) == ["router.standard"]
    [loose] = [p for p in client.service_profiles() if p["driver"] == HA]
    assert loose["description"].startswith("flavorsmith:router.ha: ")

    ha.write_text(ha.read_text().replace("  - driver: example.routers.NoSuchDriver\n", ""))
    again = run(KIND, Repository(root, RULES), client, prune=False, execute=True)
    assert again.report is not None and not again.report.failed
    made = next(a for a in again.actions if a.subject == "flavor router.ha")
    assert (made.kind, made.reuse, made.make) == ("create", (loose["id"],), ())
    assert [p["id"] for p in held(clean_neutron)["router.ha"]["service_profiles"]] == [loose["id"]]
    assert len(client.service_profiles()) == 2


def test_without_a_cloud_or_an_endpoint_there_is_no_target(root: Path, cli: Invoke) -> None:
    result = cli("sync", "plan", "--only", "network-flavors", "--repo", str(root))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: network-flavors cannot be synced into the service's own database, only into a "
        "real cloud's network service (give --cloud or --endpoint)\n"
    )
