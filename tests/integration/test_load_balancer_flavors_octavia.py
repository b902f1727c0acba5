"""``sync plan|apply --only load-balancer-flavors`` against the real Octavia 19 of the test
support: a catalog with two profiles and three flavors syncs in and a second plan is empty;
an unknown capability is refused at plan time, at its file and line, from what Octavia itself
lists; a flavor a load balancer uses is neither deleted nor replaced without --force."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path

import pytest

from flavorsmith.catalog.repo import Repository
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds import BY_NAME
from flavorsmith.sync.kinds.load_balancer_flavors import SdkLbFlavors
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES
from tests.support.octavia_api import Octavia, sdk_connection

pytestmark = pytest.mark.slow
KIND = BY_NAME["load-balancer-flavors"]
FOLDER = "hardware/load-balancer-flavors"


@pytest.fixture
def catalog(tmp_path: Path) -> tuple[Path, str]:
    """The example catalog with its two profiles and three flavors named for this test only
    (the session's Octavia is shared): ``(root, suffix)``."""
    suffix = uuid.uuid4().hex[:6]
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "hardware")
    for path in (tmp_path / FOLDER).iterdir():
        text = re.sub(r"name: (lb\.[a-z.]+)$", rf"name: \1-{suffix}", path.read_text(), flags=re.M)
        text = text.replace(f"name: {path.stem}", f"name: {path.stem}-{suffix}")
        path.with_name(f"{path.stem}-{suffix}.yaml").write_text(text)
        path.unlink()
    kustomization = tmp_path / "hardware" / "base" / "kustomization.yaml"
    text = kustomization.read_text()
    for stem in ("amphora-single", "amphora-active-standby"):
        text = text.replace(f"{stem}.yaml", f"{stem}-{suffix}.yaml")
    kustomization.write_text(text)
    return tmp_path, suffix


def target(octavia: Octavia) -> SdkLbFlavors:
    return SdkLbFlavors(sdk_connection(octavia, timeout=60))


def ours(octavia: Octavia, suffix: str) -> tuple[dict[str, str], dict[str, dict[str, object]]]:
    """This test's profiles (name -> flavor data) and flavors (name -> flavor), as Octavia
    lists them."""
    profiles = octavia.call("GET", "/v2/lbaas/flavorprofiles")["flavorprofiles"]
    flavors = octavia.call("GET", "/v2/lbaas/flavors")["flavors"]
    return (
        {p["name"]: p["flavor_data"] for p in profiles if suffix in p["name"]},
        {f["name"]: f for f in flavors if suffix in (f["name"] or "")},
    )


def test_two_profiles_and_three_flavors_sync_in_and_a_second_plan_is_empty(
    octavia: Octavia, catalog: tuple[Path, str], cli: Invoke
) -> None:
    root, suffix = catalog
    planned = cli(
        "sync", "plan", "--only", "load-balancer-flavors", "--repo", str(root),
        "--endpoint", octavia.url, "-f", "json",
    )  # fmt: skip
    assert planned.exit_code == 0, planned.output
    body = json.loads(planned.stdout)
    # Octavia's own providers are observed (what the plan checked the catalog against).
    assert "provider:amphora" in body["observed"]
    mine = [a for a in body["actions"] if suffix in a["subject"]]
    assert [(a["action"], a["subject"]) for a in mine] == [
        ("create", f"profile amphora-active-standby-{suffix}"),
        ("create", f"profile amphora-single-{suffix}"),
        ("create", f"flavor lb.ha-{suffix}"),
        ("create", f"flavor lb.ha.trial-{suffix}"),
        ("create", f"flavor lb.standalone-{suffix}"),
    ]
    result = run(KIND, Repository(root, RULES), target(octavia), prune=False, execute=True)
    assert result.error is None and result.report is not None, result.as_dict()
    done = [o for o in result.report.outcomes if suffix in o.action.subject]
    assert all(o.ok for o in done) and len(done) == 5, [o.as_dict() for o in done]
    profiles, flavors = ours(octavia, suffix)
    assert json.loads(profiles[f"flavorsmith:amphora-active-standby-{suffix}"]) == {
        "amp_image_tag": "amphora",
        "compute_flavor": "amphora.medium",
        "loadbalancer_topology": "ACTIVE_STANDBY",
    }
    assert sorted(profiles) == [
        f"flavorsmith:amphora-active-standby-{suffix}",
        f"flavorsmith:amphora-single-{suffix}",
    ]
    assert flavors[f"lb.ha.trial-{suffix}"]["enabled"] is False
    assert flavors[f"lb.ha-{suffix}"]["description"].startswith("Two amphorae")

    again = run(KIND, Repository(root, RULES), target(octavia), prune=False, execute=False)
    assert [a.kind for a in again.actions if suffix in a.subject] == ["noop"] * 5


