"""The node store as a mirror of a real Ironic, on SQLite and PostgreSQL: a refresh creates,
updates and deletes by UUID, writes nothing (and keeps the generation) when nothing changed,
survives names moving between nodes and nameless nodes, and refuses a refresh that would
delete more than a tenth of the mirror without writing anything."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Connection

from flavorsmith.ironic.mirror import MirroredNode, mirrored
from flavorsmith.store import node_mirror
from flavorsmith.store import nodes as store


def _record(**values: Any) -> dict[str, Any]:
    return {
        "uuid": str(uuid.uuid4()),
        "name": f"n-{uuid.uuid4().hex[:8]}",
        "resource_class": "baremetal",
        "traits": [],
        "provision_state": "available",
        "power_state": "power off",
        "maintenance": False,
        "instance_uuid": None,
        "owner": None,
        "lessee": None,
        "retired": False,
        "driver": "fake-hardware",
        "properties": {"cpu_arch": "x86_64"},
        **values,
    }


def _nodes(records: list[dict[str, Any]]) -> list[MirroredNode]:
    return [mirrored(r) for r in records]


def _start(connection: Connection, records: list[dict[str, Any]]) -> node_mirror.MirrorReport:
    """The first load: the shared test database may hold other tests' nodes; replace them."""
    return node_mirror.mirror(connection, _nodes(records), max_delete=1.0)


def _stored(connection: Connection) -> dict[str, tuple[Any, ...]]:
    rows = store.list_nodes(connection, store.NodeQuery())
    traits = store.traits_of(connection, [r["id"] for r in rows])
    return {
        r["uuid"]: (r["name"], r["resource_class"], r["power_state"], r["owner"], traits[r["id"]])
        for r in rows
    }


def test_first_load_then_changes_by_uuid(connection: Connection) -> None:
    a = _record(traits=["CUSTOM_A"], owner="p1")
    b = _record(name=None)  # Ironic allows nameless nodes
    c = _record()
    others = [_record() for _ in range(7)]
    report = _start(connection, [a, b, c, *others])
    assert sorted(report.created) == sorted(r["uuid"] for r in [a, b, c, *others])
    stored = _stored(connection)
    assert stored[a["uuid"]] == (a["name"], "baremetal", "power off", "p1", ["CUSTOM_A"])
    assert stored[b["uuid"]][0] is None
    found = store.find(connection, a["uuid"], by_name=False)
    assert found["created_at"] is not None and found["properties"] == {"cpu_arch": "x86_64"}
    assert found["driver"] == "fake-hardware" and found["provision_state"] == "available"

    before = store.generation(connection)
    again = node_mirror.mirror(connection, _nodes([a, b, c, *others]))
    assert again.writes == 0 and again.unchanged == 10 and again.refused is None
    assert store.generation(connection) == before

    a2 = {**a, "traits": ["CUSTOM_A", "CUSTOM_B"]}
    b2 = {**b, "power_state": "power on", "lessee": "p2"}
    d = _record()
    # The report alone: what the refresh would do, nothing written.
    dry = node_mirror.mirror(connection, _nodes([a2, b2, d, *others]), apply=False)
    assert (len(dry.created), len(dry.updated), len(dry.deleted)) == (1, 2, 1)
    assert store.generation(connection) == before and c["uuid"] in _stored(connection)
    # One of ten deleted: 10 % may go.
    report = node_mirror.mirror(connection, _nodes([a2, b2, d, *others]))
    assert sorted(report.updated) == sorted([a["uuid"], b["uuid"]])
    assert report.deleted == [c["uuid"]] and report.created == [d["uuid"]]
    assert store.generation(connection) == before + 1
    stored = _stored(connection)
    assert stored[a["uuid"]][4] == ["CUSTOM_A", "CUSTOM_B"]
    assert stored[b["uuid"]][2] == "power on" and c["uuid"] not in stored
    assert store.find(connection, b["uuid"], by_name=False)["updated_at"] is not None


def test_names_move_between_nodes(connection: Connection) -> None:
    """A swap of names, and a name taken by a new node from a deleted one: the mirror is
    authoritative, so the stored clash is resolved, never raised."""
    nodes = [_record() for _ in range(10)]
    _start(connection, nodes)
    first, second, last = nodes[0], nodes[1], nodes[9]
    swapped = [
        {**first, "name": second["name"]},
        {**second, "name": first["name"]},
        *nodes[2:9],
        _record(name=last["name"]),  # a new UUID under the deleted node's name
    ]
    report = node_mirror.mirror(connection, _nodes(swapped))
    assert len(report.updated) == 2 and report.deleted == [last["uuid"]]
    stored = _stored(connection)
    assert stored[first["uuid"]][0] == second["name"]
    assert stored[second["uuid"]][0] == first["name"]
    assert store.find(connection, last["name"], by_name=True)["uuid"] != last["uuid"]


def test_a_refresh_deleting_more_than_a_tenth_changes_nothing(connection: Connection) -> None:
    nodes = [_record() for _ in range(20)]
    _start(connection, nodes)
    before = store.generation(connection)
    # A project-scoped credential sees 17 of the 20 nodes: 3 deletions are 15 %.
    changed = [{**n, "owner": "someone"} for n in nodes[:17]]
    report = node_mirror.mirror(connection, _nodes(changed))
    assert report.refused is not None and "delete 3 of the 20" in report.refused
    assert report.writes == 0 and store.generation(connection) == before
    assert {s[3] for s in _stored(connection).values()} == {None}
    # Two of twenty (10 %) may go.
    report = node_mirror.mirror(connection, _nodes(nodes[:18]))
    assert report.refused is None and len(report.deleted) == 2
    # An empty answer never empties the mirror.
    assert node_mirror.mirror(connection, []).refused is not None
    assert len(_stored(connection)) == 18
