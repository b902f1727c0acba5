"""No write from another web site: a state-changing request a browser sends for another site's
page is a 403 in the API family's own error body, and nothing is written."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.csrf import refusal

FOREIGN = "http://example.test"
OWN = "http://testserver"  # the TestClient's own origin (scheme://Host)
IRONIC = {"X-OpenStack-Ironic-API-Version": "1.81"}


@dataclass(frozen=True)
class Family:
    """One API family: a write (method, path, JSON body), and a read that shows whether the
    write happened."""

    name: str
    write: Callable[[str], tuple[str, str, Any]]
    exists: Callable[[TestClient, str], bool]
    message: Callable[[Any], str]
    headers: dict[str, str]


def _ironic_message(body: Any) -> str:
    return str(json.loads(body["error_message"])["faultstring"])


FAMILIES = [
    Family(
        "baremetal",
        lambda name: ("POST", "/baremetal/v1/nodes", {"driver": "fake-hardware", "name": name}),
        lambda c, name: c.get(f"/baremetal/v1/nodes/{name}", headers=IRONIC).status_code == 200,
        _ironic_message,
        IRONIC,
    ),
    Family(
        "compute",
        lambda name: (
            "POST",
            "/compute/v2.1/flavors",
            {"flavor": {"name": name, "id": name, "ram": 512, "vcpus": 1, "disk": 1}},
        ),
        lambda c, name: c.get(f"/compute/v2.1/flavors/{name}").status_code == 200,
        lambda body: str(body["forbidden"]["message"]),
        {},
    ),
    Family(
        "load-balancer",
        lambda name: (
            "POST",
            "/load-balancer/v2/lbaas/flavorprofiles",
            {"flavorprofile": {"name": name, "provider_name": "noop", "flavor_data": "{}"}},
        ),
        lambda c, name: bool(
            c.get("/load-balancer/v2/lbaas/flavorprofiles", params={"name": name}).json()[
                "flavorprofiles"
            ]
        ),
        lambda body: str(body["faultstring"]),
        {},
    ),
    Family(
        "native",
        lambda name: ("POST", f"/v1/nodes/{name}/inspection", {"inventory": {}}),
        # The native API's writes all act on existing objects; a node that was never created
        # cannot be inspected, so "written" here means "the handler ran" (a 404 body).
        lambda c, name: False,
        lambda body: str(body["detail"]),
        {},
    ),
]


def _send(
    client: TestClient, family: Family, name: str, headers: dict[str, str], *, form: bool = False
) -> Any:
    method, path, body = family.write(name)
    all_headers = {**family.headers, **headers}
    if form:
        return client.request(method, path, content=json.dumps(body), headers=all_headers)
    return client.request(method, path, json=body, headers=all_headers)


def _name() -> str:
    return f"xsite-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_foreign_origin_is_refused_and_writes_nothing(client: TestClient, family: Family) -> None:
    name = _name()
    response = _send(client, family, name, {"Origin": FOREIGN})
    assert response.status_code == 403
    message = family.message(response.json())
    assert message == (
        "Cross-site request refused: Origin 'http://example.test' is not this service's origin "
        "(http://testserver); POST requests are accepted only from the service's own origin "
        "or from clients that send no Origin"
    )
    assert "x-openstack-request-id" in response.headers
    assert not family.exists(client, name)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/plain",
        "Text/Plain ; charset=UTF-8",
    ],
)
def test_form_content_types_are_refused(
    client: TestClient, family: Family, content_type: str
) -> None:
    name = _name()
    response = _send(client, family, name, {"Content-Type": content_type}, form=True)
    assert response.status_code == 403
    media_type = content_type.split(";")[0].strip().lower()
    assert family.message(response.json()) == (
        f"Request refused: a {media_type} body can be sent by any web page, so it is never "
        "accepted for a state-changing request; send application/json"
    )
    assert not family.exists(client, name)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_sec_fetch_site_from_elsewhere_is_refused(
    client: TestClient, family: Family, site: str
) -> None:
    name = _name()
    response = _send(client, family, name, {"Sec-Fetch-Site": site})
    assert response.status_code == 403
    assert family.message(response.json()) == (
        f"Cross-site request refused: Sec-Fetch-Site is '{site}'; POST requests are accepted "
        "only from the same origin"
    )
    assert not family.exists(client, name)


@pytest.mark.parametrize("family", FAMILIES[:3], ids=lambda f: f.name)
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": OWN, "Sec-Fetch-Site": "same-origin"},
        {"Origin": "HTTP://TestServer:80"},
        {"Sec-Fetch-Site": "none"},
        {},
    ],
    ids=["same-origin", "same-origin-spelled-differently", "typed-by-the-user", "api-client"],
)
def test_same_origin_and_api_clients_may_write(
    client: TestClient, family: Family, headers: dict[str, str]
) -> None:
    name = _name()
    response = _send(client, family, name, headers)
    assert response.status_code in (200, 201), response.text
    assert family.exists(client, name)


@pytest.mark.parametrize(
    "path",
    [
        "/baremetal/v1/nodes",
        "/compute/v2.1/flavors",
        "/load-balancer/v2/lbaas/flavorprofiles",
        "/v1/catalog",
    ],
)
def test_reads_from_another_site_are_not_refused(client: TestClient, path: str) -> None:
    headers = {"Origin": FOREIGN, "Sec-Fetch-Site": "cross-site", **IRONIC}
    assert client.get(path, headers=headers).status_code == 200


def test_a_web_page_cannot_prune_the_flavors(client: TestClient) -> None:
    """The issue's attack: a form on another site posting to /v1/sync/apply?prune=true."""
    name = _name()
    body = {"flavor": {"name": name, "id": name, "ram": 512, "vcpus": 1, "disk": 1}}
    assert client.post("/compute/v2.1/flavors", json=body).status_code == 200
    managed = {"extra_specs": {"flavorsmith:managed": "true"}}
    url = f"/compute/v2.1/flavors/{name}/os-extra_specs"
    assert client.post(url, json=managed).status_code == 200
    before = client.get("/compute/v2.1/flavors", params={"is_public": "none"}).json()
    for headers in (
        {"Origin": FOREIGN, "Content-Type": "application/x-www-form-urlencoded"},
        {"Origin": "null"},
        {"Content-Type": "text/plain"},
    ):
        response = client.post("/v1/sync/apply?prune=true", headers=headers)
        assert response.status_code == 403, response.text
        assert response.headers["content-type"] == "application/problem+json"
    after = client.get("/compute/v2.1/flavors", params={"is_public": "none"}).json()
    assert after == before
    assert client.get(f"/compute/v2.1/flavors/{name}").status_code == 200


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
def test_every_state_changing_method_is_guarded(client: TestClient, method: str) -> None:
    name = _name()
    body = {"flavor": {"name": name, "id": name, "ram": 512, "vcpus": 1, "disk": 1}}
    assert client.post("/compute/v2.1/flavors", json=body).status_code == 200
    response = client.request(method, f"/compute/v2.1/flavors/{name}", headers={"Origin": FOREIGN})
    assert response.status_code == 403
    assert f"{method} requests are accepted only" in response.json()["forbidden"]["message"]
    assert client.get(f"/compute/v2.1/flavors/{name}").status_code == 200


