"""Hostile paths, query strings, headers and field values are a 4xx in the API family's own
error body, with a request id and a log line, on SQLite and PostgreSQL; never a 500."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.logs import FORMATS, fields_of, formatter
from tests.api.test_errors import message

IRONIC = {"X-OpenStack-Ironic-API-Version": "latest"}
NOVA = {"OpenStack-API-Version": "compute latest"}
NODES = "/baremetal/v1/nodes"
# How a 5002-character version appears in a message: its first 40 characters.
CUT_1 = "1." + "1" * 38 + "… (5002 characters)"
CUT_2 = "2." + "1" * 38 + "… (5002 characters)"
CUT_9 = "9" * 40 + "… (5002 characters)"


def _family(path: str) -> str:
    for prefix, family in (
        ("/baremetal/", "baremetal"),
        ("/compute/", "compute"),
        ("/load-balancer/", "load-balancer"),
    ):
        if path.startswith(prefix):
            return family
    return "native"


def _answer(response: Any, path: str, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["x-openstack-request-id"].startswith("req-")
    return message(_family(path), response)


@pytest.mark.parametrize(
    "path",
    [
        f"{NODES}/%00",
        f"{NODES}/%00/traits",
        "/baremetal/v1/deploy_templates/%00",
        "/compute/v2.1/flavors/%00",
        "/compute/v2.1/flavors/%00/os-extra_specs",
        "/compute/v2.1/flavors/x/os-extra_specs/%00",
        "/load-balancer/v2/lbaas/flavors/%00",
        "/load-balancer/v2.0/lbaas/flavorprofiles/%00",
        "/v1/nodes/%00/flavors",
        "/v1/catalog/flavors/a%0Ab",
    ],
)
def test_a_control_character_in_a_path_segment_is_a_400(client: TestClient, path: str) -> None:
    text = _answer(client.get(path, headers={**IRONIC, **NOVA}), path, 400)
    assert text.startswith("The path segment '") and "holds a control character (U+00" in text
    assert "identifiers and names never do" in text


@pytest.mark.parametrize(
    "path",
    [
        f"{NODES}?resource_class=%00",
        f"{NODES}/detail?driver=a%00",
        "/baremetal/v1/deploy_templates?sort_key=%0D",
        "/compute/v2.1/flavors?name=%00",
        "/compute/v2.1/flavors/detail?marker=%00",
        "/load-balancer/v2/lbaas/flavors?name=%00",
        "/load-balancer/v2/lbaas/flavorprofiles?name=%7F",
    ],
)
def test_a_control_character_in_a_query_parameter_is_a_400(client: TestClient, path: str) -> None:
    text = _answer(client.get(path, headers={**IRONIC, **NOVA}), path, 400)
    name = path.split("?")[1].split("=")[0]
    assert text.startswith(f"The query parameter '{name}' holds a control character (U+00")


@pytest.mark.parametrize(
    ("path", "headers", "says"),
    [
        (
            NODES,
            {"X-OpenStack-Ironic-API-Version": "1." + "1" * 5000},
            f"Version {CUT_1} was "
            "requested but the minor version is not supported by this service. The "
            "supported version range is: [1.1, 1.115].",
        ),
        (
            NODES,
            {"X-OpenStack-Ironic-API-Version": "9" * 5000 + ".1"},
            f"Version {CUT_9} was "
            "requested but the minor version is not supported by this service. The "
            "supported version range is: [1.1, 1.115].",
        ),
        (
            "/compute/v2.1/flavors",
            {"OpenStack-API-Version": "compute 2." + "1" * 5000},
            f"Version {CUT_2} is not supported by the API. Minimum is 2.1 and maximum is 2.104.",
        ),
        (
            "/compute/v2.1/flavors",
            {"X-OpenStack-Nova-API-Version": "2." + "1" * 5000},
            f"Version {CUT_2} is not supported by the API. Minimum is 2.1 and maximum is 2.104.",
        ),
    ],
)
def test_a_microversion_of_thousands_of_digits_is_a_406_with_a_log_line(
    client: TestClient,
    caplog: pytest.LogCaptureFixture,
    path: str,
    headers: dict[str, str],
    says: str,
) -> None:
    with caplog.at_level(logging.INFO, logger="flavorsmith.api"):
        response = client.get(path, headers=headers)
    assert _answer(response, path, 406) == says
    request_id = response.headers["x-openstack-request-id"]
    lines = [fields_of(r) for r in caplog.records if fields_of(r).get("event") == "request"]
    assert [(line["request_id"], line["status"]) for line in lines] == [(request_id, 406)]


def test_a_malformed_microversion_is_echoed_short(client: TestClient) -> None:
    response = client.get(NODES, headers={"X-OpenStack-Ironic-API-Version": "x" * 5000})
    assert _answer(response, NODES, 406) == (
        "Invalid value 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (5000 characters)' for "
        "X-OpenStack-Ironic-API-Version header: expected 'latest' or MAJOR.MINOR"
    )


def test_an_unhandled_error_logs_an_escaped_path(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Line and paragraph separators in a path must not start a forged line in the log."""

    async def explode(rest: str) -> None:
        raise RuntimeError("boom")

    client.app.router.add_api_route("/v1/probe/explode/{rest:path}", explode)  # type: ignore[attr-defined]
    with caplog.at_level(logging.INFO, logger="flavorsmith.api"):
        response = client.get("/v1/probe/explode/x%E2%80%A8INFO%20forged%C2%85line")
    assert response.status_code == 500
    (record,) = [r for r in caplog.records if r.getMessage().startswith("unhandled error")]
    assert record.getMessage() == (
        f"unhandled error in GET /v1/probe/explode/x\\u2028INFO forged\\x85line "
        f"[{response.headers['x-openstack-request-id']}]"
    )


