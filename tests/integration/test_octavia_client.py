"""Flavorsmith's Octavia client (clients/octavia.py) against the real Octavia 19 of the test
support, through an openstacksdk connection made as ``--endpoint`` makes one: providers and
their flavor capabilities, flavor profiles and flavors written, read back, changed and
deleted, load balancers counted per flavor across projects, and the errors a caller reads: an
unknown provider (naming the enabled ones), flavor data the provider does not take (naming its
capabilities), an object in use, an endpoint that does not answer or is not Octavia."""

from __future__ import annotations

import http.server
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from flavorsmith.clients.cloud import connect
from flavorsmith.clients.octavia import OctaviaTarget
from flavorsmith.errors import TargetError
from tests.support.octavia_api import AMPHORA, NOOP, Octavia, member_headers, sdk_connection

pytestmark = pytest.mark.slow


@pytest.fixture
def client(octavia: Octavia) -> OctaviaTarget:
    return OctaviaTarget(sdk_connection(octavia, timeout=30))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_providers_and_their_capabilities(client: OctaviaTarget) -> None:
    assert client.provider_names() == [AMPHORA, NOOP]
    names = [c["name"] for c in client.flavor_capabilities(AMPHORA)]
    assert names[:3] == ["loadbalancer_topology", "compute_flavor", "amp_image_tag"]
    assert [c["name"] for c in client.flavor_capabilities(NOOP)] == ["amp_image_tag"]


def test_flavor_profiles_and_flavors_round_trip(client: OctaviaTarget, octavia: Octavia) -> None:
    name = unique("single")
    data = {"loadbalancer_topology": "SINGLE", "compute_flavor": "m1.amphora"}
    made = client.create_flavor_profile(name, AMPHORA, data)
    assert made["flavor_data"] == data and made["provider_name"] == AMPHORA
    stored = octavia.call("GET", f"/v2/lbaas/flavorprofiles/{made['id']}")["flavorprofile"]
    assert (
        stored["flavor_data"]
        == '{"compute_flavor": "m1.amphora", "loadbalancer_topology": "SINGLE"}'
    )
    assert {"id": made["id"], "name": name} in [
        {"id": p["id"], "name": p["name"]} for p in client.flavor_profiles()
    ]
    changed = client.update_flavor_profile(
        made["id"], flavor_data={"loadbalancer_topology": "ACTIVE_STANDBY"}
    )
    assert changed["flavor_data"] == {"loadbalancer_topology": "ACTIVE_STANDBY"}
    assert changed["name"] == name

    flavor = client.create_flavor(unique("lb-small"), made["id"], description="one amphora")
    assert flavor["enabled"] is True and flavor["flavor_profile_id"] == made["id"]
    assert flavor in client.flavors()
    updated = client.update_flavor(flavor["id"], description="two amphorae", enabled=False)
    assert (updated["description"], updated["enabled"]) == ("two amphorae", False)
    assert client.load_balancers_using(flavor["id"]) == 0

    client.delete_flavor(flavor["id"])
    client.delete_flavor_profile(made["id"])
    assert flavor["id"] not in {f["id"] for f in client.flavors()}
    assert made["id"] not in {p["id"] for p in client.flavor_profiles()}


def test_load_balancers_are_counted_per_flavor_across_projects(
    client: OctaviaTarget, octavia: Octavia
) -> None:
    profile = client.create_flavor_profile(
        unique("fp"), AMPHORA, {"loadbalancer_topology": "SINGLE"}
    )
    used = client.create_flavor(unique("used"), profile["id"])
    noop = client.create_flavor_profile(unique("fp"), NOOP, {})
    other = client.create_flavor(unique("other"), noop["id"])
    for project in (unique("project-a"), unique("project-b")):
        octavia.create_load_balancer(used["id"], name=unique("lb"), project=project)
    octavia.create_load_balancer(other["id"], name=unique("lb"), project=unique("project-c"))
    assert client.load_balancers_using(used["id"]) == 2
    assert client.load_balancers_using(other["id"]) == 1

    with pytest.raises(TargetError) as refused:
        client.delete_flavor(used["id"])
    assert refused.value.status == 409 and not refused.value.transient
    assert str(refused.value) == (
        f"DELETE /lbaas/flavors/{used['id']}: 409 Flavor {used['id']} is in use and cannot be"
        " modified."
    )
    with pytest.raises(TargetError) as refused:
        client.delete_flavor_profile(profile["id"])
    assert refused.value.status == 409 and not refused.value.transient
    assert f"Flavor profile {profile['id']} is in use" in str(refused.value)


