"""The boot proof on the small real cloud: every example flavor boots on exactly the nodes
Flavorsmith predicted (tests/support/boot_proof.py; ``python3 dev.py cloud --prove`` runs
the same).

The cloud (tests/support/small_cloud.py, with in-band inspection in Ironic and the real
Neutron, which Nova needs to delete a server) starts once for the module and the proof runs
once; each test then asserts one point of it. A point that fails names itself, and a step
that cannot run raises with the log tail of the service concerned.
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
from tests.support.boot_proof import NEVER, Report, prove
from tests.support.small_cloud import CLOUD_NAME, Cloud, running_cloud

pytestmark = pytest.mark.slow


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


def _points(report: Report, number: int) -> list[str]:
    return [p for p in report.problems if p.startswith(f"point {number}:")]


def test_1_the_lab_is_enrolled_classified_synced_and_reported(report: Report) -> None:
    assert not _points(report, 1), _points(report, 1)
    assert "nova-compute reported every node" in report.seconds


def test_2_verify_finds_no_drift_and_every_flavor_has_a_prediction(report: Report) -> None:
    assert not _points(report, 2), _points(report, 2)


def test_3_each_flavor_boots_its_predicted_count_on_its_nodes_then_no_valid_host(
    report: Report,
) -> None:
    assert not _points(report, 3), _points(report, 3)
    flavors = {result.flavor: result for result in report.flavors}
    assert len(flavors) >= 13, sorted(flavors)  # the 12 example flavors, the one no node takes
    assert flavors[NEVER].predicted == 0 and flavors[NEVER].booted == 0
    assert "have-CUSTOM_CPU_AVX512-(forbidden)" in flavors[NEVER].reason_after
    assert sum(r.booted for r in report.flavors) >= 20, report.lines()
    assert all(r.on_predicted and r.booted == r.predicted for r in report.flavors)


def test_4_pools_do_not_leak_and_unavailable_nodes_get_no_server(report: Report) -> None:
    assert not _points(report, 4), _points(report, 4)
    assert any("for another project: Nova refuses it" in note for note in report.notes)


def test_5_deploy_templates_run_as_deploy_plan_ordered(report: Report) -> None:
    assert not _points(report, 5), _points(report, 5)
    assert any("as deploy plan ordered" in note for note in report.notes), report.notes


def test_6_after_a_trait_rule_change_the_boots_follow_the_new_prediction(
    report: Report,
) -> None:
    assert not _points(report, 6), _points(report, 6)
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
