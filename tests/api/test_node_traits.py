"""Node traits: the seed's API with Ironic's status codes; a failed request changes nothing."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.immediate import CHECKPOINT_EVERY
from flavorsmith.ironic.nodes import SET_TRAITS_HOWTO

LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
URL = "/baremetal/v1/nodes"


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


@pytest.fixture
def node(client: TestClient) -> dict[str, Any]:
    name = f"n-{uuid.uuid4().hex[:8]}"
    response = client.post(URL, json={"driver": "fake-hardware", "name": name}, headers=LATEST)
    return dict(response.json())


def traits(client: TestClient, node: dict[str, Any]) -> list[str]:
    return list(client.get(f"{URL}/{node['uuid']}/traits", headers=LATEST).json()["traits"])


def test_set_list_add_remove(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['name']}/traits"
    assert traits(client, node) == []
    response = client.put(
        url, json={"traits": ["CUSTOM_B", "HW_CPU_X86_AVX2", "CUSTOM_B"]}, headers=LATEST
    )
    assert (response.status_code, response.content) == (204, b"")
    assert traits(client, node) == ["CUSTOM_B", "HW_CPU_X86_AVX2"]
    response = client.put(f"{url}/CUSTOM_A", headers=LATEST)
    assert response.status_code == 204
    assert (
        response.headers["location"]
        == f"http://testserver/baremetal/v1/nodes/{node['name']}/traits/CUSTOM_A"
    )
    assert client.put(f"{url}/CUSTOM_A", headers=LATEST).status_code == 204  # idempotent
    assert traits(client, node) == ["CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_AVX2"]
    assert client.delete(f"{url}/CUSTOM_B", headers=LATEST).status_code == 204
    missing = client.delete(f"{url}/CUSTOM_B", headers=LATEST)
    assert (missing.status_code, fault(missing)) == (
        404,
        f"Node {node['uuid']} doesn't have a trait 'CUSTOM_B'",
    )
    assert client.delete(url, headers=LATEST).status_code == 204
    assert traits(client, node) == []
    shown = client.get(f"{URL}/{node['uuid']}", headers=LATEST).json()
    assert shown["traits"] == [] and shown["updated_at"] is not None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"traits": ["CUSTOM_OK", "custom_x"]},
            "Invalid trait 'custom_x': a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters (did you mean 'CUSTOM_X'?)",
        ),
        (
            {"traits": ["FOO"]},
            "Invalid trait 'FOO': a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters (did you mean 'CUSTOM_FOO'?)",
        ),
        (
            {"traits": ["CUSTOM_" + "A" * 249]},
            f"Invalid trait {'CUSTOM_' + 'A' * 249!r}: a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters",
        ),
        ({"traits": "CUSTOM_A"}, "Schema error for body: 'CUSTOM_A' is not of type 'array'"),
        ({"traits": None}, "Schema error for body: None is not of type 'array'"),
        (["CUSTOM_A"], "Schema error for body: ['CUSTOM_A'] is not of type 'object'"),
        (
            {"traits": [], "x": 1},
            "Schema error for body: Additional properties are not allowed ('x' was unexpected)",
        ),
        (
            {"a": 1, "b": 2},
            "Schema error for body: Additional properties are not allowed ('a', 'b' were unexpected)",
        ),
        ({}, SET_TRAITS_HOWTO),
        (
            {"traits": [f"CUSTOM_T{i}" for i in range(51)]},
            "Could not modify traits for node {uuid}: it would have 51 traits, more than the maximum of 50",
        ),
    ],
)
def test_bad_set_changes_nothing(
    client: TestClient, node: dict[str, Any], body: Any, message: str
) -> None:
    url = f"{URL}/{node['uuid']}/traits"
    client.put(url, json={"traits": ["CUSTOM_KEEP"]}, headers=LATEST)
    response = client.put(url, json=body, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message.replace("{uuid}", node["uuid"]))
    assert traits(client, node) == ["CUSTOM_KEEP"]


def test_fifty_first_trait_is_refused(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}/traits"
    fifty = [f"CUSTOM_T{i:02d}" for i in range(50)]
    assert client.put(url, json={"traits": fifty}, headers=LATEST).status_code == 204
    response = client.put(f"{url}/CUSTOM_ONE_MORE", headers=LATEST)
    assert (response.status_code, fault(response)) == (
        400,
        f"Could not modify traits for node {node['uuid']}: it would have 51 traits, more than the maximum of 50",
    )
    assert traits(client, node) == fifty
    assert client.put(f"{url}/CUSTOM_T00", headers=LATEST).status_code == 204  # already there


def test_bad_single_trait(client: TestClient, node: dict[str, Any]) -> None:
    response = client.put(f"{URL}/{node['uuid']}/traits/nope", headers=LATEST)
    assert response.status_code == 400
    assert fault(response).startswith("Invalid trait 'nope'")


def test_replacing_traits_takes_a_body(client: TestClient, node: dict[str, Any]) -> None:
    url = f"{URL}/{node['uuid']}/traits"
    client.put(url, json={"traits": ["CUSTOM_KEEP"]}, headers=LATEST)
    response = client.put(url, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, SET_TRAITS_HOWTO)
    assert traits(client, node) == ["CUSTOM_KEEP"]
    # As Ironic: the node is looked up first.
    missing = client.put(f"{URL}/nope/traits", headers=LATEST)
    assert (missing.status_code, fault(missing)) == (404, "Node nope could not be found.")


@pytest.mark.parametrize("trait", ["nope", "bad%20trait", "CUSTOM_ABSENT"])
def test_removing_a_trait_the_node_lacks_is_404(
    client: TestClient, node: dict[str, Any], trait: str
) -> None:
    response = client.delete(f"{URL}/{node['uuid']}/traits/{trait}", headers=LATEST)
    name = trait.replace("%20", " ")
    assert (response.status_code, fault(response)) == (
        404,
        f"Node {node['uuid']} doesn't have a trait '{name}'",
    )


@pytest.mark.parametrize("path", ["/traits", "/traits/CUSTOM_A"])
def test_putting_traits_before_1_37_is_not_allowed(
    client: TestClient, node: dict[str, Any], path: str
) -> None:
    """As Ironic's router answers it: 405, its own body and Allow header."""
    response = client.put(
        f"{URL}/{node['uuid']}{path}",
        json={"traits": ["CUSTOM_A"]} if path == "/traits" else None,
        headers={"X-OpenStack-Ironic-API-Version": "1.36"},
    )
    assert response.status_code == 405
    assert response.headers["Allow"] == "DELETE, GET, PATCH, POST"
    assert json.loads(response.json()["error_message"]) == {
        "code": 405,
        "title": "Method Not Allowed",
        "description": "",
    }
    assert traits(client, node) == []


