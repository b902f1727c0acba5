"""GET /v1/flavors/{name}/explain and /v1/flavors/{name}/nodes/{ident}/explain on the example
catalog and inventory: the same JSON as ``flavorsmith explain -f json``, the caller's project
(or ?project= for those who may read flavor access), and one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from typer.testing import CliRunner

from flavorsmith.cli import build
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES
from tests.matching.conftest import load_examples

PRIVATE = "m1.medium.dedicated"
PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # on its access list
ADMIN = {"X-Auth-Token": "admin-token"}
INSIDER = {"X-Auth-Token": "insider-token"}
OUTSIDER = {"X-Auth-Token": "outsider-token"}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    made = make_engine(f"sqlite:///{tmp_path_factory.mktemp('explain') / 'examples.db'}")
    load_examples(made)
    yield made
    made.dispose()


@pytest.fixture(scope="module")
def client(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        f"insider-token: {{user: ivan, project: {PROJECT}, roles: [reader]}}\n"
        "outsider-token: {user: olga, project: p1, roles: [reader]}\n"
    )
    app = build_app(engine, auth="token-file", token_file=tokens)
    with TestClient(app) as test_client:
        yield test_client


def cli_json(engine: Engine, *args: str) -> object:
    url = engine.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(
        build(), ["explain", *args, "--repo", str(EXAMPLES), "--database", url, "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("path", "args"),
    [
        ("/v1/flavors/g1.8xh100/explain", ["g1.8xh100"]),
        ("/v1/flavors/g1.8xh100/nodes/xe9680-g01-u96/explain", ["g1.8xh100", "xe9680-g01-u96"]),
        (
            f"/v1/flavors/{PRIVATE}/nodes/unknown-z01-u01/explain?project=p9",
            [PRIVATE, "unknown-z01-u01", "--project", "p9"],
        ),
        (f"/v1/flavors/{PRIVATE}/explain?project=p9", [PRIVATE, "--project", "p9"]),
    ],
)
def test_the_api_answers_what_the_command_line_prints(
    client: TestClient, engine: Engine, path: str, args: list[str]
) -> None:
    response = client.get(path, headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json() == cli_json(engine, *args)


def test_a_node_in_maintenance_with_a_power_fault(client: TestClient) -> None:
    body = client.get("/v1/flavors/g1.8xh100/nodes/xe9680-g01-u96/explain", headers=ADMIN).json()
    assert body["schedulable"] is False and body["node"]["inventory"] == "reserved"
    assert [(r["layer"], r["kind"], r["subject"]) for r in body["reasons"]] == [
        ("ironic", "maintenance", None),
        ("ironic", "power-state", "error"),
        ("placement", "reserved", "CUSTOM_G1_8XH100"),
    ]


def test_the_callers_project_decides_flavor_access(client: TestClient) -> None:
    path = f"/v1/flavors/{PRIVATE}/explain"
    # An admin not naming a project is told the flavor is private; a project on the list is
    # told nothing about access.
    admin = client.get(path, headers=ADMIN).json()
    assert [(r["kind"], r["blocking"]) for r in admin["reasons"]] == [("private-flavor", False)]
    insider = client.get(path, headers=INSIDER).json()
    assert insider["project"] == PROJECT and insider["reasons"] == []
    refused = client.get(f"{path}?project=p9", headers=ADMIN).json()
    assert [(r["kind"], r["blocking"]) for r in refused["reasons"]] == [("private-flavor", True)]
    # Outside the access list the private flavor does not exist.
    hidden = client.get(path, headers=OUTSIDER)
    assert hidden.status_code == 404
    assert hidden.json()["detail"] == f"No flavor named {PRIVATE!r} in the catalog"


def test_bad_requests_are_one_line(client: TestClient) -> None:
    other = client.get("/v1/flavors/g1.8xh100/explain?project=p9", headers=OUTSIDER)
    assert other.status_code == 403
    assert other.json()["detail"] == (
        "Explaining for project 'p9' needs the right to read flavor access; "
        "omit ?project= to explain for your own project"
    )
    own = client.get("/v1/flavors/g1.8xh100/explain?project=p1", headers=OUTSIDER)
    assert own.status_code == 200 and own.json()["project"] == "p1"
    unknown = client.get("/v1/flavors/g1.8xh100/explain?projects=p1", headers=ADMIN)
    assert unknown.status_code == 400
    assert unknown.json()["detail"] == "Unknown query parameter 'projects'; allowed: project"
    node = client.get("/v1/flavors/g1.8xh100/nodes/nope/explain", headers=ADMIN)
    assert (node.status_code, node.json()["detail"]) == (404, "Node nope could not be found.")
    flavor = client.get("/v1/flavors/nope/explain", headers=ADMIN)
    assert (flavor.status_code, flavor.json()["detail"]) == (
        404,
        "No flavor named 'nope' in the catalog",
    )
    assert client.get("/v1/flavors/g1.8xh100/explain").status_code == 401


def test_the_routes_are_declared(client: TestClient) -> None:
    paths = client.get("/openapi.json", headers=ADMIN).json()["paths"]
    assert "project" in json.dumps(paths["/v1/flavors/{name}/explain"])
    assert "/v1/flavors/{name}/nodes/{ident}/explain" in paths
