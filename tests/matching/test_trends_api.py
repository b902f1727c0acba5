"""Capacity trends on both databases: one round of the leader's sampler (a fixed clock) stores
what the matcher counts and prunes past the retention; /v1/trends answers the stored series,
each flavor's only to those who may see the flavor (flavorsmith.visibility)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.catalog.model import Catalog
from flavorsmith.cli.options import repository
from flavorsmith.db.engine import writer
from flavorsmith.matching.reports import rules_of
from flavorsmith.matching.trends import Count, measure
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.nodes.samples import Sampler
from flavorsmith.store import samples
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES

PRIVATE = "m1.medium.dedicated"
PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # in its access list
ADMIN = {"X-Auth-Token": "admin-token"}
INSIDER = {"X-Auth-Token": "insider-token"}
OUTSIDER = {"X-Auth-Token": "outsider-token"}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return repository(str(EXAMPLES)).load().catalog


@pytest.fixture
def empty(example_engine: Engine) -> Engine:
    """The example inventory with no samples."""
    with writer(example_engine).begin() as connection:
        samples.prune(connection, datetime.now(UTC) + timedelta(days=3650))
    return example_engine


@pytest.fixture(scope="module")
def client(
    example_engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(
        "admin-token: {user: alice, project: ops, roles: [admin]}\n"
        f"insider-token: {{user: ivan, project: {PROJECT}, roles: [reader]}}\n"
        "outsider-token: {user: olga, project: p1, roles: [reader]}\n"
    )
    app = build_app(example_engine, auth="token-file", token_file=tokens)
    with TestClient(app) as test_client:
        yield test_client


def test_one_round_stores_what_the_matcher_counts_and_prunes(
    empty: Engine, catalog: Catalog
) -> None:
    now = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
    with writer(empty).begin() as connection:
        samples.add(connection, now - timedelta(days=31), [Count("flavor", "old", "x", 1, 1, 0)])
        samples.add(connection, now - timedelta(days=29), [Count("flavor", "kept", "x", 1, 1, 0)])
    cache = IndexCache(empty)
    sampler = Sampler(
        cache, lambda: catalog, empty, interval=300, retention=timedelta(days=30), clock=lambda: now
    )
    expected = measure(cache.current(), rules_of(catalog))
    assert sampler.sample() == (len(expected), 1)
    with empty.connect() as connection:
        stored = samples.read(connection, since=now - timedelta(days=40))
    assert sorted(
        (
            s.scope,
            s.name,
            s.resource_class,
            s.samples[-1].at,
            s.samples[-1].total,
            s.samples[-1].sellable,
            s.samples[-1].used,
        )
        for s in stored
    ) == sorted(
        [(c.scope, c.name, c.resource_class, now, c.total, c.sellable, c.used) for c in expected]
        + [("flavor", "kept", "x", now - timedelta(days=29), 1, 1, 0)]
    )
    # Every flavor of the catalog has a series, and so does every resource class of the nodes.
    assert {c.name for c in expected if c.scope == "flavor"} == {f.name for f in catalog.flavors}
    assert {c.name for c in expected if c.scope == "resource_class"} >= {"m1.small", "c2.large"}


def test_a_catalog_with_errors_samples_the_resource_classes_only(empty: Engine) -> None:
    now = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
    sampler = Sampler(
        IndexCache(empty),
        lambda: None,
        empty,
        interval=300,
        retention=timedelta(days=30),
        clock=lambda: now,
    )
    sampler.sample()
    with empty.connect() as connection:
        assert {s.scope for s in samples.read(connection, since=now)} == {"resource_class"}


def _falling(engine: Engine) -> datetime:
    """Samples of the last day for the private flavor and m1.small: one sellable node fewer
    every 12 hours from 5. The newest sample's time."""
    newest = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
    with writer(engine).begin() as connection:
        for hours, sellable in ((24, 5), (12, 4), (0, 3)):
            samples.add(
                connection,
                newest - timedelta(hours=hours),
                [
                    Count("flavor", PRIVATE, "m1.medium", 6, sellable, 6 - sellable),
                    Count("flavor", "m1.small", "m1.small", 6, sellable, 6 - sellable),
                    Count("flavor", "gone.from.catalog", "m1.small", 1, 1, 0),
                    Count("resource_class", "m1.small", "m1.small", 9, sellable, 0),
                ],
            )
    return newest


def _names(body: dict[str, object], key: str) -> list[str]:
    found = body[key]
    assert isinstance(found, list)
    return [s["name"] for s in found]


def test_trends_answer_the_stored_series_with_a_forecast(empty: Engine, client: TestClient) -> None:
    newest = _falling(empty)
    body = client.get("/v1/trends", headers=ADMIN).json()
    assert _names(body, "flavors") == [PRIVATE, "m1.small"]  # not a flavor gone from the catalog
    assert _names(body, "resource_classes") == ["m1.small"]
    small = body["flavors"][1]
    assert [s["sellable"] for s in small["samples"]] == [5, 4, 3]
    assert small["samples"][-1]["at"] == newest.isoformat()
    # Two nodes a day, three left: a day and a half.
    assert small["runs_out"] == {
        "rate_per_day": -2.0,
        "days": 1.5,
        "at": (newest + timedelta(days=1.5)).isoformat(),
    }
    one = client.get("/v1/trends?flavor=m1.small&points=2", headers=ADMIN).json()
    assert _names(one, "flavors") == ["m1.small"] and one["resource_classes"] == []
    assert [s["sellable"] for s in one["flavors"][0]["samples"]] == [5, 3]
    classes = client.get("/v1/trends?scope=resource_class", headers=ADMIN).json()
    assert classes["flavors"] == [] and _names(classes, "resource_classes") == ["m1.small"]
    assert (
        client.get("/v1/trends?resource_class=m1.medium", headers=ADMIN).json()["flavors"][0][
            "name"
        ]
        == PRIVATE
    )


def test_a_private_flavors_trend_only_for_those_who_may_see_it(
    empty: Engine, client: TestClient
) -> None:
    _falling(empty)
    assert _names(client.get("/v1/trends", headers=INSIDER).json(), "flavors") == [
        PRIVATE,
        "m1.small",
    ]
    outsider = client.get("/v1/trends", headers=OUTSIDER)
    assert outsider.status_code == 200
    assert PRIVATE not in outsider.text and PROJECT not in outsider.text
    assert _names(outsider.json(), "flavors") == ["m1.small"]
    asked = client.get(f"/v1/trends?flavor={PRIVATE}", headers=OUTSIDER).json()
    assert asked["flavors"] == []


@pytest.mark.parametrize(
    ("query", "word"),
    [
        ("days=0", "days"),
        ("days=x", "days"),
        ("points=0", "points"),
        ("scope=rack", "scope"),
        ("since=1", "since"),
    ],
)
def test_trends_refuse_a_bad_query(client: TestClient, query: str, word: str) -> None:
    response = client.get(f"/v1/trends?{query}", headers=ADMIN)
    assert response.status_code == 400
    assert word in response.text
