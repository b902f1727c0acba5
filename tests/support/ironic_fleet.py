"""Filling a real Ironic with nodes: the example inventory (examples/nodes.yaml) as Ironic
nodes of the fake-hardware driver, either through its own API (``create_nodes``, one
kept-alive connection: some 1,000 requests, a minute or two for the 350 example nodes) or
through its SQLite database (``fill_nodes``, as benchmarks/mirror.py does: one node enrolled
through the API, its row copied for each node, so every column is as Ironic writes it; a
second or two).

A node the inventory says is provisioned gets an ``instance_uuid`` (Ironic lets a node in any
state carry one, and the matcher counts such a node as in use, as it counts an active one);
``maintenance`` is set through Ironic's maintenance call (``create_nodes``) or its two
columns, ``maintenance`` and ``maintenance_reason`` (``fill_nodes``)."""

from __future__ import annotations

import http.client
import json
import sqlite3
import uuid as uuidlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from ruamel.yaml import YAML

EXAMPLE_NODES = Path(__file__).resolve().parents[2] / "examples" / "nodes.yaml"
HEADERS = {"Content-Type": "application/json", "X-OpenStack-Ironic-API-Version": "1.65"}


class IronicHttp:
    """A tiny client on one HTTP connection to the Ironic at ``url`` (its root)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port, timeout=30
        )
        self.requests = 0

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body)
        self.connection.request(method, f"/v1{path}", body=data, headers=HEADERS)
        response = self.connection.getresponse()
        raw = response.read()
        self.requests += 1
        if response.status >= 400:
            raise RuntimeError(f"{method} {path}: {response.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    def close(self) -> None:
        self.connection.close()


def example_nodes() -> list[dict[str, Any]]:
    return list(YAML(typ="safe").load(EXAMPLE_NODES.read_text())["nodes"])


def create_nodes(url: str, nodes: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Create each node (our import format: name, resource_class, properties, traits,
    provision_state, maintenance) in the Ironic at ``url``; returns name -> UUID."""
    client = IronicHttp(url)
    made: dict[str, str] = {}
    try:
        for node in nodes:
            body = {
                "name": node["name"],
                "driver": "fake-hardware",
                "resource_class": node.get("resource_class"),
                "properties": node.get("properties") or {},
            }
            created = client.call("POST", "/nodes", body)
            uuid = created["uuid"]
            made[node["name"]] = uuid
            if node.get("traits"):
                client.call("PUT", f"/nodes/{uuid}/traits", {"traits": node["traits"]})
            if node.get("provision_state") == "active":
                patch = [{"op": "add", "path": "/instance_uuid", "value": str(uuidlib.uuid4())}]
                client.call("PATCH", f"/nodes/{uuid}", patch)
            if node.get("maintenance"):
                client.call("PUT", f"/nodes/{uuid}/maintenance", {"reason": "test"})
    finally:
        client.close()
    return made


def fill_nodes(
    database: Path, url: str, nodes: Iterable[dict[str, Any]], *, states: bool = False
) -> dict[str, str]:
    """Each node (the format of ``create_nodes``) in the Ironic at ``url`` whose SQLite file is
    ``database`` (start it with ``conf=f"[database]\\nconnection = sqlite:///{database}\\n"``),
    in its own tables, by ``copy_template_node``. Returns name -> UUID. Ironic reads its
    database on every request, so the nodes are there at once. With ``states``, each node is
    in the provision state and power state the inventory gives it (available, and no power
    state, when it gives none), as ``node import`` reads them; else as enrolled."""
    made: dict[str, str] = {}
    rows: list[tuple[dict[str, Any], list[str]]] = []
    for node in nodes:
        uuid = str(uuidlib.uuid4())
        made[node["name"]] = uuid
        active = node.get("provision_state") == "active"
        values = {
            "uuid": uuid,
            "name": node["name"],
            "resource_class": node.get("resource_class"),
            "properties": json.dumps(node.get("properties") or {}),
            "instance_uuid": str(uuidlib.uuid4()) if active else None,
            "maintenance": bool(node.get("maintenance")),
            "maintenance_reason": "test" if node.get("maintenance") else None,
        }
        if states:
            values["provision_state"] = node.get("provision_state", "available")
            values["power_state"] = node.get("power_state")
        rows.append((values, list(node.get("traits") or [])))
    copy_template_node(database, url, rows)
    return made


def copy_template_node(
    database: Path, url: str, nodes: Iterable[tuple[dict[str, Any], list[str]]]
) -> None:
    """Nodes in the Ironic at ``url`` whose SQLite file is ``database``, in one transaction: a
    template node enrolled through the API, then its row (and its trait's row) copied for each
    ``(columns, traits)`` given, with those columns replaced; the template is gone afterwards,
    so every other column is as Ironic itself writes it."""
    client = IronicHttp(url)
    try:
        template = client.call("POST", "/nodes", {"driver": "fake-hardware", "name": "template"})
        client.call("PUT", f"/nodes/{template['uuid']}/traits", {"traits": ["CUSTOM_TEMPLATE"]})
    finally:
        client.close()
    with sqlite3.connect(database, timeout=30) as db:
        db.row_factory = sqlite3.Row
        query = "SELECT * FROM nodes WHERE uuid = ?"
        row = dict(db.execute(query, (template["uuid"],)).fetchone())
        trait_row = dict(db.execute("SELECT * FROM node_traits").fetchone())
        db.execute("DELETE FROM node_traits")
        db.execute("DELETE FROM nodes")
        columns = [c for c in row if c != "id"]
        rows, traits = [], []
        for number, (replaced, node_traits) in enumerate(nodes, start=1):
            values = {**row, **replaced}
            rows.append([number, *(values[c] for c in columns)])
            traits += [{**trait_row, "node_id": number, "trait": t} for t in node_traits]
        marks = ", ".join("?" for _ in range(len(columns) + 1))
        db.executemany(f"INSERT INTO nodes (id, {', '.join(columns)}) VALUES ({marks})", rows)
        trait_columns = list(trait_row)
        db.executemany(
            f"INSERT INTO node_traits ({', '.join(trait_columns)}) "
            f"VALUES ({', '.join('?' for _ in trait_columns)})",
            [[t[c] for c in trait_columns] for t in traits],
        )


def set_traits(url: str, node: str, traits: list[str]) -> None:
    client = IronicHttp(url)
    try:
        client.call("PUT", f"/nodes/{quote(node, safe='')}/traits", {"traits": traits})
    finally:
        client.close()
