"""DNS rebinding: a request whose Host is not a name the service answers to is a 400 in the API
family's error body before any routing, under every auth mode; nothing is read or written.
The defaults are the loopback names and the bound address on the port the request arrived on;
``--allowed-host`` adds names, ``*`` turns the check off."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests
from fastapi.testclient import TestClient

from flavorsmith.api.hosts import AllowedHosts, HostSyntaxError, parse_rule
from tests.api.conftest import ClientFactory
from tests.api.test_errors import message
from tests.support.serve import serve_process

EVIL = "rebind.evil.example"
IRONIC = {"X-OpenStack-Ironic-API-Version": "latest"}
NOVA = {"OpenStack-API-Version": "compute 2.104"}
FLAVOR = {"flavor": {"name": "f1", "id": "f1", "ram": 1024, "vcpus": 1, "disk": 1}}


def _rebound(host: str, **headers: str) -> dict[str, str]:
    return {"Host": host, "Origin": f"http://{host}", **headers}


@pytest.mark.parametrize(
    ("family", "method", "path", "headers"),
    [
        ("baremetal", "GET", "/baremetal/v1/nodes", IRONIC),
        ("baremetal", "PUT", "/baremetal/v1/nodes/n1/traits/CUSTOM_X", IRONIC),
        ("compute", "GET", "/compute/v2.1/flavors", NOVA),
        ("compute", "DELETE", "/compute/v2.1/flavors/f1", NOVA),
        ("load-balancer", "GET", "/load-balancer/v2.0/lbaas/flavors", {}),
        ("native", "POST", "/v1/sync/apply", {}),
        ("native", "GET", "/ui/", {}),
    ],
)
def test_a_rebound_host_is_refused_in_each_family(
    make_client: ClientFactory, family: str, method: str, path: str, headers: dict[str, str]
) -> None:
    client = make_client(allowed_hosts=())
    own = {"Host": "localhost", **NOVA}
    flavor = f"f-{uuid.uuid4()}"
    body = {"flavor": {**FLAVOR["flavor"], "name": flavor, "id": flavor}}
    created = client.post("/compute/v2.1/flavors", json=body, headers=own)
    assert created.status_code == 200, created.text
    path = path.replace("/f1", f"/{flavor}")
    response = client.request(method, path, headers=_rebound(EVIL, **headers))
    assert response.status_code == 400, response.text
    text = message(family, response)
    assert text.startswith(f"Host '{EVIL}' is not a name this service answers to; allowed: ")
    assert "--allowed-host" in text
    assert client.get(f"/compute/v2.1/flavors/{flavor}", headers=own).status_code == 200


def test_the_service_own_names_pass_and_probes_answer_any_host(
    make_client: ClientFactory,
) -> None:
    client = make_client(allowed_hosts=())
    for host in ("localhost", "127.0.0.1", "[::1]", "LOCALHOST.", "127.0.0.1:80"):
        assert client.get("/compute/v2.1/flavors", headers={"Host": host}).status_code == 200
    # Any port: a port-forward (kubectl port-forward 9999:8780) changes it.
    assert (
        client.get("/compute/v2.1/flavors", headers={"Host": "localhost:9999"}).status_code == 200
    )
    for probe in ("/healthz", "/readyz"):
        assert client.get(probe, headers={"Host": "10.1.2.3:8780"}).status_code != 400


def test_allowed_host_rules() -> None:
    allowed = AllowedHosts.for_bind("127.0.0.1", ("flavors.example.com", "api.example.com:443"))
    assert allowed is not None
    server = ("127.0.0.1", 8780)
    assert allowed.allows("flavors.example.com:1234", "http", server)
    assert allowed.allows("api.example.com", "https", server)
    assert not allowed.allows("api.example.com", "http", server)
    assert allowed.allows("127.0.0.1:8780", "http", server)
    assert not allowed.allows("evil.example:8780", "http", server)
    assert not allowed.allows("", "http", server)
    assert not allowed.allows("user@localhost:8780", "http", server)
    # Bound to every address: the address a request arrived at is its own name.
    wildcard = AllowedHosts.for_bind("0.0.0.0")
    assert wildcard is not None
    assert wildcard.allows("10.0.0.5:8780", "http", ("10.0.0.5", 8780))
    assert not wildcard.allows("10.0.0.6:8780", "http", ("10.0.0.5", 8780))
    assert AllowedHosts.for_bind("127.0.0.1", ("*",)) is None
    with pytest.raises(HostSyntaxError, match="is not a host name"):
        parse_rule("http://x/")


def _call(url: str, method: str, path: str, host: str, body: Any = None) -> requests.Response:
    headers = {"Host": host, "Origin": f"http://{host}", **NOVA, **IRONIC}
    return requests.request(method, url + path, headers=headers, json=body, timeout=30)


def test_serve_refuses_a_rebound_host_by_default(tmp_path: Path) -> None:
    """The issue's reproduction against a real ``serve`` under noauth: DELETE of a flavor and
    POST /v1/sync/apply with ``Host: rebind.evil.example:PORT`` and a matching Origin."""
    with serve_process(tmp_path) as served:
        own = f"127.0.0.1:{served.port}"
        assert _call(served.url, "POST", "/compute/v2.1/flavors", own, FLAVOR).status_code == 200
        evil = f"{EVIL}:{served.port}"
        deleted = _call(served.url, "DELETE", "/compute/v2.1/flavors/f1", evil)
        assert deleted.status_code == 400, deleted.text
        assert json.loads(deleted.text)["badRequest"]["message"].startswith(f"Host '{evil}'")
        applied = _call(served.url, "POST", "/v1/sync/apply", evil)
        assert applied.status_code == 400, applied.text
        assert _call(served.url, "GET", "/compute/v2.1/flavors/f1", own).status_code == 200
        for name in (f"localhost:{served.port}", f"[::1]:{served.port}"):
            assert _call(served.url, "GET", "/compute/v2.1/flavors", name).status_code == 200


def test_serve_allowed_host_adds_a_name_and_star_turns_the_check_off(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    with serve_process(tmp_path / "one", "--allowed-host", "flavors.example.com") as served:
        ok = _call(served.url, "GET", "/compute/v2.1/flavors", "flavors.example.com")
        assert ok.status_code == 200, ok.text
        assert _call(served.url, "GET", "/compute/v2.1/flavors", EVIL).status_code == 400
    with serve_process(tmp_path / "two", "--allowed-host", "*") as served:
        assert _call(served.url, "GET", "/compute/v2.1/flavors", EVIL).status_code == 200


def test_an_application_built_without_serve_checks_no_host(client: TestClient) -> None:
    """Without serve (an application built in process), there is no Host check."""
    assert client.get("/compute/v2.1/flavors", headers={"Host": EVIL}).status_code == 200