def test_a_refused_path_is_logged_escaped(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="flavorsmith.api"):
        response = client.get("/v1/catalog/a%0A2026-01-01%20INFO%20forged")
    assert response.status_code == 400
    (record,) = [r for r in caplog.records if fields_of(r).get("event") == "request"]
    assert fields_of(record)["path"] == "/v1/catalog/a\n2026-01-01 INFO forged"
    for fmt in FORMATS:  # written as one line in either format
        line = formatter(fmt).format(record)
        assert "\n" not in line and "a\\n2026-01-01 INFO forged" in line


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("limit=%C2%B2", "Invalid input for query parameters limit. Value: ². '²' does not"),
        ("limit=%D9%A3", "Invalid input for query parameters limit. Value: ٣. '٣' does not"),
        ("limit=" + "9" * 5000, "Invalid input for query parameters limit. Value: '99999"),
        ("minRam=%C2%B2", "Invalid minRam filter [²]"),
        ("minRam=18446744073709551616", "Invalid minRam filter [18446744073709551616]"),
        ("minDisk=9223372036854775808", "Invalid minDisk filter [9223372036854775808]"),
        ("minDisk=" + "9" * 5000, "Invalid minDisk filter ['9999"),
    ],
)
def test_compute_list_filters_are_ascii_64_bit_integers(
    client: TestClient, query: str, says: str
) -> None:
    for path in ("/compute/v2.1/flavors", "/compute/v2.1/flavors/detail"):
        text = _answer(client.get(f"{path}?{query}", headers=NOVA), path, 400)
        assert text.startswith(says), text


def test_compute_filters_at_the_64_bit_edge_still_answer(client: TestClient) -> None:
    response = client.get("/compute/v2.1/flavors?minRam=9223372036854775807&minDisk=0")
    assert response.status_code == 200 and response.json() == {"flavors": []}


@pytest.mark.parametrize(
    ("path", "says"),
    [
        (f"{NODES}?limit=%C2%B2", "Expected an integer for limit: '²'"),
        (f"{NODES}?limit=" + "1" * 5000, None),
        (f"{NODES}?maintenance=%C2%B2", "Invalid maintenance: unrecognized value '²'"),
        ("/baremetal/v1/deploy_templates?limit=%D9%A3", "Expected an integer for limit: '٣'"),
        ("/load-balancer/v2/lbaas/flavors?limit=%C2%B2", "Invalid limit '²': use a positive"),
        ("/load-balancer/v2/lbaas/flavors?limit=" + "9" * 5000, "Invalid limit '99999"),
    ],
)
def test_other_limits_are_ascii_integers(client: TestClient, path: str, says: str | None) -> None:
    response = client.get(path, headers=IRONIC)
    if says is None:  # a limit beyond any page size is the largest page, as Ironic caps it
        assert response.status_code == 200, response.text
        return
    assert _answer(response, path, 400).startswith(says)


