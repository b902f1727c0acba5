"""The real Octavia 19 of the test support (tests/support/octavia_api.py): its database at
Octavia's own migration head, the providers it enables, a flavor profile whose
``compute_flavor`` the no-op compute driver accepts, identity from headers under the
``testing`` strategy, a load balancer that holds its flavor in use and what Octavia answers
to deleting that flavor and its profile (docs/reference/octavia-api.md), and that the service
and its database are gone after it stops."""

from __future__ import annotations

import json
import os
import subprocess
import uuid

import pytest

from tests.support.octavia_api import (
    AMPHORA,
    NOOP,
    Octavia,
    admin_headers,
    member_headers,
    mysql,
    running_octavia,
    venv,
)

pytestmark = pytest.mark.slow


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def profile(octavia: Octavia, data: dict[str, object], provider: str = AMPHORA) -> str:
    body = {"name": unique("fp"), "provider_name": provider, "flavor_data": json.dumps(data)}
    made = octavia.call("POST", "/v2/lbaas/flavorprofiles", {"flavorprofile": body})
    return str(made["flavorprofile"]["id"])


def flavor(octavia: Octavia, profile_id: str) -> str:
    body = {"name": unique("fl"), "flavor_profile_id": profile_id}
    return str(octavia.call("POST", "/v2/lbaas/flavors", {"flavor": body})["flavor"]["id"])