def test_an_unknown_provider_names_the_enabled_ones(client: OctaviaTarget) -> None:
    with pytest.raises(TargetError) as refused:
        client.flavor_capabilities("amphorav3")
    assert str(refused.value) == (
        "Octavia has no enabled provider 'amphorav3' (enabled: amphora, noop_driver)"
    )
    assert refused.value.status == 400 and not refused.value.transient
    with pytest.raises(TargetError) as refused:
        client.create_flavor_profile(unique("fp"), "ovn", {})
    assert str(refused.value) == (
        "Octavia has no enabled provider 'ovn' (enabled: amphora, noop_driver)"
    )


def test_flavor_data_the_provider_does_not_take_names_its_capabilities(
    client: OctaviaTarget,
) -> None:
    with pytest.raises(TargetError) as refused:
        client.create_flavor_profile(unique("fp"), AMPHORA, {"topology": "SINGLE"})
    message = str(refused.value)
    assert message.startswith(
        "POST /lbaas/flavorprofiles: 501 Provider 'amphora' does not support a requested"
        " option: Additional properties are not allowed ('topology' was unexpected)"
    )
    assert message.endswith(
        "(provider 'amphora' takes: loadbalancer_topology, compute_flavor, amp_image_tag,"
        " sriov_vip, allow_member_sriov)"
    )
    assert refused.value.status == 501 and not refused.value.transient

    with pytest.raises(TargetError) as refused:
        client.create_flavor_profile(unique("fp"), AMPHORA, {"loadbalancer_topology": "TRIPLE"})
    assert "option: loadbalancer_topology 'TRIPLE' is not one of" in str(refused.value)

    profile = client.create_flavor_profile(unique("fp"), AMPHORA, {})
    with pytest.raises(TargetError) as refused:
        client.update_flavor_profile(profile["id"], provider=AMPHORA, flavor_data={"vip": 1})
    assert str(refused.value).startswith(f"PUT /lbaas/flavorprofiles/{profile['id']}: 501")
    assert str(refused.value).endswith(
        "takes: loadbalancer_topology, compute_flavor,"
        " amp_image_tag, sriov_vip, allow_member_sriov)"
    )
    # The no-op provider lists one capability and validates nothing: it takes any data.
    noop = client.create_flavor_profile(unique("fp"), NOOP, {"sriov_vip": True, "x": 1})
    assert noop["flavor_data"] == {"sriov_vip": True, "x": 1}


def test_new_flavor_data_for_a_profile_names_its_providers_capabilities(
    client: OctaviaTarget,
) -> None:
    profile = client.create_flavor_profile(
        unique("fp"), AMPHORA, {"loadbalancer_topology": "SINGLE"}
    )
    with pytest.raises(TargetError) as refused:
        client.update_flavor_profile(profile["id"], flavor_data={"topology": "SINGLE"})
    assert "('topology' was unexpected)" in str(refused.value)
    assert str(refused.value).endswith(
        "(provider 'amphora' takes: loadbalancer_topology, compute_flavor, amp_image_tag,"
        " sriov_vip, allow_member_sriov)"
    )


def test_a_member_may_not_read_profiles_and_counts_only_its_projects_load_balancers(
    testing_octavia: Octavia,
) -> None:
    """Under Octavia's policy a project member may list flavors but not flavor profiles, and
    sees only its own project's load balancers: the count is the admin's to make."""
    admin = OctaviaTarget(sdk_connection(testing_octavia, timeout=30))
    project = unique("project")
    member = OctaviaTarget(sdk_connection(testing_octavia, headers=member_headers(project)))
    profile = admin.create_flavor_profile(unique("fp"), NOOP, {})
    flavor = admin.create_flavor(unique("fl"), profile["id"])
    for owner in (project, unique("other-project")):
        testing_octavia.create_load_balancer(flavor["id"], name=unique("lb"), project=owner)
    assert admin.load_balancers_using(flavor["id"]) == 2
    assert member.load_balancers_using(flavor["id"]) == 1
    assert flavor["id"] in {f["id"] for f in member.flavors()}
    with pytest.raises(TargetError) as refused:
        member.flavor_profiles()
    assert str(refused.value) == (
        "GET /lbaas/flavorprofiles: 403 Policy does not allow this request to be performed."
    )
    assert refused.value.status == 403 and not refused.value.transient
    with pytest.raises(TargetError) as refused:
        member.create_flavor(unique("fl"), profile["id"])
    assert refused.value.status == 403


