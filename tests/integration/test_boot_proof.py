"""The boot proof on the small real cloud: every flavor of the example catalog, then of a
generated one (tests/support/generated_catalog.py, its default seed), boots on exactly the
nodes Flavorsmith predicted (tests/support/boot_proof.py; ``python3 dev.py cloud --prove``
runs the same).

The cloud (tests/support/small_cloud.py, with in-band inspection in Ironic and the real
Neutron, which Nova needs to delete a server) starts once for the module and the proof runs
once, on both catalogs in turn; each test then asserts one point of it, on each catalog the
point covers (points 5 and 6 are the example catalog's own). A point that fails names itself
and its catalog, and a step that cannot run raises with the log tail of the service
concerned.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from ruamel.yaml import YAML

from tests.conftest import EXAMPLES
from tests.support.boot_proof import (
    EXAMPLE_CATALOG,
    GENERATED_CATALOG,
    NEVER,
    Report,
    prove,
)
from tests.support.small_cloud import CLOUD_NAME, Cloud, running_cloud

pytestmark = pytest.mark.slow
BOTH = pytest.mark.parametrize("catalog", [EXAMPLE_CATALOG, GENERATED_CATALOG])


@pytest.fixture(scope="module")
def cloud() -> Iterator[Cloud]:
    with running_cloud(agent_inspection=True, neutron=True) as cloud:
        yield cloud


@pytest.fixture(scope="module")
def report(cloud: Cloud) -> Report:
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    return prove(cloud, EXAMPLES, say=say)


def _get(url: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"X-Auth-Token": token})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@BOTH
def test_1_the_lab_is_enrolled_classified_synced_and_reported(report: Report, catalog: str) -> None:
    assert not report.problems_of(1, catalog), report.problems_of(1, catalog)
    reported = {
        EXAMPLE_CATALOG: "nova-compute reported every node",
        GENERATED_CATALOG: "generated catalog: nova-compute reported every node",
    }
    assert reported[catalog] in report.seconds


@BOTH
def test_2_verify_finds_no_drift_and_every_flavor_has_a_prediction(
    report: Report, catalog: str
) -> None:
    assert not report.problems_of(2, catalog), report.problems_of(2, catalog)


@BOTH
def test_3_each_flavor_boots_its_predicted_count_on_its_nodes_then_no_valid_host(
    report: Report, catalog: str
) -> None:
    assert not report.problems_of(3, catalog), report.problems_of(3, catalog)
    results = report.of(catalog)
    flavors = {result.flavor: result for result in results}
    assert all(r.on_predicted and r.booted == r.predicted for r in results)
    if catalog == EXAMPLE_CATALOG:
        assert len(flavors) >= 13, sorted(flavors)  # the 12 example flavors, the one no node takes
        assert flavors[NEVER].predicted == 0 and flavors[NEVER].booted == 0
        assert "have-CUSTOM_CPU_AVX512-(forbidden)" in flavors[NEVER].reason_after
        assert sum(r.booted for r in results) >= 20, report.lines()
    else:
        generated = report.generated
        assert generated is not None
        assert set(flavors) == {f.name for f in generated.flavors}, report.lines()
        assert flavors[generated.never].predicted == 0
        assert flavors[generated.never].reason_after != "no-node"
        assert flavors[generated.private].booted >= 1, report.lines()
        assert max(r.booted for r in results) >= 2, report.lines()


@BOTH
def test_4_pools_do_not_leak_and_unavailable_nodes_get_no_server(
    report: Report, catalog: str
) -> None:
    assert not report.problems_of(4, catalog), report.problems_of(4, catalog)
    private = {EXAMPLE_CATALOG: "m1.medium.dedicated"}
    if report.generated is not None:
        private[GENERATED_CATALOG] = report.generated.private
    assert f"{private[catalog]} for another project: Nova refuses it" in "\n".join(report.notes), (
        report.notes
    )


def test_5_deploy_templates_run_as_deploy_plan_ordered(report: Report) -> None:
    assert not report.problems_of(5, EXAMPLE_CATALOG), report.problems_of(5, EXAMPLE_CATALOG)
    assert any("as deploy plan ordered" in note for note in report.notes), report.notes


def test_6_after_a_trait_rule_change_the_boots_follow_the_new_prediction(
    report: Report,
) -> None:
    assert not report.problems_of(6, EXAMPLE_CATALOG), report.problems_of(6, EXAMPLE_CATALOG)
    assert any(r.flavor.endswith("/after-rule-change") for r in report.flavors)
    assert report.ok, report.problems


def test_every_service_checks_tokens_with_keystone_and_is_in_its_catalog(cloud: Cloud) -> None:
    assert cloud.network is not None
    calls = {
        "compute": (f"{cloud.compute}/flavors", cloud.admin_token()),
        "placement": (f"{cloud.placement}/resource_providers", cloud.admin_token()),
        "image": (f"{cloud.image}/v2/images", cloud.admin_token()),
        "baremetal": (f"{cloud.baremetal}/v1/nodes", cloud.token_for("admin", None)),
        "network": (f"{cloud.network}/v2.0/networks", cloud.admin_token()),
    }
    for service, (url, token) in calls.items():
        assert _get(url, token)[0] == 200, (service, _get(url, token))
        # The token the services took before Keystone ran is refused now.
        assert _get(url, "admin:admin")[0] == 401, service
    code, body = _get(f"{cloud.identity}/auth/catalog", cloud.admin_token())
    assert code == 200, body
    catalog = {
        entry["type"]: [e["url"] for e in entry["endpoints"] if e["interface"] == "public"]
        for entry in json.loads(body)["catalog"]
    }
    assert catalog == {
        "identity": [cloud.identity],
        "compute": [cloud.compute],
        "placement": [cloud.placement],
        "image": [cloud.image],
        "baremetal": [cloud.baremetal],
        "network": [cloud.network],
    }
    entry = YAML(typ="safe").load(cloud.clouds_yaml)["clouds"][CLOUD_NAME]
    assert entry["auth_type"] == "password"
    assert entry["auth"]["auth_url"] == cloud.identity
    assert not [key for key in entry if key.endswith("endpoint_override")]