def test_the_database_is_at_octavias_migration_head(octavia: Octavia) -> None:
    """``octavia-db-manage current`` on the running service's own database (loaded from the
    dump that ``upgrade head`` made) finds the head revision."""
    conf = str(octavia.state / "octavia.conf")
    current = subprocess.run(
        [str(venv() / "bin" / "octavia-db-manage"), "--config-file", conf, "current"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "(head)" in current.stdout + current.stderr


def test_the_amphora_and_noop_providers_are_enabled(octavia: Octavia) -> None:
    providers = octavia.call("GET", "/v2/lbaas/providers")["providers"]
    assert sorted(p["name"] for p in providers) == [AMPHORA, NOOP]
    amphora = octavia.call("GET", f"/v2/lbaas/providers/{AMPHORA}/flavor_capabilities")
    names = {c["name"] for c in amphora["flavor_capabilities"]}
    assert {"loadbalancer_topology", "compute_flavor", "amp_image_tag"} <= names


def test_amphora_flavor_data_is_validated_without_nova_or_glance(octavia: Octavia) -> None:
    """The no-op compute and image drivers take any compute flavor and image tag; the schema of
    the amphora provider still refuses an unknown option and a bad topology."""
    data = {"loadbalancer_topology": "ACTIVE_STANDBY", "compute_flavor": "no-such-flavor"}
    made = profile(octavia, {**data, "amp_image_tag": "no-such-tag"})
    shown = octavia.call("GET", f"/v2/lbaas/flavorprofiles/{made}")["flavorprofile"]
    assert json.loads(shown["flavor_data"])["compute_flavor"] == "no-such-flavor"
    for bad, word in (({"bogus": 1}, "bogus"), ({"loadbalancer_topology": "TRIPLE"}, "TRIPLE")):
        body = {"name": unique("bad"), "provider_name": AMPHORA, "flavor_data": json.dumps(bad)}
        answer = octavia.request("POST", "/v2/lbaas/flavorprofiles", {"flavorprofile": body})
        assert answer.status == 501, answer.text
        assert word in answer.body["faultstring"]


def test_a_flavor_that_a_load_balancer_uses_is_not_deleted(octavia: Octavia) -> None:
    profile_id = profile(octavia, {"loadbalancer_topology": "SINGLE"})
    flavor_id = flavor(octavia, profile_id)
    made = octavia.create_load_balancer(flavor_id, name=unique("lb"), project=unique("project"))
    assert made["flavor_id"] == flavor_id and made["provider"] == AMPHORA
    assert made["provisioning_status"] == "PENDING_CREATE"
    listed = octavia.call("GET", f"/v2/lbaas/loadbalancers?flavor_id={flavor_id}")
    assert [lb["id"] for lb in listed["loadbalancers"]] == [made["id"]]

    answer = octavia.request("DELETE", f"/v2/lbaas/flavors/{flavor_id}")
    assert answer.status == 409
    assert answer.body == {
        "faultcode": "Client",
        "faultstring": f"Flavor {flavor_id} is in use and cannot be modified.",
        "debuginfo": None,
    }
    for method, body in (
        ("DELETE", None),
        ("PUT", {"flavorprofile": {"flavor_data": json.dumps({"compute_flavor": "x"})}}),
    ):
        answer = octavia.request(method, f"/v2/lbaas/flavorprofiles/{profile_id}", body)
        assert answer.status == 409, (method, answer.text)
        expected = f"Flavor profile {profile_id} is in use and cannot be modified."
        assert answer.body["faultstring"] == expected
    renamed = {"flavorprofile": {"name": unique("renamed")}}
    answer = octavia.request("PUT", f"/v2/lbaas/flavorprofiles/{profile_id}", renamed)
    assert answer.status == 200, answer.text
    assert octavia.call("GET", f"/v2/lbaas/flavors/{flavor_id}")["flavor"]["id"] == flavor_id
    # The flavor itself may still change; its load balancer stays as it was.
    changed = {"flavor": {"enabled": False, "description": "retired"}}
    assert (
        octavia.call("PUT", f"/v2/lbaas/flavors/{flavor_id}", changed)["flavor"]["enabled"] is False
    )
    answer = octavia.request("DELETE", f"/v2/lbaas/loadbalancers/{made['id']}")
    assert answer.status == 409  # PENDING_CREATE is immutable: no worker ever takes it


def test_an_unused_flavor_and_profile_are_deleted(octavia: Octavia) -> None:
    profile_id = profile(octavia, {"loadbalancer_topology": "SINGLE"})
    flavor_id = flavor(octavia, profile_id)
    assert octavia.request("DELETE", f"/v2/lbaas/flavors/{flavor_id}").status == 204
    assert octavia.request("DELETE", f"/v2/lbaas/flavorprofiles/{profile_id}").status == 204
    assert octavia.request("GET", f"/v2/lbaas/flavors/{flavor_id}").status == 404


def test_the_testing_strategy_reads_roles_from_headers(testing_octavia: Octavia) -> None:
    member = member_headers(unique("project"))
    assert testing_octavia.request("GET", "/v2/lbaas/flavorprofiles").status == 200
    denied = testing_octavia.request("GET", "/v2/lbaas/flavorprofiles", headers=member)
    assert denied.status == 403
    assert denied.body["faultstring"] == "Policy does not allow this request to be performed."
    assert testing_octavia.request("GET", "/v2/lbaas/flavors", headers=member).status == 200
    nobody = testing_octavia.request("GET", "/v2/lbaas/flavors", headers={})
    assert nobody.status == 403
    body = {"name": unique("fp"), "provider_name": NOOP, "flavor_data": "{}"}
    refused = testing_octavia.request(
        "POST", "/v2/lbaas/flavorprofiles", {"flavorprofile": body}, headers=member
    )
    assert refused.status == 403
    made = testing_octavia.request(
        "POST", "/v2/lbaas/flavorprofiles", {"flavorprofile": body}, headers=admin_headers()
    )
    assert made.status == 201


def test_stopping_ends_the_service_and_drops_its_database() -> None:
    with running_octavia() as running:
        assert running.request("GET", "/").status == 200
        pid, database = running.pid, running.database
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    databases = mysql().run("mariadb", "--batch", "--skip-column-names", "-e", "SHOW DATABASES")
    assert database not in databases.split()
    assert not running.state.exists()
