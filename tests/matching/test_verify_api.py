"""GET /v1/verify: the same report as ``flavorsmith verify -f json`` on the service's own
data, for admins only."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke


@pytest.fixture(scope="module")
def client(
    example_engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        "reader-token: {user: carol, project: p1, roles: [reader]}\n"
    )
    app = build_app(example_engine, auth="token-file", token_file=tokens)
    with TestClient(app) as test_client:
        yield test_client


def test_the_same_report_as_the_command(
    client: TestClient, cli: Invoke, example_db_url: str
) -> None:
    response = client.get("/v1/verify", headers={"X-Auth-Token": "admin-token"})
    assert response.status_code == 200
    body = response.json()
    # The example inventory's flavors were never synced into its compute API.
    assert body["aligned"] is False
    assert body["counts"] == {"flavor-missing": 12}
    assert body["checked"]["nodes"] == 350
    command = cli("verify", "--repo", str(EXAMPLES), "--database", example_db_url, "-f", "json")
    assert command.exit_code == 1
    assert json.loads(command.stdout) == body


def test_admins_only_and_no_parameters(client: TestClient) -> None:
    refused = client.get("/v1/verify", headers={"X-Auth-Token": "reader-token"})
    assert (refused.status_code, refused.json()) == (
        403,
        {
            "type": "about:blank",
            "title": "Forbidden",
            "status": 403,
            "detail": "Policy does not allow flavorsmith:verify:get",
        },
    )
    assert client.get("/v1/verify").status_code == 401
    bad = client.get("/v1/verify?cloud=lab", headers={"X-Auth-Token": "admin-token"})
    assert bad.status_code == 400
