"""Version discovery documents and microversion negotiation."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

BASE = "http://testserver"


def test_root_lists_every_api(client: TestClient) -> None:
    body = client.get("/").json()
    assert [(a["prefix"], a["href"]) for a in body["apis"]] == [
        ("/baremetal", f"{BASE}/baremetal"),
        ("/compute", f"{BASE}/compute"),
        ("/load-balancer", f"{BASE}/load-balancer"),
        ("/v1", f"{BASE}/v1"),
    ]


@pytest.mark.parametrize("path", ["/baremetal", "/baremetal/"])
def test_ironic_root(client: TestClient, path: str) -> None:
    version = {
        "id": "v1",
        "links": [{"href": f"{BASE}/baremetal/v1/", "rel": "self"}],
        "status": "CURRENT",
        "min_version": "1.1",
        "version": "1.115",
    }
    response = client.get(path)
    assert response.status_code == 200
    assert response.json() == {
        "name": "OpenStack Ironic API",
        "description": "Ironic is an OpenStack project which enables the provision and "
        "management of baremetal machines.",
        "default_version": version,
        "versions": [version],
    }


def test_ironic_root_carries_version_headers(client: TestClient) -> None:
    response = client.get("/baremetal/")
    assert response.headers["x-openstack-ironic-api-version"] == "1.1"
    assert response.headers["openstack-request-id"] == response.headers["x-openstack-request-id"]


def test_ironic_v1(client: TestClient) -> None:
    response = client.get("/baremetal/v1")
    body = response.json()
    assert body["id"] == "v1"
    assert body["version"]["version"] == "1.115"
    assert body["nodes"][0] == {"href": f"{BASE}/baremetal/v1/nodes/", "rel": "self"}
    assert response.headers["x-openstack-ironic-api-minimum-version"] == "1.1"
    assert response.headers["x-openstack-ironic-api-maximum-version"] == "1.115"
    assert response.headers["x-openstack-ironic-api-version"] == "1.1"


@pytest.mark.parametrize(
    ("header", "negotiated"),
    [(None, "1.1"), ("1.37", "1.37"), ("latest", "1.115"), (" 1.1 ", "1.1")],
)
def test_ironic_negotiation(client: TestClient, header: str | None, negotiated: str) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": header} if header else {}
    response = client.get("/baremetal/v1", headers=headers)
    assert response.status_code == 200
    assert response.headers["x-openstack-ironic-api-version"] == negotiated


@pytest.mark.parametrize(
    ("header", "text"),
    [
        (
            "1.116",
            "Version 1.116 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].",
        ),
        (
            "2.1",
            "Mutually exclusive versions requested. Version 2.1 requested but not supported by this service. The supported version range is: [1.1, 1.115].",
        ),
        (
            "1.0",
            "Version 1.0 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].",
        ),
        (
            "abc",
            "Invalid value 'abc' for X-OpenStack-Ironic-API-Version header: expected 'latest' or MAJOR.MINOR",
        ),
    ],
)
def test_ironic_unsupported_versions(client: TestClient, header: str, text: str) -> None:
    response = client.get("/baremetal/v1/nodes", headers={"X-OpenStack-Ironic-API-Version": header})
    assert response.status_code == 406
    assert json.loads(response.json()["error_message"])["faultstring"] == text
    assert response.headers["x-openstack-ironic-api-minimum-version"] == "1.1"
    assert response.headers["x-openstack-ironic-api-maximum-version"] == "1.115"


def test_nova_documents(client: TestClient) -> None:
    v21 = {
        "id": "v2.1",
        "status": "CURRENT",
        "version": "2.104",
        "min_version": "2.1",
        "updated": "2013-07-23T11:33:21Z",
        "links": [{"href": f"{BASE}/compute/v2.1/", "rel": "self"}],
    }
    # Nova 34 still lists the deprecated v2.0 first (tests/integration/
    # test_compute_matches_real_nova.py compares with the real one).
    v20 = {
        "id": "v2.0",
        "status": "DEPRECATED",
        "version": "",
        "min_version": "",
        "updated": "2025-07-04T12:00:00Z",
        "links": [{"href": f"{BASE}/compute/v2/", "rel": "self"}],
    }
    assert client.get("/compute/").json() == {"versions": [v20, v21]}
    body = client.get("/compute/v2.1").json()["version"]
    assert body["id"] == "v2.1" and body["version"] == "2.104"
    assert body["media-types"] == [
        {"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}
    ]


@pytest.mark.parametrize(
    ("headers", "negotiated"),
    [
        ({}, "2.1"),
        ({"OpenStack-API-Version": "compute 2.55"}, "2.55"),
        ({"OpenStack-API-Version": "compute latest"}, "2.104"),
        ({"X-OpenStack-Nova-API-Version": "2.61"}, "2.61"),
        # The standard header wins over the legacy one.
        ({"OpenStack-API-Version": "compute 2.86", "X-OpenStack-Nova-API-Version": "2.61"}, "2.86"),
        # Another service's version in the standard header is ignored.
        ({"OpenStack-API-Version": "baremetal 1.50"}, "2.1"),
        # Several services in one header, as Nova reads it: the last one naming compute wins.
        ({"OpenStack-API-Version": "baremetal 1.50, compute 2.60"}, "2.60"),
        ({"OpenStack-API-Version": "compute 2.10, compute 2.20"}, "2.20"),
    ],
)
def test_nova_negotiation(client: TestClient, headers: dict[str, str], negotiated: str) -> None:
    response = client.get("/compute/v2.1", headers=headers)
    assert response.status_code == 200
    assert response.headers["openstack-api-version"] == f"compute {negotiated}"
    assert response.headers["x-openstack-nova-api-version"] == negotiated
    assert "OpenStack-API-Version" in response.headers["vary"]


@pytest.mark.parametrize(
    ("value", "status", "text"),
    [
        (
            "compute 2.105",
            406,
            "Version 2.105 is not supported by the API. Minimum is 2.1 and maximum is 2.104.",
        ),
        (
            "compute 2.0",
            406,
            "Version 2.0 is not supported by the API. Minimum is 2.1 and maximum is 2.104.",
        ),
        (
            "compute abc",
            400,
            "API Version String abc is of invalid format. Must be of format MajorNum.MinorNum.",
        ),
    ],
)
def test_nova_unsupported_versions(client: TestClient, value: str, status: int, text: str) -> None:
    response = client.get("/compute/v2.1/flavors", headers={"OpenStack-API-Version": value})
    assert response.status_code == status
    assert response.json() == {
        ("computeFault" if status == 406 else "badRequest"): {"code": status, "message": text}
    }
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    if status == 406:  # Nova echoes the version it refuses
        assert response.headers["openstack-api-version"] == value
        assert response.headers["x-openstack-nova-api-version"] == value.split()[1]
    else:
        assert "openstack-api-version" not in response.headers


@pytest.mark.parametrize(
    ("headers", "shown"),
    [
        ([("X-OpenStack-Ironic-API-Version", "1.2, 1.3")], "1.2, 1.3"),
        (
            [("X-OpenStack-Ironic-API-Version", "1.2"), ("X-OpenStack-Ironic-API-Version", "1.3")],
            "1.2,1.3",
        ),
    ],
)
def test_ironic_reads_its_header_whole(
    client: TestClient, headers: list[tuple[str, str]], shown: str
) -> None:
    """Ironic reads X-OpenStack-Ironic-API-Version as one value: a list (or the header sent
    twice, folded with a comma) is malformed, not its last version."""
    response = client.get("/baremetal/v1/nodes", headers=headers)
    assert response.status_code == 406
    assert json.loads(response.json()["error_message"])["faultstring"] == (
        f"Invalid value {shown!r} for X-OpenStack-Ironic-API-Version header: "
        "expected 'latest' or MAJOR.MINOR"
    )


def test_nova_repeated_header_is_folded_as_one(client: TestClient) -> None:
    """A header sent twice counts as one comma-separated header, as behind Nova's WSGI server."""
    headers = [("OpenStack-API-Version", "compute 2.10"), ("OpenStack-API-Version", "compute 2.20")]
    response = client.get("/compute/v2.1", headers=headers)
    assert response.headers["openstack-api-version"] == "compute 2.20"


def test_octavia_document(client: TestClient) -> None:
    body = client.get("/load-balancer/").json()
    assert [v["id"] for v in body["versions"]] == [f"v2.{n}" for n in range(31)]
    assert {v["status"] for v in body["versions"][:-1]} == {"SUPPORTED"}
    assert body["versions"][-1]["status"] == "CURRENT"
    assert body["versions"][-1]["links"] == [{"href": f"{BASE}/load-balancer/v2", "rel": "self"}]