def _scope(headers: dict[str, str], scheme: str = "http") -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "scheme": scheme,
        "path": "/v1/sync/apply",
        "server": ("127.0.0.1", 8780),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }


@pytest.mark.parametrize(
    ("headers", "scheme", "refused"),
    [
        ({"Host": "127.0.0.1:8780", "Origin": "http://127.0.0.1:8780"}, "http", False),
        ({"Host": "127.0.0.1:8780", "Origin": "http://localhost:8780"}, "http", True),
        ({"Host": "127.0.0.1:8780", "Origin": "http://127.0.0.1:3000"}, "http", True),
        ({"Host": "127.0.0.1:8780", "Origin": "https://127.0.0.1:8780"}, "http", True),
        ({"Host": "api.example", "Origin": "https://api.example:443"}, "https", False),
        ({"Host": "[::1]:8780", "Origin": "http://[::1]:8780"}, "http", False),
        ({"Host": "127.0.0.1:8780", "Origin": "http://127.0.0.1:99999"}, "http", True),
        ({"Host": "127.0.0.1:8780", "Origin": "not a url"}, "http", True),
        ({"Origin": "http://127.0.0.1:8780"}, "http", False),  # no Host: the bound address
        ({"Host": "127.0.0.1:8780", "Content-Type": "application/json"}, "http", False),
    ],
)
def test_own_origin_is_scheme_host_and_port(
    headers: dict[str, str], scheme: str, refused: bool
) -> None:
    assert (refusal(_scope(headers, scheme)) is not None) is refused


def test_the_refusal_escapes_what_it_quotes() -> None:
    reason = refusal(_scope({"Host": "h", "Origin": "http://e\x1b[31m.test/" + "x" * 500}))
    assert reason is not None
    assert "\x1b" not in reason and "\\x1b" in reason
    assert len(reason) < 400


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": FOREIGN}, 403),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
        ({"Origin": OWN}, 204),
        ({}, 204),
    ],
    ids=["foreign-origin", "cross-site-fetch", "same-origin", "api-client"],
)
def test_trait_writes_are_guarded_too(
    client: TestClient, headers: dict[str, str], status: int
) -> None:
    """Writes of a node's traits, the hot writes of inventory tools: the same refusal, in
    Ironic's body with a request id, and nothing written."""
    made = client.post(
        "/baremetal/v1/nodes", json={"driver": "fake-hardware", "name": _name()}, headers=IRONIC
    )
    assert made.status_code == 201
    url = f"/baremetal/v1/nodes/{made.json()['uuid']}/traits"
    response = client.put(url, json={"traits": ["CUSTOM_X"]}, headers={**IRONIC, **headers})
    assert response.status_code == status
    assert response.headers["x-openstack-request-id"].startswith("req-")
    traits = client.get(url, headers=IRONIC).json()["traits"]
    if status == 403:
        assert "Cross-site request refused" in _ironic_message(response.json())
        assert traits == []
    else:
        assert traits == ["CUSTOM_X"]
