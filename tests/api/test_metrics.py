"""The service's metrics after known work, read as a scrape reads them: requests by API family,
route template and status with their latency, sync rounds and actions with the last success,
the Ironic mirror's refreshes and lag, and the inventory gauges (capacity per flavor, nodes per resource class)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from flavorsmith import metrics
from flavorsmith.clients import cloud
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.serving.metrics import collectors
from flavorsmith.store import nodes as node_store
from flavorsmith.sync.mirror import Mirror
from tests.api.conftest import build_app
from tests.live import free_port, serving

ADMIN = {"X-Auth-Token": "admin-token"}
LATEST = {**ADMIN, "X-OpenStack-Ironic-API-Version": "latest"}


def scrape(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape: (name, labels) -> value."""
    text = metrics.exposition(collectors(client.app.state.services)).decode()  # type: ignore[attr-defined]
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def client(tmp_path: Path, token_file: Path) -> Iterator[TestClient]:
    """The example catalog on a database of its own: the inventory gauges count only this
    test's nodes."""
    engine = make_engine(f"sqlite:///{tmp_path / 'metrics.db'}")
    migrate.upgrade(engine)
    with TestClient(build_app(engine, auth="token-file", token_file=token_file)) as client:
        yield client
    engine.dispose()


def test_requests_are_counted_by_family_route_template_and_status(client: TestClient) -> None:
    before = scrape(client)
    for _ in range(5):
        assert client.get("/v1/flavors/c2.diskless/nodes", headers=ADMIN).status_code == 200
    assert client.get("/v1/flavors/nope/nodes", headers=ADMIN).status_code == 404
    assert client.get("/compute/v2.1/flavors/abc").status_code == 401  # refused before routing
    assert client.get("/no/such/path/12345", headers=ADMIN).status_code == 404
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    nodes = {"family": "native", "route": "/v1/flavors/{name}/nodes", "method": "GET"}
    assert delta("flavorsmith_http_requests_total", **nodes, status="200") == 5
    assert delta("flavorsmith_http_requests_total", **nodes, status="404") == 1
    assert delta("flavorsmith_http_request_duration_seconds_count", **nodes) == 6
    assert delta("flavorsmith_http_request_duration_seconds_sum", **nodes) > 0
    assert delta("flavorsmith_http_request_duration_seconds_bucket", **nodes, le="+Inf") == 6
    compute = {"family": "compute", "route": "/compute/v2.1/flavors/{flavorid}", "method": "GET"}
    assert delta("flavorsmith_http_requests_total", **compute, status="401") == 1
    unmatched = {"family": "native", "route": "unmatched", "method": "GET", "status": "404"}
    assert delta("flavorsmith_http_requests_total", **unmatched) == 1
    # Never the raw path: a label set a client could grow without bound.
    assert not any("c2.diskless/nodes" in str(labels) for _, labels in after)
    assert not any("12345" in str(labels) for _, labels in after)


def test_writes_of_traits_are_counted_by_their_route_template(client: TestClient) -> None:
    """Writes of a node's traits are counted and answered as every other request, their
    errors in Ironic's body."""
    node = client.post(
        "/baremetal/v1/nodes", json={"driver": "fake-hardware", "name": "m1"}, headers=LATEST
    ).json()
    before = scrape(client)
    url = f"/baremetal/v1/nodes/{node['uuid']}/traits"
    assert client.put(url, json={"traits": ["CUSTOM_A"]}, headers=LATEST).status_code == 204
    assert client.put(f"{url}/CUSTOM_B", headers=LATEST).status_code == 204
    missing = client.put(
        "/baremetal/v1/nodes/no-such-node/traits", json={"traits": []}, headers=LATEST
    )
    assert missing.status_code == 404
    assert missing.json() == {
        "error_message": '{"faultcode": "Client", "faultstring": "Node no-such-node could not '
        'be found.", "debuginfo": null}'
    }
    assert missing.headers["x-openstack-request-id"].startswith("req-")
    after = scrape(client)

    def delta(route: str, status: str) -> float:
        labels = {"family": "baremetal", "route": route, "method": "PUT", "status": status}
        return value(after, "flavorsmith_http_requests_total", **labels) - value(
            before, "flavorsmith_http_requests_total", **labels
        )

    assert delta("/baremetal/v1/nodes/{ident}/traits", "204") == 1
    assert delta("/baremetal/v1/nodes/{ident}/traits", "404") == 1
    assert delta("/baremetal/v1/nodes/{ident}/traits/{trait}", "204") == 1


