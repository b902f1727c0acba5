"""The same requests to a real Ironic 39 and to this service get the same whole answer: status
and body, with identities, times and the service's root URL normalised. One Ironic for the
module; each test makes its own nodes and templates."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ironic_api import running_ironic

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00")
# Kept here beyond Ironic 39 (docs/reference/ironic-api.md): a deploy template's description.
OURS_ONLY = {"description"}

Answer = tuple[int, Any]


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


@pytest.fixture(scope="module")
def ours(sqlite_server: str) -> str:
    return f"{sqlite_server}/baremetal"


def normal(value: Any, root: str) -> Any:
    """``value`` with the service's root URL, UUIDs and timestamps replaced by placeholders,
    an Ironic error's inner JSON read, and this service's extra fields dropped."""
    if isinstance(value, dict):
        if set(value) == {"error_message"} and isinstance(value["error_message"], str):
            return {"error_message": normal(json.loads(value["error_message"]), root)}
        return {k: normal(v, root) for k, v in value.items() if k not in OURS_ONLY}
    if isinstance(value, list):
        return [normal(v, root) for v in value]
    if isinstance(value, str):
        return TIME_RE.sub("<time>", UUID_RE.sub("<uuid>", value.replace(root, "<root>")))
    return value


def call(
    root: str,
    path: str,
    method: str = "GET",
    body: Any = None,
    version: str = "latest",
    raw: bytes | None = None,
) -> Answer:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(f"{root}/v1{path}", data=data, method=method)
    request.add_header("X-OpenStack-Ironic-API-Version", version)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        text = error.read()
        status = error.code
    return status, normal(json.loads(text), root) if text else None


def both(ironic: str, ours: str, path: str, method: str = "GET", **kwargs: Any) -> list[Answer]:
    """The real Ironic's answer, then ours."""
    return [call(root, path, method, **kwargs) for root in (ironic, ours)]


def alike(ironic: str, ours: str, path: str, method: str = "GET", **kwargs: Any) -> Answer:
    """The one answer both give (the test fails showing both otherwise)."""
    real, mine = both(ironic, ours, path, method, **kwargs)
    assert mine == real
    return real


def node(ironic: str, ours: str) -> str:
    """A new node of the same name on both services."""
    name = f"n-{uuid.uuid4().hex[:8]}"
    for root in (ironic, ours):
        assert call(root, "/nodes", "POST", {"driver": "fake-hardware", "name": name})[0] == 201
    return name


def fault(answer: Answer) -> str:
    return str(answer[1]["error_message"]["faultstring"])


# Nodes and traits


def test_a_driver_that_is_not_enabled_is_refused_alike(ironic: str, ours: str) -> None:
    for body in (
        {"driver": "nope"},
        {"driver": "nope", "name": f"n-{uuid.uuid4().hex[:8]}", "conductor_group": "rack-4"},
    ):
        status, _ = answer = alike(ironic, ours, "/nodes", "POST", body=body)
        assert status == 400
        assert "Ensure the driver is valid and enabled." in fault(answer)
    name = node(ironic, ours)
    patch = [{"op": "replace", "path": "/driver", "value": "nope"}]
    assert alike(ironic, ours, f"/nodes/{name}", "PATCH", body=patch)[0] == 400


def test_replacing_traits_without_a_body_is_refused_alike(ironic: str, ours: str) -> None:
    name = node(ironic, ours)
    path = f"/nodes/{name}/traits"
    assert alike(ironic, ours, path, "PUT", body={"traits": ["CUSTOM_KEEP"]}) == (204, None)
    for body in (None, {}, {"traits": None}, {"traits": "CUSTOM_A"}, [], {"a": 1, "b": 2}):
        assert alike(ironic, ours, path, "PUT", body=body)[0] == 400
    assert alike(ironic, ours, "/nodes/no-such-node/traits", "PUT")[0] == 404
    assert alike(ironic, ours, path) == (200, {"traits": ["CUSTOM_KEEP"]})


def test_removing_a_malformed_trait_is_a_plain_404_alike(ironic: str, ours: str) -> None:
    name = node(ironic, ours)
    for trait in ("bad%20trait", "lowercase", "CUSTOM_ABSENT"):
        assert alike(ironic, ours, f"/nodes/{name}/traits/{trait}", "DELETE")[0] == 404


