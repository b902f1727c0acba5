"""Every error class, in each API's own error body, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import PROBE_ROOTS, ClientFactory

FAMILIES = sorted(PROBE_ROOTS)


def message(family: str, response: Any) -> str:
    """The error message, read the way each service's clients read it."""
    body = response.json()
    if family == "baremetal":
        assert set(body) == {"error_message"}
        inner = json.loads(body["error_message"])
        assert set(inner) == {"faultcode", "faultstring", "debuginfo"}
        assert inner["faultcode"] == ("Client" if response.status_code < 500 else "Server")
        return str(inner["faultstring"])
    if family == "compute":
        (name,) = body
        assert body[name]["code"] == response.status_code
        return str(body[name]["message"])
    if family == "load-balancer":
        assert set(body) == {"faultcode", "faultstring", "debuginfo"}
        return str(body["faultstring"])
    assert response.headers["content-type"] == "application/problem+json"
    assert body["status"] == response.status_code
    return str(body["detail"])


NOVA_NAMES = {
    400: "badRequest",
    404: "itemNotFound",
    405: "badMethod",
    413: "overLimit",
    415: "badMediaType",
    500: "computeFault",
    403: "forbidden",
    401: "unauthorized",
}


def check(family: str, response: Any, status: int, text: str) -> None:
    assert response.status_code == status
    assert message(family, response) == text
    assert response.headers["x-openstack-request-id"].startswith("req-")
    if family == "compute":
        assert next(iter(response.json())) == NOVA_NAMES[status]


@pytest.mark.parametrize("family", FAMILIES)
def test_malformed_json(client: TestClient, family: str) -> None:
    response = client.post(
        f"{PROBE_ROOTS[family]}/probe/body",
        content=b'{"name": ',
        headers={"content-type": "application/json"},
    )
    check(
        family,
        response,
        400,
        "Malformed JSON in the request body: Expecting value at line 1 column 10",
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_wrong_content_type(client: TestClient, family: str) -> None:
    response = client.post(
        f"{PROBE_ROOTS[family]}/probe/body", content=b"{}", headers={"content-type": "text/xml"}
    )
    # (The form content types a web page can send are refused earlier, as cross-site writes.)
    check(family, response, 415, "Content-Type 'text/xml' is not supported; send application/json")


@pytest.mark.parametrize("family", FAMILIES)
def test_valid_body_passes(client: TestClient, family: str) -> None:
    response = client.post(f"{PROBE_ROOTS[family]}/probe/body", json={"a": [1, 2]})
    assert (response.status_code, response.json()) == (200, {"received": {"a": [1, 2]}})


@pytest.mark.parametrize("family", FAMILIES)
def test_unknown_query_parameter(client: TestClient, family: str) -> None:
    response = client.get(f"{PROBE_ROOTS[family]}/probe/query?limit=1&bogus=2")
    check(family, response, 400, "Unknown query parameter 'bogus'; allowed: limit, marker")


@pytest.mark.parametrize("family", FAMILIES)
def test_oversized_body(make_client: ClientFactory, family: str) -> None:
    small = make_client(max_body_bytes=100)
    response = small.post(f"{PROBE_ROOTS[family]}/probe/body", json={"x": "y" * 200})
    check(family, response, 413, "Request body is 208 bytes; at most 100 bytes are accepted")


@pytest.mark.parametrize("family", FAMILIES)
def test_oversized_chunked_body(make_client: ClientFactory, family: str) -> None:
    small = make_client(max_body_bytes=100)

    def chunks() -> Any:
        yield b'{"x": "'
        yield b"y" * 200
        yield b'"}'

    response = small.post(
        f"{PROBE_ROOTS[family]}/probe/body",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    check(family, response, 413, "Request body is larger than 100 bytes, the most accepted")


@pytest.mark.parametrize(
    ("family", "text"),
    [
        ("baremetal", "The resource could not be found."),
        ("compute", "The resource could not be found."),
        ("load-balancer", "The resource could not be found."),
        ("native", "No such resource: /v1/no-such-thing"),
    ],
)
def test_unknown_route(client: TestClient, family: str, text: str) -> None:
    check(family, client.get(f"{PROBE_ROOTS[family]}/no-such-thing"), 404, text)


@pytest.mark.parametrize("family", FAMILIES)
def test_method_not_allowed(client: TestClient, family: str) -> None:
    path = f"{PROBE_ROOTS[family]}/probe/query"
    check(family, client.delete(path), 405, f"Method DELETE is not allowed on {path}")


@pytest.mark.parametrize("family", FAMILIES)
def test_unexpected_error_is_a_500_that_leaks_nothing(
    client: TestClient, family: str, caplog: pytest.LogCaptureFixture
) -> None:
    response = client.get(f"{PROBE_ROOTS[family]}/probe/boom")
    request_id = response.headers["x-openstack-request-id"]
    check(
        family,
        response,
        500,
        f"An unexpected error occurred; the service log has the details ({request_id}).",
    )
    assert "SELECT" not in response.text
    assert any(request_id in r.getMessage() and r.exc_info for r in caplog.records)