def _node(client: TestClient, **fields: Any) -> Any:
    body = {"driver": "fake-hardware", "name": f"len-{uuid.uuid4().hex[:10]}", **fields}
    return client.post(NODES, json=body, headers=IRONIC)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("x" * 5000, "Expected a UUID for instance_uuid but received 'xxxxxxxx"),
        (
            "urn:uuid:" + "f" * 5000,
            "Expected a UUID for instance_uuid but received 'urn:uuid:ffff",
        ),
        (5, "Expected a UUID for instance_uuid but received 5."),
    ],
)
def test_instance_uuid_must_be_a_uuid(client: TestClient, value: Any, says: str) -> None:
    assert _answer(_node(client, instance_uuid=value), NODES, 400).startswith(says)
    created = _node(client)
    assert created.status_code == 201
    patch = [{"op": "add", "path": "/instance_uuid", "value": value}]
    response = client.patch(f"{NODES}/{created.json()['uuid']}", json=patch, headers=IRONIC)
    assert _answer(response, NODES, 400).startswith(says)


def test_uuids_are_stored_in_their_canonical_form(client: TestClient) -> None:
    """Ironic accepts braces and urn:uuid:; stored as given they overflow a UUID column."""
    node_uuid, instance = uuid.uuid4(), uuid.uuid4()
    response = _node(client, uuid=f"urn:uuid:{node_uuid}", instance_uuid=f"{{{instance}}}")
    assert response.status_code == 201, response.text
    assert (response.json()["uuid"], response.json()["instance_uuid"]) == (
        str(node_uuid),
        str(instance),
    )
    template_uuid = uuid.uuid4()
    template: dict[str, Any] = {
        "uuid": f"urn:uuid:{template_uuid}",
        "name": f"CUSTOM_U_{uuid.uuid4().hex[:8].upper()}",
        "steps": [{"interface": "deploy", "step": "s", "args": {}, "priority": 1}],
    }
    response = client.post("/baremetal/v1/deploy_templates", json=template, headers=IRONIC)
    assert response.status_code == 201, response.text
    assert response.json()["uuid"] == str(template_uuid)


def test_a_patch_cannot_grow_a_field_beyond_the_depth_limit(client: TestClient) -> None:
    """Each request is within the limit, but adding a deep value inside a deep value is not."""
    nested: Any = {}
    for _ in range(30):
        nested = {"a": nested}
    created = _node(client, extra=nested)
    assert created.status_code == 201, created.text
    deep_path = "/extra" + "/a" * 29
    small: Any = {}
    for _ in range(20):
        small = {"b": small}
    patch = [{"op": "add", "path": deep_path + "/b", "value": small}]
    response = client.patch(f"{NODES}/{created.json()['uuid']}", json=patch, headers=IRONIC)
    text = _answer(response, NODES, 400)
    assert text.startswith("Invalid value: extra.a.a.a")
    assert text.endswith("nested more than 32 levels deep; at most 32 are allowed")
    shown = client.get(f"{NODES}/{created.json()['uuid']}", headers=IRONIC)
    assert shown.status_code == 200 and shown.json()["extra"] == nested


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        (
            "/compute/v2.1/flavors",
            {"flavor": {"name": "big", "ram": "9" * 5000, "vcpus": 1, "disk": 1}},
            "Invalid input for field/attribute ram. Value: '99999",
        ),
        (
            "/baremetal/v1/deploy_templates",
            {
                "name": "CUSTOM_BIG_PRIORITY",
                "steps": [{"interface": "deploy", "step": "s", "args": {}, "priority": "9" * 5000}],
            },
            # Ironic 39's wording for a priority its schema refuses.
            "Schema error for template: '99999",
        ),
        (NODES, {"driver": "fake-hardware", "name": "trailing\n"}, "Cannot use 'trailing\\n'"),
        (
            "/compute/v2.1/flavors",
            {"flavor": {"name": "n", "id": "id\n", "ram": 1, "vcpus": 1, "disk": 1}},
            "Invalid input for field/attribute id. Value: id\n",
        ),
    ],
)
def test_long_digit_strings_and_trailing_newlines_are_refused(
    client: TestClient, path: str, body: Any, says: str
) -> None:
    response = client.post(path, json=body, headers={**IRONIC, **NOVA})
    assert _answer(response, path, 400).startswith(says)


def test_a_trait_with_a_trailing_newline_is_refused(client: TestClient) -> None:
    created = _node(client)
    url = f"{NODES}/{created.json()['uuid']}/traits"
    response = client.put(url, json={"traits": ["CUSTOM_X\n"]}, headers=IRONIC)
    assert _answer(response, NODES, 400).startswith("Invalid trait 'CUSTOM_X\\n'")