def test_an_unknown_method_is_counted_as_other(client: TestClient) -> None:
    before = scrape(client)
    assert client.request("BREW", "/v1/capacity", headers=ADMIN).status_code == 405
    after = scrape(client)
    labels = {"family": "native", "route": "/v1/capacity", "method": "other", "status": "405"}
    key = ("flavorsmith_http_requests_total", frozenset(labels.items()))
    assert after[key] - before.get(key, 0.0) == 1


def test_a_sync_apply_counts_its_round_and_actions(client: TestClient) -> None:
    before = scrape(client)
    started = time.time()
    response = client.post("/v1/sync/apply", headers=ADMIN)
    assert response.status_code == 200, response.text
    created = sum(1 for a in response.json()["actions"] if a["action"] == "create")
    assert created == 12
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("flavorsmith_sync_rounds_total", kind="flavors", result="ok") == 1
    assert delta("flavorsmith_sync_rounds_total", kind="flavors", result="failed") == 0
    assert delta("flavorsmith_sync_failures_total", kind="flavors") == 0
    assert delta("flavorsmith_sync_round_duration_seconds_count", kind="flavors") == 1
    done = {"kind": "flavors", "action": "create", "result": "done"}
    assert delta("flavorsmith_sync_actions_total", **done) == 12
    last = value(after, "flavorsmith_sync_last_success_timestamp_seconds", kind="flavors")
    assert started <= last <= time.time()

    # A second apply has nothing to do: a round, no actions.
    client.post("/v1/sync/apply", headers=ADMIN)
    again = scrape(client)
    assert value(again, "flavorsmith_sync_rounds_total", kind="flavors", result="ok") == (
        value(after, "flavorsmith_sync_rounds_total", kind="flavors", result="ok") + 1
    )
    assert value(again, "flavorsmith_sync_actions_total", **done) == value(
        after, "flavorsmith_sync_actions_total", **done
    )


def test_mirror_refreshes_and_lag(client: TestClient, tmp_path: Path) -> None:
    """A mirror of this service's own Ironic-compatible API, over HTTP, into a second
    database: each refresh is counted, and the lag grows from the last good one's start."""
    origin, copy = (make_engine(f"sqlite:///{tmp_path / name}") for name in ("o.db", "c.db"))
    migrate.upgrade(origin)
    migrate.upgrade(copy)
    ironic = build_app(origin)  # noauth, as an Ironic without Keystone
    for i in range(3):
        node(TestClient(ironic), f"mirrored-{i}", "c2.diskless")
    before = scrape(client)
    with serving(ironic) as url:
        source = IronicNodes(cloud.connect(None, "baremetal", f"{url}/baremetal", timeout=10))
        good = Mirror(source, copy, label=url).refresh()
    assert good.error is None and good.created == 3
    dead = f"http://127.0.0.1:{free_port()}"
    unreachable = IronicNodes(cloud.connect(None, "baremetal", dead, timeout=5))
    failed = Mirror(unreachable, copy, label=dead).refresh()
    assert failed.error is not None
    time.sleep(0.2)
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("flavorsmith_mirror_refreshes_total", source="ironic", result="ok") == 1
    assert delta("flavorsmith_mirror_refreshes_total", source="ironic", result="failed") == 1
    assert delta("flavorsmith_mirror_refresh_duration_seconds_count", source="ironic") == 2
    assert value(after, "flavorsmith_mirror_nodes", source="ironic") == 3
    started = good.started.timestamp()
    last = value(after, "flavorsmith_mirror_last_refresh_timestamp_seconds", source="ironic")
    assert last == pytest.approx(started)  # the failed refresh did not move it
    lag = value(after, "flavorsmith_mirror_lag_seconds", source="ironic")
    assert 0.2 <= lag < time.time() - started + 1
    later = value(scrape(client), "flavorsmith_mirror_lag_seconds", source="ironic")
    assert later > lag  # computed when scraped: it grows until the next good refresh
    origin.dispose()
    copy.dispose()


