"""GET /v1/matrix on the example catalog and inventory: every cell equals the matcher's answer
node by node, the filters narrow the nodes counted, and the groups page."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from flavorsmith.matching import reports
from flavorsmith.matching.match import brute_force
from flavorsmith.matching.matrix import group_id
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from tests.api.conftest import build_app
from tests.matching.conftest import load_examples


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    made = make_engine(f"sqlite:///{tmp_path_factory.mktemp('matrix') / 'examples.db'}")
    load_examples(made)
    yield made
    made.dispose()


@pytest.fixture(scope="module")
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(build_app(engine)) as test_client:
        yield test_client


def _snapshot(client: TestClient) -> Snapshot:
    index = client.app.state.services.index_cache.current()  # type: ignore[attr-defined]
    snapshot: Snapshot = index.snapshot
    return snapshot


def _expected(client: TestClient, admit: Any) -> dict[str, Any]:
    """The matrix computed node by node with the matcher's reference answer: the admitted
    nodes' groups, and per flavor the admitted nodes it matches in each group."""
    snapshot = _snapshot(client)
    catalog = client.app.state.services.catalog.view().catalog  # type: ignore[attr-defined]
    admitted = [(p, n) for p, n in enumerate(snapshot.nodes) if admit(n)]

    def key(node: NodeInfo) -> tuple[str, tuple[str, ...]]:
        return (node.resource_class or "", tuple(sorted(node.traits)))

    # Groups in the order of resource class, then their first node.
    first: dict[tuple[str, tuple[str, ...]], int] = {}
    for position, node in enumerate(snapshot.nodes):
        first.setdefault(key(node), position)
    sizes = Counter(key(n) for _, n in admitted)
    groups = sorted(sizes.items(), key=lambda item: (item[0][0], first[item[0]]))
    flavors = []
    for rule in reports.rules_of(catalog):
        hits = brute_force(rule, snapshot)
        per_group = Counter(key(n) for p, n in admitted if p in hits)
        flavors.append(
            {
                "flavor": rule.name,
                "nodes": sum(per_group.values()),
                "available": sum(1 for p, n in admitted if p in hits and n.available),
                "cells": [per_group.get(k, 0) for k, _ in groups],
            }
        )
    return {
        "nodes": len(admitted),
        "groups": [
            {"id": group_id(rc or None, traits), "traits": list(traits), "nodes": count}
            for (rc, traits), count in groups
        ],
        "flavors": flavors,
    }


def _shown(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodes": body["nodes"],
        "groups": [
            {"id": g["id"], "traits": g["traits"], "nodes": g["nodes"]} for g in body["groups"]
        ],
        "flavors": [
            {k: f[k] for k in ("flavor", "nodes", "available", "cells")} for f in body["flavors"]
        ],
    }


def test_every_cell_is_the_matcher_s_answer_and_totals_are_capacity(client: TestClient) -> None:
    body = client.get("/v1/matrix").json()
    assert _shown(body) == _expected(client, lambda node: True)
    assert body["group_count"] == len(body["groups"]) and "next" not in body
    assert body["filters"] == {"resource_class": None, "traits": [], "provision_state": None}
    capacity = client.get("/v1/capacity").json()
    assert [(f["flavor"], f["nodes"], f["available"]) for f in body["flavors"]] == [
        (f["flavor"], f["matching"], f["available"]) for f in capacity["flavors"]
    ]
    assert sum(g["nodes"] for g in body["groups"]) == capacity["nodes"]


@pytest.mark.parametrize(
    ("query", "admit"),
    [
        ("resource_class=m1.small", lambda n: n.resource_class == "m1.small"),
        ("trait=CUSTOM_NIC_MELLANOX_CX5", lambda n: "CUSTOM_NIC_MELLANOX_CX5" in n.traits),
        (
            "trait=CUSTOM_NIC_MELLANOX_CX5,CUSTOM_NVME",
            lambda n: {"CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_NVME"} <= n.traits,
        ),
        ("provision_state=active", lambda n: n.provision_state == "active"),
        (
            "resource_class=m1.small&provision_state=available",
            lambda n: n.resource_class == "m1.small" and n.provision_state == "available",
        ),
        ("resource_class=no-such-class", lambda n: False),
    ],
)
def test_a_filter_narrows_the_nodes_counted(client: TestClient, query: str, admit: Any) -> None:
    every = client.get("/v1/matrix").json()
    body = client.get(f"/v1/matrix?{query}").json()
    expected = _expected(client, admit)
    assert _shown(body) == expected
    assert body["nodes"] < every["nodes"]
    # Each filter but the last admits some nodes, and a flavor matching some of them.
    assert (body["nodes"] > 0) == (query != "resource_class=no-such-class")
    assert (max(f["nodes"] for f in body["flavors"]) > 0) == (body["nodes"] > 0)


def test_the_example_traits_of_the_filters_exist(client: TestClient) -> None:
    traits = set().union(*(n.traits for n in _snapshot(client).nodes))
    assert {"CUSTOM_NIC_MELLANOX_CX5", "CUSTOM_NVME"} <= traits


def test_the_groups_page_by_marker(client: TestClient) -> None:
    every = client.get("/v1/matrix").json()
    seen: list[dict[str, Any]] = []
    cells: dict[str, list[int]] = {f["flavor"]: [] for f in every["flavors"]}
    url = "/v1/matrix?limit=4"
    while url:
        page = client.get(url).json()
        assert len(page["groups"]) <= 4 and page["group_count"] == every["group_count"]
        seen += page["groups"]
        for row in page["flavors"]:
            cells[row["flavor"]] += row["cells"]
        url = page.get("next", "").replace("http://testserver", "")
    assert seen == every["groups"]
    assert cells == {f["flavor"]: f["cells"] for f in every["flavors"]}


def test_bad_requests(client: TestClient) -> None:
    answer = client.get("/v1/matrix?marker=nope")
    assert answer.status_code == 400
    assert answer.json()["detail"] == "Marker 'nope' is not one of the matrix's node groups"
    assert client.get("/v1/matrix?colour=red").status_code == 400
    assert client.get("/v1/matrix?limit=0").status_code == 400