def test_removing_traits_before_1_37_is_404(client: TestClient, node: dict[str, Any]) -> None:
    for path in ("/traits", "/traits/CUSTOM_A"):
        response = client.delete(
            f"{URL}/{node['uuid']}{path}", headers={"X-OpenStack-Ironic-API-Version": "1.36"}
        )
        assert (response.status_code, fault(response)) == (404, "Resource could not be found.")


def test_traits_need_microversion_1_37(client: TestClient, node: dict[str, Any]) -> None:
    response = client.get(
        f"{URL}/{node['uuid']}/traits", headers={"X-OpenStack-Ironic-API-Version": "1.36"}
    )
    assert (response.status_code, fault(response)) == (
        406,
        "This resource needs API version 1.37 or later (this request asked for 1.36).",
    )


def test_unknown_node(client: TestClient) -> None:
    response = client.put(f"{URL}/nope/traits/CUSTOM_A", headers=LATEST)
    assert (response.status_code, fault(response)) == (404, "Node nope could not be found.")


def test_policy(make_client: Any, token_file: Any) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    admin = {**LATEST, "X-Auth-Token": "admin-token"}
    reader = {**LATEST, "X-Auth-Token": "reader-token"}
    member = {**LATEST, "X-Auth-Token": "member-token"}
    node = client.post(URL, json={"driver": "fake-hardware"}, headers=admin).json()
    url = f"{URL}/{node['uuid']}"
    assert client.get(f"{url}/traits", headers=reader).status_code == 200
    assert client.get(url, headers=member).status_code == 200
    assert client.get(URL, headers=reader).status_code == 200
    denied = client.put(f"{url}/traits/CUSTOM_A", headers=reader)
    assert (denied.status_code, fault(denied)) == (
        403,
        "baremetal:node:traits:set is disallowed by policy",
    )
    assert client.post(URL, json={"driver": "fake-hardware"}, headers=member).status_code == 403
    assert client.delete(url, headers=reader).status_code == 403
    assert client.get(url, headers=LATEST).status_code == 401
    assert client.put(f"{url}/traits/CUSTOM_A", headers=admin).status_code == 204


