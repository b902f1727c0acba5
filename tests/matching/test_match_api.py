"""The matching API under /v1 on the example catalog and inventory, on both databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import writer
from flavorsmith.store import nodes as store
from tests.api.conftest import build_app


@pytest.fixture(scope="module")
def client(example_engine: Engine) -> Iterator[TestClient]:
    with TestClient(build_app(example_engine)) as test_client:
        yield test_client


def test_nodes_of_a_flavor_in_pages(client: TestClient) -> None:
    first = client.get("/v1/flavors/g1.8xh100/nodes?limit=10").json()
    assert first["count"] == 16 and len(first["nodes"]) == 10
    rest = client.get(first["next"].replace("http://testserver", "")).json()
    assert len(rest["nodes"]) == 6 and "next" not in rest
    names = [n["name"] for n in first["nodes"] + rest["nodes"]]
    assert len(set(names)) == 16 and all(n.startswith("xe9680-") for n in names)
    available = client.get("/v1/flavors/g1.8xh100/nodes?available=true").json()
    assert all(n["available"] for n in available["nodes"])


def test_pages_follow_the_filter_and_the_marker(client: TestClient) -> None:
    """Pages cut on the bitmaps give the nodes of one unpaged answer, in its order, with the
    available filter applied before the count and the cut."""
    every = client.get("/v1/flavors/m1.small/nodes").json()
    assert every["count"] == len(every["nodes"]) > 7
    for available in ("true", "false"):
        seen: list[dict[str, object]] = []
        url = f"/v1/flavors/m1.small/nodes?available={available}&limit=7"
        while url:
            page = client.get(url).json()
            seen += page["nodes"]
            assert len(page["nodes"]) <= 7
            url = page.get("next", "").replace("http://testserver", "")
        wanted = [n for n in every["nodes"] if n["available"] == (available == "true")]
        assert seen == wanted and page["count"] == len(wanted)
    other = client.get("/v1/flavors/g1.8xh100/nodes?limit=1").json()["nodes"][0]["uuid"]
    for marker in (other, "not-a-node"):
        answer = client.get(f"/v1/flavors/m1.small/nodes?marker={marker}")
        assert answer.status_code == 400
        assert f"Marker {marker!r} is not one of this flavor's nodes" in answer.text
    assert client.get("/v1/flavors/no-such-flavor/nodes").status_code == 404


def test_flavors_of_a_node_and_explanations(client: TestClient) -> None:
    gpu = client.get("/v1/nodes/xe9680-g01-u06/flavors").json()
    assert gpu["flavors"] == ["g1.8xh100"]
    explained = client.get("/v1/flavors/m1.small.no-gpu/nodes/xe9680-g01-u06").json()
    assert explained["match"] is False
    assert [r["kind"] for r in explained["reasons"]] == ["resource-class", "forbidden-trait"]


def test_capacity(client: TestClient) -> None:
    body = client.get("/v1/capacity").json()
    assert body["nodes"] == 350
    by_flavor = {row["flavor"]: row for row in body["flavors"]}
    assert by_flavor["g1.8xh100"]["matching"] == 16
    assert by_flavor["c2.diskless"]["exclusive"] == 30
    assert body["findings"]["resource_classes_without_flavor"] == ["baremetal"]
    assert len(body["findings"]["nodes_without_flavor"]) == 4


def test_answers_follow_node_changes(client: TestClient, example_engine: Engine) -> None:
    before = client.get("/v1/flavors/m1.small.nicX/nodes").json()["count"]
    with writer(example_engine).begin() as connection:
        node = store.find(connection, "unknown-z01-u01", by_name=True)
        store.save(connection, node, {"resource_class": "m1.small"})
        store.add_trait(connection, node, "CUSTOM_NICX")
    after = client.get("/v1/flavors/m1.small.nicX/nodes").json()
    assert after["count"] == before + 1
    assert after["generation"] > 1


def test_node_entries_follow_a_renamed_node(client: TestClient, example_engine: Engine) -> None:
    """Each node's entry is written once per index: a committed rename shows on the next
    answer, and the body is the JSON document the entries make."""
    url = "/v1/flavors/g1.8xh100/nodes?limit=2"
    first = client.get(url)
    assert first.headers["content-type"] == "application/json"
    node = first.json()["nodes"][0]
    with writer(example_engine).begin() as connection:
        stored = store.find(connection, node["uuid"], by_name=False)
        store.save(connection, stored, {"name": "renamed-" + node["name"]})
    after = client.get(url).json()
    assert after["nodes"][0] == {**node, "name": "renamed-" + node["name"]}
    assert after["generation"] > first.json()["generation"]
    assert list(after) == ["flavor", "count", "generation", "nodes", "next"]
    assert after["next"].endswith(f"limit=2&marker={after['nodes'][1]['uuid']}")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/flavors/nope/nodes", 404),
        ("/v1/nodes/nope/flavors", 404),
        ("/v1/flavors/g1.8xh100/nodes?marker=nope", 400),
        ("/v1/flavors/g1.8xh100/nodes?bogus=1", 400),
        ("/v1/capacity?x=1", 400),
    ],
)
def test_errors(client: TestClient, path: str, status: int) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
