"""Filling a real Ironic with nodes through its own API, quickly (one kept-alive connection):
the example inventory (examples/nodes.yaml) as Ironic nodes of the fake-hardware driver.

A node the inventory says is provisioned gets an ``instance_uuid`` (Ironic lets a node in any
state carry one, and the matcher counts such a node as in use, as it counts an active one);
``maintenance`` is set through Ironic's maintenance call."""

from __future__ import annotations

import http.client
import json
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
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
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


def set_traits(url: str, node: str, traits: list[str]) -> None:
    client = IronicHttp(url)
    try:
        client.call("PUT", f"/nodes/{quote(node, safe='')}/traits", {"traits": traits})
    finally:
        client.close()
