"""One owner of the node rules (nodes/service.py): every entry point that writes a node
refuses alike. Ironic 39 changes the resource class of a node that has one only in enroll,
inspecting, inspect wait, manageable or available (a 409 in its words), and no node is written
while the nodes mirror a real Ironic, whichever process writes (the mirror's state is read
from the database)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.update import node_update
from flavorsmith.db.engine import Engine, make_engine, writer
from flavorsmith.ironic.mirror import mirrored
from flavorsmith.nodes import service as nodes
from flavorsmith.store import nodes as store
from flavorsmith.sync.kinds.classification import ObservedNode, plan_node
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import repository

IRONIC = {"X-OpenStack-Ironic-API-Version": "1.65"}
# Classifies as g1.8xh100, a class the node below does not have.
H100 = EXAMPLES / "inspection" / "xe9680-g1-8xh100.json"
MIRRORED = "http://127.0.0.1:9/ironic"


def refusal(node: str) -> str:
    return (
        f"Node {node} can not have resource_class updated unless it is in one of allowed "
        "(enroll, inspecting, inspect wait, manageable, available) states. "
        "Current state is 'active'."
    )


@dataclass
class Fleet:
    database: str
    engine: Engine
    api: TestClient
    node: str  # the UUID of n1: active, resource class baremetal

    def stored(self) -> tuple[str | None, list[str]]:
        with self.engine.connect() as connection:
            row = store.find(connection, "n1", by_name=True)
            return row["resource_class"], store.traits_of(connection, [row["id"]])[row["id"]]


@pytest.fixture
def fleet(cli: Invoke, tmp_path: Path) -> Iterator[Fleet]:
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(
        "- {name: n1, resource_class: baremetal, provision_state: active,"
        " traits: [CUSTOM_RACK_A01]}\n"
    )
    imported = cli("node", "import", str(inventory), "--database", database)
    assert imported.exit_code == 0, imported.output
    engine = make_engine(database)
    with engine.connect() as connection:
        node = str(store.find(connection, "n1", by_name=True)["uuid"])
    with TestClient(build_app(engine)) as api:
        yield Fleet(database, engine, api, node)
    engine.dispose()


def _cli_refuses(result: object, message: str) -> None:
    exit_code = getattr(result, "exit_code", None)
    stderr = str(getattr(result, "stderr", ""))
    assert exit_code == 1, (exit_code, stderr)
    assert message in " ".join(stderr.split()), stderr
    assert "Traceback" not in stderr


def test_the_resource_class_refusal_is_ironics_409_through_every_entry_point(
    fleet: Fleet, cli: Invoke, tmp_path: Path
) -> None:
    expected = refusal(fleet.node)
    before = fleet.stored()
    # The Ironic-compatible API: a JSON patch.
    patch = [{"op": "replace", "path": "/resource_class", "value": "g1.8xh100"}]
    patched = fleet.api.patch(f"/baremetal/v1/nodes/{fleet.node}", json=patch, headers=IRONIC)
    assert patched.status_code == 409, patched.text
    assert json.loads(patched.json()["error_message"])["faultstring"] == expected
    # The native API: inspection data whose classification would change it.
    data = json.loads(H100.read_text())
    inspected = fleet.api.post(f"/v1/nodes/{fleet.node}/inspection", json=data)
    assert inspected.status_code == 409, inspected.text
    assert inspected.json()["detail"] == expected
    # The command line: classify into the database, and an import over the node.
    args = ("--repo", str(EXAMPLES), "--database", fleet.database)
    _cli_refuses(cli("classify", str(H100), "--node", "n1", "--apply", *args), expected)
    changed = tmp_path / "changed.yaml"
    changed.write_text("- {name: n1, resource_class: g1.8xh100}\n")
    _cli_refuses(cli("node", "import", str(changed), "--database", fleet.database), expected)
    # Nothing was written by any of them.
    assert fleet.stored() == before
    # The same decision for a real Ironic (the classification sync kind) and inside Ironic's
    # own inspection (the hook): the one function they share says it in the same words.
    catalog = repository(EXAMPLES).load().catalog
    result = classify(parse(data), catalog, frozenset())
    decided = node_update(result, "baremetal", node=fleet.node, provision_state="active")
    assert decided.refused == expected
    observed = ObservedNode(
        uuid=fleet.node,
        name="n1",
        provision_state="active",
        resource_class="baremetal",
        traits=frozenset(),
        inventory=data,
        unreadable=None,
    )
    planned = plan_node(catalog, observed)
    assert planned.kind == "blocked" and planned.reason.endswith(expected)


def test_a_node_in_a_state_ironic_allows_changes_its_class_everywhere(
    fleet: Fleet, cli: Invoke
) -> None:
    with writer(fleet.engine).begin() as connection:
        row = store.find(connection, "n1", by_name=True, lock=True)
        store.save(connection, row, {"provision_state": "manageable"})
    args = ("--repo", str(EXAMPLES), "--database", fleet.database)
    applied = cli("classify", str(H100), "--node", "n1", "--apply", *args)
    assert applied.exit_code == 0, applied.output
    assert fleet.stored()[0] == "g1.8xh100"
    patch = [{"op": "replace", "path": "/resource_class", "value": "baremetal"}]
    patched = fleet.api.patch(f"/baremetal/v1/nodes/{fleet.node}", json=patch, headers=IRONIC)
    assert patched.status_code == 200, patched.text
    assert fleet.stored()[0] == "baremetal"


def test_mirrored_nodes_are_read_only_for_every_writer(
    fleet: Fleet, cli: Invoke, tmp_path: Path
) -> None:
    with writer(fleet.engine).begin() as connection:
        nodes.mirror_from(connection, MIRRORED, 60)
    expected = (
        f"Nodes are managed by the Ironic at {MIRRORED}; change them there "
        "(this service mirrors it every 60 s)"
    )
    before = fleet.stored()
    _cli_refuses(
        cli("node", "trait", "add", "n1", "CUSTOM_X", "--database", fleet.database), expected
    )
    inventory = tmp_path / "more.yaml"
    inventory.write_text("- {name: n2}\n")
    _cli_refuses(cli("node", "import", str(inventory), "--database", fleet.database), expected)
    args = ("--repo", str(EXAMPLES), "--database", fleet.database)
    _cli_refuses(cli("classify", str(H100), "--node", "n1", "--apply", *args), expected)
    # The API of a process that mirrors nothing itself reads the same state.
    traits = fleet.api.put(
        f"/baremetal/v1/nodes/{fleet.node}/traits", json={"traits": []}, headers=IRONIC
    )
    assert traits.status_code == 409
    assert json.loads(traits.json()["error_message"])["faultstring"] == expected
    assert fleet.stored() == before
    # A classification that writes nothing (no --apply) is a read: allowed.
    shown = cli("classify", str(H100), "--node", "n1", *args)
    assert shown.exit_code == 0, shown.output
    # The mirror's refresh is the one writer let through, held to none of the state rules
    # (Ironic applied them to what it answers): the active node's class changes.
    record = {
        "uuid": fleet.node,
        "name": "n1",
        "resource_class": "g1.8xh100",
        "traits": ["CUSTOM_RACK_A01"],
        "provision_state": "active",
        "power_state": "power on",
        "maintenance": False,
        "instance_uuid": None,
        "owner": None,
        "lessee": None,
        "retired": False,
        "driver": "fake-hardware",
        "properties": {},
    }
    with writer(fleet.engine).begin() as connection:
        report = nodes.mirror(connection, [mirrored(record)], max_delete=1.0)
    assert (report.refused, report.updated) == (None, [fleet.node])
    assert fleet.stored() == ("g1.8xh100", ["CUSTOM_RACK_A01"])
    # Served from the database again (serve without --ironic-*): writes go through.
    with writer(fleet.engine).begin() as connection:
        nodes.database_source(connection)
    added = cli("node", "trait", "add", "n1", "CUSTOM_X", "--database", fleet.database)
    assert added.exit_code == 0, added.output
    assert "CUSTOM_X" in fleet.stored()[1]