def node(client: TestClient, name: str, resource_class: str, *traits: str) -> str:
    """A node created through the Ironic API, then made ready to deploy as Ironic's conductor
    would (available, powered off: this service runs no conductor), so Nova would offer it."""
    body = {"driver": "fake-hardware", "name": name, "resource_class": resource_class}
    response = client.post("/baremetal/v1/nodes", json=body, headers=LATEST)
    assert response.status_code == 201, response.text
    uuid = str(response.json()["uuid"])
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with writer(engine).begin() as connection:
        row = node_store.find(connection, uuid, by_name=False)
        node_store.save(
            connection, row, {"provision_state": "available", "power_state": "power off"}
        )
    if traits:
        response = client.put(
            f"/baremetal/v1/nodes/{uuid}/traits", json={"traits": list(traits)}, headers=LATEST
        )
        assert response.status_code == 204, response.text
    return uuid


def test_inventory_gauges_follow_the_nodes(client: TestClient) -> None:
    empty = scrape(client)
    assert value(empty, "flavorsmith_inventory_readable") == 1
    assert (
        value(
            empty,
            "flavorsmith_flavor_nodes_matching",
            flavor="g1.8xh100",
            resource_class="g1.8xh100",
        )
        == 0
    )
    for i in range(3):
        node(client, f"diskless-{i}", "c2.diskless")
    broken = node(client, "gpu-0", "g1.8xh100", "CUSTOM_GPU_NVIDIA_H100")
    node(client, "gpu-1", "g1.8xh100", "CUSTOM_GPU_NVIDIA_H100")
    node(client, "gpu-2", "g1.8xh100")  # lacks the trait g1.8xh100 requires
    node(client, "small-0", "m1.small")  # m1.small and its variants compete for it
    patch = [{"op": "replace", "path": "/maintenance", "value": True}]
    response = client.patch(f"/baremetal/v1/nodes/{broken}", json=patch, headers=LATEST)
    assert response.status_code == 200, response.text
    samples = scrape(client)

    def flavor(name: str, resource_class: str) -> tuple[float, float, float]:
        labels = {"flavor": name, "resource_class": resource_class}
        return (
            value(samples, "flavorsmith_flavor_nodes_matching", **labels),
            value(samples, "flavorsmith_flavor_nodes_available", **labels),
            value(samples, "flavorsmith_flavor_nodes_free", **labels),
        )

    assert flavor("c2.diskless", "c2.diskless") == (3, 3, 3)
    assert flavor("g1.8xh100", "g1.8xh100") == (2, 1, 1)  # one in maintenance
    matching, available, free = flavor("m1.small", "m1.small")
    # m1.small.no-gpu forbids CUSTOM_GPU, which no node has: Placement knows no such trait
    # and answers 400, so that flavor competes for nothing and small-0 is free.
    assert (matching, available, free) == (1, 1, 1)
    assert value(samples, "flavorsmith_nodes", resource_class="c2.diskless") == 3
    assert value(samples, "flavorsmith_nodes", resource_class="g1.8xh100") == 3
    assert value(samples, "flavorsmith_nodes_available", resource_class="g1.8xh100") == 2
    assert value(samples, "flavorsmith_nodes", resource_class="m1.small") == 1
    # The same numbers as the capacity API's, which counts shared nodes the same way.
    capacity = client.get("/v1/capacity", headers=ADMIN).json()
    small = next(f for f in capacity["flavors"] if f["flavor"] == "m1.small")
    assert (small["matching"], small["available"], small["exclusive"]) == (1, 1, 1)
    generation = value(samples, "flavorsmith_inventory_generation")
    assert generation == capacity["generation"] > 0


def test_a_scrape_answers_while_the_database_is_unusable(tmp_path: Path, token_file: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")  # never migrated: no tables
    app = build_app(engine, auth="token-file", token_file=token_file)
    text = metrics.exposition(collectors(app.state.services)).decode()
    assert "flavorsmith_inventory_readable 0.0" in text
    assert "flavorsmith_flavor_nodes_matching{" not in text
    engine.dispose()
