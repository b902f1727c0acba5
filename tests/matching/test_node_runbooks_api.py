"""GET /v1/nodes/{ident}/runbooks, what the dashboard's node page shows of runbooks: the same
report as ``flavorsmith runbook plan NODE`` (one function makes both), on the example catalog's
runbooks and nodes; a caller who is not an admin sees the runbooks Ironic would show them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.matching.conftest import load_examples

TOKENS = (
    "admin-token: {user: alice, project: ops, roles: [admin]}\n"
    "reader-token: {user: carol, project: p1, roles: [reader]}\n"
)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, str]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('r') / 'examples.db'}"
    engine = make_engine(url)
    load_examples(engine)
    yield engine, url
    engine.dispose()


@pytest.fixture(scope="module")
def client(
    database: tuple[Engine, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(TOKENS)
    app = build_app(database[0], repo=EXAMPLES, auth="token-file", token_file=tokens)
    with TestClient(app) as test_client:
        yield test_client


def get(client: TestClient, url: str, token: str = "admin-token") -> tuple[int, Any]:
    response = client.get(url, headers={"X-Auth-Token": token})
    return response.status_code, response.json()


@pytest.mark.parametrize("node", ["r7615-a01-u03", "dl360-c01-u02", "xe9680-g01-u06"])
def test_the_same_report_as_runbook_plan(
    client: TestClient, database: tuple[Engine, str], cli: Invoke, node: str
) -> None:
    status, body = get(client, f"/v1/nodes/{node}/runbooks")
    assert status == 200
    command = cli(
        "runbook", "plan", node, "--repo", str(EXAMPLES), "--database", database[1], "-f", "json"
    )
    assert command.exit_code == 0, command.output
    assert json.loads(command.stdout) == body
    assert [r["runbook"] for r in body["runbooks"]] == [
        "bios-gpu-servicing",
        "firmware-update",
        "raid-rebuild",
    ]


def test_the_gpu_node_may_run_the_gpu_servicing_and_the_nvme_runbooks(client: TestClient) -> None:
    _, body = get(client, "/v1/nodes/xe9680-g01-u06/runbooks")
    assert (body["node"], body["driver"], body["problems"]) == ("xe9680-g01-u06", "idrac", [])
    allowed = {r["runbook"]: r["because"] for r in body["runbooks"] if r["allowed"]}
    assert allowed == {
        "bios-gpu-servicing": ["CUSTOM_GPU"],
        "firmware-update": ["CUSTOM_NVME"],
        "raid-rebuild": ["CUSTOM_NVME"],
    }


def test_an_unknown_node_is_404(client: TestClient) -> None:
    status, body = get(client, "/v1/nodes/nope/runbooks")
    assert status == 404
    assert "nope" in json.dumps(body)


def test_a_project_sees_only_the_runbooks_ironic_shows_it(client: TestClient) -> None:
    # The example runbooks are private to the operator (public: false, no owner), as Ironic
    # keeps them from a project's reader.
    status, body = get(client, "/v1/nodes/r7615-a01-u03/runbooks", "reader-token")
    assert (status, body["runbooks"], body["problems"]) == (200, [], [])