def test_traits_before_1_37_are_answered_alike(ironic: str, ours: str) -> None:
    name = node(ironic, ours)
    for method, path, body in (
        ("PUT", f"/nodes/{name}/traits/CUSTOM_A", None),
        ("PUT", f"/nodes/{name}/traits", {"traits": ["CUSTOM_A"]}),
        ("DELETE", f"/nodes/{name}/traits/CUSTOM_A", None),
        ("DELETE", f"/nodes/{name}/traits", None),
    ):
        status, _ = alike(ironic, ours, path, method, body=body, version="1.36")
        assert status == (405 if method == "PUT" else 404)
    assert alike(ironic, ours, f"/nodes/{name}/traits") == (200, {"traits": []})


def test_detail_with_fields_is_refused_alike(ironic: str, ours: str) -> None:
    for query in ("detail=true&fields=uuid", "detail=1&fields="):
        status, _ = alike(ironic, ours, f"/nodes?{query}")
        assert status == 400


def test_one_nodes_traits_are_shown_alike(ironic: str, ours: str) -> None:
    name = node(ironic, ours)
    assert alike(ironic, ours, f"/nodes/{name}?fields=traits")[1]["traits"] == []
    alike(ironic, ours, f"/nodes/{name}/traits", "PUT", body={"traits": ["CUSTOM_B", "CUSTOM_A"]})
    for query in ("fields=traits", "fields=traits,name", "fields=name,traits"):
        status, body = alike(ironic, ours, f"/nodes/{name}?{query}")
        assert status == 200 and sorted(body["traits"]) == ["CUSTOM_A", "CUSTOM_B"]


# Deploy templates


def template(name: str, priority: Any) -> dict[str, Any]:
    step = {"interface": "deploy", "step": "deploy", "args": {}, "priority": priority}
    return {"name": name, "steps": [step]}


def unique_trait() -> str:
    return f"CUSTOM_CMP_{uuid.uuid4().hex[:10].upper()}"


def test_a_digit_string_priority_is_stored_as_a_number_alike(ironic: str, ours: str) -> None:
    for sent in ("10", "010", 10.0):
        name = unique_trait()
        status, created = alike(
            ironic, ours, "/deploy_templates", "POST", body=template(name, sent)
        )
        assert status == 201 and created["steps"][0]["priority"] == sent
        status, shown = alike(ironic, ours, f"/deploy_templates/{name}")
        assert status == 200 and shown["steps"][0]["priority"] == 10
    for refused in (" 10", "-1", "1x", -1, 10.5, None, True):
        body = template(unique_trait(), refused)
        assert alike(ironic, ours, "/deploy_templates", "POST", body=body)[0] == 400


def test_the_list_marker_is_a_uuid_alike(ironic: str, ours: str) -> None:
    name = unique_trait()
    for root in (ironic, ours):
        assert call(root, "/deploy_templates", "POST", template(name, 10))[0] == 201
    for marker in (name, "not-a-uuid", str(uuid.uuid4())):
        assert alike(ironic, ours, f"/deploy_templates?marker={marker}")[0] == 404
    for root in (ironic, ours):  # each service's own template UUID is a marker it takes
        page = call(root, f"/deploy_templates?marker={first_uuid(root, name)}")
        assert page[0] == 200 and name not in [t["name"] for t in page[1]["deploy_templates"]]


def first_uuid(root: str, name: str) -> str:
    """The real UUID of template ``name`` (answers are normalised)."""
    request = urllib.request.Request(f"{root}/v1/deploy_templates/{name}")
    request.add_header("X-OpenStack-Ironic-API-Version", "latest")
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["uuid"])


def test_an_invalid_identifier_is_refused_alike(ironic: str, ours: str) -> None:
    for method in ("GET", "PATCH", "DELETE"):
        body = [] if method == "PATCH" else None
        for ident in ("bad%20name", "A" * 256):
            status, _ = alike(ironic, ours, f"/deploy_templates/{ident}", method, body=body)
            assert status == 400
        status, _ = alike(ironic, ours, "/deploy_templates/CUSTOM_NONE", method, body=body)
        assert status == 404


def test_an_empty_patch_changes_nothing_alike(ironic: str, ours: str) -> None:
    name = unique_trait()
    for root in (ironic, ours):
        assert call(root, "/deploy_templates", "POST", template(name, 10))[0] == 201
    status, body = alike(ironic, ours, f"/deploy_templates/{name}", "PATCH", body=[])
    assert status == 200 and body["updated_at"] is None
    assert alike(ironic, ours, f"/deploy_templates/{name}")[1] == body