def test_writes_of_traits_go_on_through_checkpoints(
    client: TestClient, node: dict[str, Any], migrated_engine: Engine
) -> None:
    """Every CHECKPOINT_EVERY writes on the event loop, the write-ahead log is checkpointed on
    a worker thread while the next writes wait for it: every write lands, in order, and the
    log starts again from its beginning instead of growing with every write."""
    if migrated_engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write-ahead log")
    url = f"{URL}/{node['uuid']}/traits"
    wal = Path(f"{migrated_engine.url.database}-wal")
    largest = 0
    for number in range(3 * CHECKPOINT_EVERY):
        body = {"traits": [f"CUSTOM_W{number}", "CUSTOM_ALWAYS"]}
        assert client.put(url, json=body, headers=LATEST).status_code == 204
        largest = max(largest, wal.stat().st_size)
    assert traits(client, node) == ["CUSTOM_ALWAYS", f"CUSTOM_W{3 * CHECKPOINT_EVERY - 1}"]
    # A write of traits is a few pages; the log never holds much more than one
    # checkpoint's worth of writes.
    assert largest < 2 * CHECKPOINT_EVERY * 8 * (4096 + 24)


def test_writes_of_traits_on_one_event_loop_wait_for_the_checkpoint(
    client: TestClient, node: dict[str, Any], migrated_engine: Engine
) -> None:
    """As ``serve`` runs them, on one event loop: the copy of the log goes on while writes
    do, the restart holds the next writes until it has run, and it lets them go on after it
    (none waits for ever); every write lands and the log stays bounded."""
    if migrated_engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write-ahead log")
    url = f"{URL}/{node['uuid']}/traits"
    wal = Path(f"{migrated_engine.url.database}-wal")
    largest = 0
    with client:  # one event loop (and its worker threads) for every request
        for number in range(3 * CHECKPOINT_EVERY):
            body = {"traits": [f"CUSTOM_L{number}"]}
            assert client.put(url, json=body, headers=LATEST).status_code == 204
            largest = max(largest, wal.stat().st_size)
        assert traits(client, node) == [f"CUSTOM_L{3 * CHECKPOINT_EVERY - 1}"]
    immediate = client.app.state.services.immediate  # type: ignore[attr-defined]
    assert immediate is not None and immediate.held() is None
    assert largest < 2 * CHECKPOINT_EVERY * 8 * (4096 + 24)


def test_a_write_of_traits_waits_for_another_writer(
    client: TestClient, node: dict[str, Any], migrated_engine: Engine
) -> None:
    """A SQLite file's traits are written on the event loop when the write lock is free; while
    another writer holds it, the write waits for it on a worker thread (no 'database is
    locked' 503) and lands once it is released."""
    if migrated_engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write lock")
    url = f"{URL}/{node['uuid']}/traits"
    other = sqlite3.connect(str(migrated_engine.url.database), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(
                client.put, url, json={"traits": ["CUSTOM_WAITED"]}, headers=LATEST
            )
            time.sleep(0.3)
            assert not waiting.done()
            other.execute("ROLLBACK")
            response = waiting.result(timeout=30)
    finally:
        other.close()
    assert (response.status_code, response.content) == (204, b"")
    assert traits(client, node) == ["CUSTOM_WAITED"]
    # The lock free again: written at once, on the loop.
    assert client.put(url, json={"traits": ["CUSTOM_NOW"]}, headers=LATEST).status_code == 204
    assert traits(client, node) == ["CUSTOM_NOW"]