def test_flavor_data_that_is_not_a_mapping_is_refused_before_sending(
    client: OctaviaTarget,
) -> None:
    calls = client.calls
    with pytest.raises(TargetError) as refused:
        client.create_flavor_profile(unique("fp"), AMPHORA, ["SINGLE"])  # type: ignore[arg-type]
    assert str(refused.value) == (
        "flavor data must be a mapping of capability names to values, not list: ['SINGLE']"
    )
    with pytest.raises(TargetError) as refused:
        client.create_flavor_profile(unique("fp"), AMPHORA, {"compute_flavor": {1, 2}})
    assert str(refused.value).startswith("flavor data is not JSON:")
    assert client.calls == calls


def test_a_taken_name_and_a_missing_object(client: OctaviaTarget) -> None:
    profile = client.create_flavor_profile(unique("fp"), NOOP, {})
    name = unique("taken")
    client.create_flavor(name, profile["id"])
    with pytest.raises(TargetError) as refused:
        client.create_flavor(name, profile["id"])
    assert str(refused.value) == f"POST /lbaas/flavors: 409 A flavor of {name} already exists."
    assert not refused.value.transient
    missing = str(uuid.uuid4())
    with pytest.raises(TargetError) as refused:
        client.delete_flavor(missing)
    assert refused.value.status == 404
    with pytest.raises(TargetError) as refused:
        client.create_flavor(unique("fl"), missing)
    assert str(refused.value) == (
        f"POST /lbaas/flavors: Octavia has no flavor profile '{missing}' (it answered 500 with"
        " a foreign key error)"
    )
    assert not refused.value.transient


def test_an_unreachable_endpoint() -> None:
    with socket_that_refuses() as url:
        client = OctaviaTarget(connect(None, "load_balancer", url, timeout=5))
        with pytest.raises(TargetError) as refused:
            client.providers()
    assert str(refused.value).startswith(
        f"cannot reach Octavia: Unable to find a version discovery document at {url},"
    )
    assert refused.value.transient


def test_an_endpoint_that_is_not_octavia() -> None:
    """A web server that answers HTML: the SDK finds no version document there."""
    with not_octavia() as url:
        client = OctaviaTarget(connect(None, "load_balancer", url, timeout=5))
        with pytest.raises(TargetError) as refused:
            client.flavors()
    assert str(refused.value).startswith(
        f"cannot reach Octavia: Unable to find a version discovery document at {url},"
    )


@pytest.mark.parametrize("suffix", ["", "/"])
def test_the_endpoint_is_octavias_root(octavia: Octavia, suffix: str) -> None:
    client = OctaviaTarget(connect(None, "load_balancer", octavia.url + suffix, timeout=30))
    assert client.provider_names() == [AMPHORA, NOOP]


@pytest.mark.parametrize("suffix", ["/v2", "/v2.0"])
def test_an_endpoint_at_octavias_v2_says_to_give_the_root(octavia: Octavia, suffix: str) -> None:
    """Octavia's /v2 answers the JSON string "v2", which keystoneauth's version discovery
    fails on; the client says what to give instead."""
    assert octavia.request("GET", suffix).body == "v2"
    client = OctaviaTarget(connect(None, "load_balancer", octavia.url + suffix, timeout=30))
    with pytest.raises(TargetError) as refused:
        client.providers()
    assert str(refused.value) == (
        "cannot reach Octavia: its endpoint does not answer a version document (Octavia's /v2"
        ' answers only "v2"); give Octavia\'s root URL (http://HOST:9876), not its /v2'
    )
    assert not refused.value.transient


def test_a_cloud_of_clouds_yaml(
    octavia: Octavia, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--cloud``: a clouds.yaml cloud without auth whose load-balancer endpoint is set."""
    config = tmp_path / "clouds.yaml"
    cloud = {"auth_type": "none", "load_balancer_endpoint_override": octavia.url}
    config.write_text(yaml.safe_dump({"clouds": {"octavia-on-loopback": cloud}}))
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(config))
    client = OctaviaTarget(connect("octavia-on-loopback", "load_balancer"))
    assert [c["name"] for c in client.flavor_capabilities(NOOP)] == ["amp_image_tag"]


@contextmanager
def socket_that_refuses() -> Iterator[str]:
    """A loopback URL on which nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


class _Html(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body>a web server</body></html>"
        self.send_response(200 if self.path == "/" else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def not_octavia() -> Iterator[str]:
    """A loopback web server that answers HTML to everything."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Html)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
