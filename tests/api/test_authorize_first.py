"""Policy is checked before anything in the request is parsed: a caller the policy refuses
gets 403 from every operation, whatever the body and the query hold (never a 400 or 500
that tells them about the request's shape), on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.middleware import PUBLIC_PATHS
from tests.api.conftest import ClientFactory
from tests.api.test_errors import message

HEADERS = {
    "X-OpenStack-Ironic-API-Version": "latest",
    "OpenStack-API-Version": "compute latest",
    "content-type": "application/json",
}
# Nova lets every authenticated caller read flavors; there is no policy to check first.
UNPOLICED = {
    ("GET", "/compute/v2.1/flavors"),
    ("GET", "/compute/v2.1/flavors/detail"),
    ("GET", "/compute/v2.1/flavors/{flavorid}"),
    # Any authenticated caller may ask what it itself may do (the dashboard's Apply button).
    ("GET", "/v1/sync/allowed"),
}
FLAVOURS = {"/baremetal": "baremetal", "/compute": "compute", "/load-balancer": "load-balancer"}


def _family(path: str) -> str:
    return next((f for p, f in FLAVOURS.items() if path.startswith(p + "/")), "native")


@pytest.fixture
def roleless(make_client: ClientFactory, tmp_path: Path) -> TestClient:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(
        "nobody-token: {user: eve, project: p9, roles: []}\n"
        "reader-token: {user: carol, project: p1, roles: [reader]}\n"
    )
    return make_client(auth="token-file", token_file=tokens)


def _operations(client: TestClient) -> list[tuple[str, str]]:
    paths: dict[str, Any] = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    return sorted(
        (method.upper(), path)
        for path, operations in paths.items()
        for method in operations
        if path not in PUBLIC_PATHS and "/probe/" not in path
    )


def test_every_policed_operation_refuses_before_parsing(roleless: TestClient) -> None:
    operations = [op for op in _operations(roleless) if op not in UNPOLICED]
    assert len(operations) > 40  # the whole API, not an empty list
    for method, template in operations:
        path = re.sub(r"\{[^}]+\}", lambda _: str(uuid.uuid4()), template)
        response = roleless.request(
            method,
            f"{path}?bogus=%C2%B2&limit=%C2%B2",
            content=b'{"unterminated": "\\ud800',
            headers={**HEADERS, "X-Auth-Token": "nobody-token"},
        )
        assert response.status_code == 403, (method, template, response.text)
        message(_family(path), response)  # in the family's own error body


def test_a_reader_cannot_learn_about_a_tenant_action_body(roleless: TestClient) -> None:
    """Nova's flavor action picks its rule from the body; a caller allowed neither action is
    refused before the body is read."""
    for body in (b"{", b"[]", b'{"addTenantAccess": {"tenant": 1e999}}', b'{"nope": {}}'):
        response = roleless.post(
            "/compute/v2.1/flavors/any/action",
            content=body,
            headers={**HEADERS, "X-Auth-Token": "reader-token"},
        )
        assert response.status_code == 403, response.text
        assert message("compute", response) == (
            "Policy doesn't allow os_compute_api:os-flavor-access:add_tenant_access to be "
            "performed."
        )


def test_a_roleless_caller_is_told_it_may_neither_plan_nor_apply(roleless: TestClient) -> None:
    response = roleless.get("/v1/sync/allowed", headers={"X-Auth-Token": "nobody-token"})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["plan"], answer["apply"]) == (False, False)
    assert "flavors" in [kind["name"] for kind in answer["kinds"]]