def test_an_unknown_capability_is_refused_at_plan_time_at_its_file_and_line(
    octavia: Octavia, catalog: tuple[Path, str]
) -> None:
    """The catalog's saved capabilities allow the key; the real Octavia does not: the plan
    reads Octavia's and refuses, naming the file and the line."""
    root, suffix = catalog
    providers = root / "hardware" / "load-balancer-providers" / "amphora.yaml"
    providers.write_text(providers.read_text() + "  - name: amp_boot_zone\n")
    single = root / FOLDER / f"amphora-single-{suffix}.yaml"
    single.write_text(
        single.read_text().replace("flavor_data:\n", "flavor_data:\n  amp_boot_zone: az1\n")
    )
    assert Repository(root, RULES).load().diagnostics == []
    result = run(KIND, Repository(root, RULES), target(octavia), prune=False, execute=True)
    assert result.blocked and result.report is None and result.actions == []
    (refused,) = result.diagnostics
    assert (Path(refused.path).name, refused.line, refused.code) == (
        single.name,
        5,  # the modeline, name, provider, flavor_data, then the key
        "load-balancer-unknown-capability",
    )
    assert refused.message.startswith(
        "'amp_boot_zone' is not a flavor capability of provider amphora in the target Octavia "
        "(GET /v2/lbaas/providers/amphora/flavor_capabilities); allowed: loadbalancer_topology, "
        "compute_flavor, amp_image_tag"
    )
    assert ours(octavia, suffix) == ({}, {})  # nothing written


def test_a_flavor_load_balancers_use_is_not_deleted_or_replaced_without_force(
    octavia: Octavia, catalog: tuple[Path, str]
) -> None:
    root, suffix = catalog
    first = run(KIND, Repository(root, RULES), target(octavia), prune=False, execute=True)
    assert first.report is not None and not first.report.failed
    _, flavors = ours(octavia, suffix)
    used = flavors[f"lb.standalone-{suffix}"]
    octavia.create_load_balancer(str(used["id"]), name=f"lb-{suffix}", project=f"p-{suffix}")

    # The profile's topology changes: Octavia changes no profile a flavor uses, so the plan
    # replaces the flavor, which a load balancer uses.
    single = root / FOLDER / f"amphora-single-{suffix}.yaml"
    single.write_text(
        single.read_text().replace("compute_flavor: amphora.small", "compute_flavor: amphora.tiny")
    )
    refused = run(KIND, Repository(root, RULES), target(octavia), prune=False, execute=True)
    assert refused.report is None and refused.in_use == {f"flavor lb.standalone-{suffix}": 1}
    assert refused.error is not None and "(1 load balancer)" in refused.error
    assert "Move those load balancers to another flavor or delete them first" in refused.error
    (counted,) = [a for a in refused.actions if a.subject == f"flavor lb.standalone-{suffix}"]
    assert counted.kind == "replace"
    assert counted.servers is not None and counted.servers.phrase() == "1 load balancer uses it"
    assert ours(octavia, suffix)[1][f"lb.standalone-{suffix}"]["id"] == used["id"]

    # Removed from the catalog and pruned: refused the same way.
    single.unlink()
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().replace(
            f"  - amphora-single-{suffix}.yaml=../load-balancer-flavors/amphora-single-{suffix}.yaml\n",
            "",
        )
    )
    pruned = run(KIND, Repository(root, RULES), target(octavia), prune=True, execute=True)
    assert pruned.report is None and pruned.in_use == {f"flavor lb.standalone-{suffix}": 1}

    # With force the plan is applied; Octavia itself still refuses to delete a flavor in use,
    # and says so in the outcome (the profile stays, as its flavor does).
    forced = run(
        KIND, Repository(root, RULES), target(octavia), prune=True, execute=True, force=True
    )
    assert forced.report is not None
    failed = {o.action.subject: o.error for o in forced.report.failed if suffix in o.action.subject}
    assert list(failed) == [f"flavor lb.standalone-{suffix}", f"profile amphora-single-{suffix}"]
    assert "in use" in str(failed[f"flavor lb.standalone-{suffix}"])
