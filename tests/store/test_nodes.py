"""The node store on SQLite and PostgreSQL: writes, traits, the generation, keyset pages,
locked lookups, the bulk import and the matcher's snapshot."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import OperationalError

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.errors import Conflict, Invalid, NotFound
from flavorsmith.ironic.node_fields import INTERFACES
from flavorsmith.nodes import service as nodes
from flavorsmith.store import node_bulk, node_import
from flavorsmith.store import nodes as store
from flavorsmith.store.node_import import NodeSpec
from flavorsmith.store.nodes import NodeQuery


def _rc() -> str:
    return f"rc-{uuid.uuid4().hex[:8]}"


def _node(connection: Connection, **values: Any) -> dict[str, Any]:
    return store.create(connection, {"driver": "fake-hardware", **values})


def test_create_find_save_remove(connection: Connection) -> None:
    name = f"n-{uuid.uuid4().hex[:8]}"
    node = _node(connection, name=name, resource_class="baremetal", traits=["CUSTOM_A"])
    assert node["provision_state"] == "enroll" and node["properties"] == {}
    assert store.find(connection, name, by_name=True) == node
    assert store.find(connection, node["uuid"].upper(), by_name=False)["id"] == node["id"]
    with pytest.raises(NotFound):
        store.find(connection, name, by_name=False)
    saved = store.save(connection, node, {"description": "rack 4"})
    assert store.find(connection, node["uuid"], by_name=False)["description"] == "rack 4"
    assert saved["updated_at"] is not None
    assert store.save(connection, saved, {}) is saved
    store.remove(connection, saved)
    with pytest.raises(NotFound):
        store.find(connection, node["uuid"], by_name=False)


def test_duplicates_are_conflicts_and_keep_the_transaction(connection: Connection) -> None:
    first = _node(connection, name=f"n-{uuid.uuid4().hex[:8]}")
    with pytest.raises(Conflict, match="UUID"):
        _node(connection, uuid=first["uuid"])
    with pytest.raises(Conflict, match="name"):
        _node(connection, name=first["name"])
    other = _node(connection)
    with pytest.raises(Conflict, match="name"):
        store.save(connection, other, {"name": first["name"]})
    assert store.find(connection, first["uuid"], by_name=False)["name"] == first["name"]


def test_provisioned_nodes_cannot_be_removed(connection: Connection) -> None:
    node = _node(connection, instance_uuid=str(uuid.uuid4()))
    with pytest.raises(Conflict, match="associated"):
        nodes.remove(connection, node)
    active = _node(connection, provision_state="active")
    with pytest.raises(Conflict, match="provision state"):
        nodes.remove(connection, active)


def test_traits(connection: Connection) -> None:
    """Through the node service, which owns the trait rules (the store writes rows)."""
    node = _node(connection)
    assert nodes.set_traits(connection, node, ["CUSTOM_B", "CUSTOM_A", "CUSTOM_B"]) == [
        "CUSTOM_B",
        "CUSTOM_A",
    ]
    nodes.add_trait(connection, node, "CUSTOM_C")
    nodes.add_trait(connection, node, "CUSTOM_C")
    assert store.traits_of(connection, [node["id"]]) == {
        node["id"]: ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"]
    }
    store.remove_trait(connection, node, "CUSTOM_A")
    with pytest.raises(NotFound, match="CUSTOM_A"):
        store.remove_trait(connection, node, "CUSTOM_A")
    store.remove_all_traits(connection, node)
    assert store.traits_of(connection, [node["id"]]) == {node["id"]: []}
    assert store.traits_of(connection, []) == {}
    with pytest.raises(Invalid, match="maximum"):
        nodes.set_traits(connection, node, [f"CUSTOM_T{i}" for i in range(51)])


def test_replacing_traits_keeps_some_drops_some_and_adds_some(connection: Connection) -> None:
    node = _node(connection)
    other = _node(connection)
    store.set_traits(connection, other, ["CUSTOM_A", "CUSTOM_KEEP"])
    store.set_traits(connection, node, ["CUSTOM_A", "CUSTOM_B", "CUSTOM_KEEP"])
    # The rows of the traits kept are left as they are; the rest go or come.
    assert store.set_traits(connection, node, ["CUSTOM_KEEP", "CUSTOM_C", "CUSTOM_KEEP"]) == [
        "CUSTOM_KEEP",
        "CUSTOM_C",
    ]
    assert store.traits_of(connection, [node["id"], other["id"]]) == {
        node["id"]: ["CUSTOM_C", "CUSTOM_KEEP"],
        other["id"]: ["CUSTOM_A", "CUSTOM_KEEP"],
    }
    before = store.generation(connection)
    store.set_traits(connection, node, ["CUSTOM_C", "CUSTOM_KEEP"])  # the same set again
    assert store.generation(connection) > before  # still a write of the node, as in Ironic
    assert store.traits_of(connection, [node["id"]]) == {node["id"]: ["CUSTOM_C", "CUSTOM_KEEP"]}
    store.set_traits(connection, node, [])
    assert store.traits_of(connection, [node["id"], other["id"]]) == {
        node["id"]: [],
        other["id"]: ["CUSTOM_A", "CUSTOM_KEEP"],
    }


def test_every_write_bumps_the_generation(connection: Connection) -> None:
    def bumped(write: Any) -> bool:
        before = store.generation(connection)
        write()
        return store.generation(connection) > before

    node = _node(connection)
    assert bumped(lambda: _node(connection))
    assert bumped(lambda: store.save(connection, node, {"description": "x"}))
    assert bumped(lambda: store.set_traits(connection, node, ["CUSTOM_X"]))
    assert bumped(lambda: store.add_trait(connection, node, "CUSTOM_Y"))
    assert bumped(lambda: store.remove_trait(connection, node, "CUSTOM_Y"))
    assert bumped(lambda: store.remove_all_traits(connection, node))
    assert bumped(lambda: store.remove(connection, node))
    other = _node(connection)
    assert not bumped(lambda: store.save(connection, other, {}))


def test_the_change_log_keeps_at_least_its_generations(
    connection: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log keeps the last LOG_KEEP generations (a reader that far behind is told what
    changed), and is pruned every PRUNE_EVERY generations, so it never holds more than
    LOG_KEEP + PRUNE_EVERY of them."""
    monkeypatch.setattr(store, "LOG_KEEP", 5)
    monkeypatch.setattr(store, "PRUNE_EVERY", 3)
    node = _node(connection)
    held: set[int] = set()
    for number in range(20):
        store.set_traits(connection, node, [f"CUSTOM_{number}"])
        current = store.generation(connection)
        logged = connection.execute(text("SELECT count(DISTINCT generation) FROM node_changes"))
        if number >= 3:  # pruned at least once under this test's numbers (earlier tests' log)
            held.add(logged.scalar_one())
        if number >= 5:  # the last 5 generations are this loop's (not an earlier test's)
            changes = store.changes_since(connection, current - 5)
            assert changes is not None
            assert [info.uuid for info in changes.nodes] == [node["uuid"]]
    assert max(held) <= 5 + 3
    assert store.changes_since(connection, store.generation(connection) - 9) is None


# Trait names as a mirrored Ironic may hold them (the mirror takes any string): quotes,
# backslashes, commas, brackets, control characters, non-ASCII, upper and lower case.
ODD_TRAITS = [
    "CUSTOM_B",
    "CUSTOM_A",
    'CUSTOM_"QUOTED"',
    "CUSTOM_BACK\\SLASH",
    "CUSTOM_A,B",
    '","',
    "[]",
    "tab\there",
    "CUSTOM_ÉTÉ",
    "custom_lower",
    "CUSTOM_A_B",
    "CUSTOM_AB",
]


@pytest.mark.parametrize("columns", [None, ["name"], ["resource_class", "uuid", "name"]])
def test_a_page_with_its_traits_reads_what_the_separate_reads_do(
    connection: Connection, columns: list[str] | None
) -> None:
    rc = _rc()
    nodes = [_node(connection, resource_class=rc, name=f"{rc}-{i}") for i in range(4)]
    store.set_traits(connection, nodes[0], ODD_TRAITS)
    store.set_traits(connection, nodes[1], ["CUSTOM_ONLY"])
    store.set_traits(connection, nodes[3], list(reversed(ODD_TRAITS[:5])))
    for sort_key, limit, marker in (("id", 10, None), ("name", 2, nodes[0]["uuid"])):
        query = NodeQuery(resource_class=rc, sort_key=sort_key, limit=limit, marker=marker)
        whole = store.list_nodes(connection, query)
        traits = store.traits_of(connection, [row["id"] for row in whole])
        page = store.list_nodes(connection, query, columns=columns, with_traits=True)
        kept = ["id", "uuid", *(columns or [])] if columns else list(whole[0])
        assert page == [{**{c: row[c] for c in kept}, "traits": traits[row["id"]]} for row in whole]
    assert [row["traits"] for row in page] == [["CUSTOM_ONLY"], []]
    first = store.list_nodes(connection, NodeQuery(resource_class=rc, limit=1), with_traits=True)
    assert sorted(first[0]["traits"]) == sorted(ODD_TRAITS)


def test_a_page_after_an_unknown_marker_is_not_found(connection: Connection) -> None:
    for marker in (str(uuid.uuid4()), "not-a-uuid"):
        with pytest.raises(NotFound, match=f"Node {marker} could not be found."):
            store.list_nodes(connection, NodeQuery(marker=marker), with_traits=True)


def _page_all(connection: Connection, query: NodeQuery) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    marker = None
    while True:
        page = store.list_nodes(
            connection,
            NodeQuery(**{**query.__dict__, "marker": marker}),
        )
        out.extend(page)
        if len(page) < query.limit:
            return out
        marker = page[-1]["uuid"]


@pytest.mark.parametrize("sort_key", ["id", "name", "instance_uuid", "maintenance", "created_at"])
@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
def test_keyset_pages_with_markers(connection: Connection, sort_key: str, sort_dir: str) -> None:
    rc = _rc()
    names = [None, "b", None, "a", "c", "a2", None]
    descriptions = ["x", None, "y", "x", None, "z", "x"]
    created = [
        _node(
            connection,
            resource_class=rc,
            name=f"{rc}-{name}" if name else None,
            instance_uuid=str(uuid.uuid4()) if description else None,
            maintenance=index % 2 == 0,
        )
        for index, (name, description) in enumerate(zip(names, descriptions, strict=True))
    ]
    _node(connection, resource_class=_rc())  # another class: filtered out
    query = NodeQuery(resource_class=rc, sort_key=sort_key, sort_dir=sort_dir, limit=2)
    paged = _page_all(connection, query)
    whole = store.list_nodes(connection, NodeQuery(**{**query.__dict__, "limit": 100}))
    assert [r["id"] for r in paged] == [r["id"] for r in whole]
    assert sorted(r["id"] for r in paged) == sorted(r["id"] for r in created)

    def key(row: dict[str, Any]) -> tuple[bool, Any, int]:
        value = row[sort_key]
        return (value is not None, value if value is not None else 0, row["id"])

    expected = sorted(created, key=key, reverse=sort_dir == "desc")
    assert [r["id"] for r in paged] == [r["id"] for r in expected]


def test_filters(connection: Connection) -> None:
    rc = _rc()
    gpu = _node(connection, resource_class=rc, traits=["CUSTOM_GPU", "CUSTOM_NVME"])
    nvme = _node(connection, resource_class=rc, traits=["CUSTOM_NVME"], maintenance=True)
    bare = _node(connection, resource_class=rc, instance_uuid=str(uuid.uuid4()))

    def ids(**filters: Any) -> list[int]:
        return [
            r["id"] for r in store.list_nodes(connection, NodeQuery(resource_class=rc, **filters))
        ]

    assert ids(traits=("CUSTOM_GPU", "CUSTOM_NVME")) == [gpu["id"]]
    assert ids(traits_any=("CUSTOM_GPU", "CUSTOM_NVME")) == [gpu["id"], nvme["id"]]
    assert ids(not_traits=("CUSTOM_GPU", "CUSTOM_NVME")) == [nvme["id"], bare["id"]]
    assert ids(not_traits_any=("CUSTOM_GPU",)) == [nvme["id"], bare["id"]]
    assert ids(maintenance=True) == [nvme["id"]]
    assert ids(associated=True) == [bare["id"]]
    assert ids(associated=False) == [gpu["id"], nvme["id"]]


def test_ironic_data_fields_are_stored_with_ironic_defaults(connection: Connection) -> None:
    plain = _node(connection)
    assert plain["conductor_group"] == "" and plain["network_data"] == {}
    assert plain["retired"] is False and plain["protected"] is False
    assert plain["disable_power_off"] is False and plain["automated_clean"] is None
    assert all(plain[f"{name}_interface"] is None for name in INTERFACES)
    values: dict[str, Any] = {
        "owner": "p-owner",
        "lessee": "p-lessee",
        "conductor_group": "rack-1",
        "automated_clean": False,
        "retired": True,
        "retired_reason": "old",
        "network_data": {"links": []},
        "shard": "s1",
        "instance_name": "web-1",
        "deploy_interface": "direct",
        "vendor_interface": "no-vendor",
    }
    node = _node(connection, **values)
    found = store.find(connection, node["uuid"], by_name=False)
    assert {k: found[k] for k in values} == values
    saved = store.save(connection, found, {"protected": True, "protected_reason": "keep"})
    again = store.find(connection, node["uuid"], by_name=False)
    assert (
        again["protected"] is True
        and again["protected_reason"] == "keep" == saved["protected_reason"]
    )


def test_ironic_data_filters(connection: Connection) -> None:
    rc = _rc()
    parent = _node(connection, resource_class=rc, owner="o1", shard="s1", conductor_group="g")
    child = _node(
        connection, resource_class=rc, lessee="o1", parent_node=parent["uuid"], retired=True
    )
    other = _node(connection, resource_class=rc, owner="o2", description="50% off_sale")

    def ids(**filters: Any) -> list[int]:
        return [
            r["id"] for r in store.list_nodes(connection, NodeQuery(resource_class=rc, **filters))
        ]

    assert ids() == [parent["id"], child["id"], other["id"]]
    assert ids(include_children=False) == [parent["id"], other["id"]]
    assert ids(include_children=False, parent_node=parent["uuid"]) == [child["id"]]
    assert ids(owner="o1") == [parent["id"]]
    assert ids(lessee="o1") == [child["id"]]
    assert ids(project="o1") == [parent["id"], child["id"]]
    assert ids(retired=True) == [child["id"]]
    assert ids(retired=False) == [parent["id"], other["id"]]
    assert ids(shards=("s1", "s9")) == [parent["id"]]
    assert ids(sharded=False) == [child["id"], other["id"]]
    assert ids(conductor_group="g") == [parent["id"]]
    assert ids(conductor_group="") == [child["id"], other["id"]]
    assert ids(description_contains="% off_") == [other["id"]]
    assert ids(description_contains="%_") == []
    assert ids(fault="power failure") == []


def test_bad_sort_and_marker(connection: Connection) -> None:
    with pytest.raises(Invalid, match="sort_key"):
        store.list_nodes(connection, NodeQuery(sort_key="properties"))
    with pytest.raises(Invalid, match="direction"):
        store.list_nodes(connection, NodeQuery(sort_dir="up"))
    with pytest.raises(NotFound):
        store.list_nodes(connection, NodeQuery(marker=str(uuid.uuid4())))


def test_import_creates_updates_and_leaves_alone(connection: Connection) -> None:
    rc = _rc()
    values = {
        "driver": "fake-hardware",
        "resource_class": rc,
        "properties": {},
        "driver_info": {},
        "extra": {},
        "description": None,
        "provision_state": "available",
        "maintenance": False,
    }
    first = [
        NodeSpec(f"{rc}-a", None, values, ("CUSTOM_A",)),
        NodeSpec(f"{rc}-b", None, values, ()),
    ]
    before = store.generation(connection)
    report = node_import.import_nodes(connection, first)
    assert report.created == [f"{rc}-a", f"{rc}-b"] and store.generation(connection) > before
    second = [
        NodeSpec(f"{rc}-a", None, values, ("CUSTOM_A",)),
        NodeSpec(f"{rc}-b", None, {**values, "description": "new"}, ("CUSTOM_B",)),
    ]
    report = node_import.import_nodes(connection, second)
    assert report.unchanged == [f"{rc}-a"] and report.updated == [f"{rc}-b"]
    b = store.find(connection, f"{rc}-b", by_name=True)
    assert b["description"] == "new"
    assert store.traits_of(connection, [b["id"]])[b["id"]] == ["CUSTOM_B"]
    before = store.generation(connection)
    assert node_import.import_nodes(connection, second).unchanged == [f"{rc}-a", f"{rc}-b"]
    assert store.generation(connection) == before


def test_import_stores_a_new_node_as_a_core_insert_does(connection: Connection) -> None:
    """The import's own bulk INSERT (driver tuples) stores every column as SQLAlchemy Core
    does with the same values: JSON text, datetimes, booleans, defaults and NULLs."""
    from sqlalchemy import insert, select

    from flavorsmith.db.models import Node, NodeChange

    rc = _rc()
    values = {
        "driver": "redfish",
        "resource_class": rc,
        "properties": {"cpus": 8, "memory_mb": 4096, "nested": [1, "x", None, True]},
        "driver_info": {"redfish_address": "https://10.0.0.1"},
        "extra": {},
        "description": "é ünïcode",
        "provision_state": "active",
        "maintenance": True,
        "power_state": "power on",
    }
    report = node_import.import_nodes(
        connection, [NodeSpec(f"{rc}-i", None, values, ("CUSTOM_I",))]
    )
    assert report.created == [f"{rc}-i"]
    imported = store.find(connection, f"{rc}-i", by_name=True)
    stamp = connection.execute(select(Node.created_at).where(Node.id == imported["id"])).scalar()
    core_values = node_import._new_node_values(stamp) | values | {"uuid": str(uuid.uuid4())}
    core_values |= {"name": f"{rc}-c"}
    connection.execute(insert(Node).values(**core_values))
    core = store.find(connection, f"{rc}-c", by_name=True)
    different = {"id", "uuid", "name"}
    assert {k: v for k, v in imported.items() if k not in different} == {
        k: v for k, v in core.items() if k not in different
    }
    raw = text("SELECT properties, created_at FROM nodes WHERE id = :id")
    assert (
        connection.execute(raw, {"id": imported["id"]}).one()
        == connection.execute(raw, {"id": core["id"]}).one()
    )
    assert store.traits_of(connection, [imported["id"]])[imported["id"]] == ["CUSTOM_I"]
    generation = store.generation(connection)
    logged = connection.execute(
        select(NodeChange.uuid, NodeChange.created).where(NodeChange.generation == generation)
    ).all()
    assert logged == [(imported["uuid"], True)]


def test_a_large_import_writes_every_node_and_trait(connection: Connection) -> None:
    """More nodes than one batch: every node and trait written, the change log says "*",
    SQLite's page cache as it was before."""
    from sqlalchemy import func, select

    from flavorsmith.db.models import Node, NodeChange, NodeTrait

    rc = _rc()
    cache = "PRAGMA cache_size"
    sqlite = connection.dialect.name == "sqlite"
    before = connection.exec_driver_sql(cache).scalar() if sqlite else None
    specs = [
        NodeSpec(f"{rc}-{i}", None, {"resource_class": rc, "extra": {"i": i}}, ("CUSTOM_X",))
        for i in range(node_bulk.BATCH + 1)
    ]
    assert len(node_import.import_nodes(connection, specs).created) == node_bulk.BATCH + 1
    ours = select(Node.id).where(Node.resource_class == rc)
    traits = select(func.count()).select_from(NodeTrait).where(NodeTrait.node_id.in_(ours))
    assert connection.execute(traits).scalar() == node_bulk.BATCH + 1
    last = store.find(connection, f"{rc}-{node_bulk.BATCH}", by_name=True)
    assert last["extra"] == {"i": node_bulk.BATCH} and last["instance_info"] == {}
    logged = select(NodeChange.uuid).where(NodeChange.generation == store.generation(connection))
    assert connection.execute(logged).scalars().all() == ["*"]
    if sqlite:
        assert connection.exec_driver_sql(cache).scalar() == before


def test_snapshot_and_inspection(connection: Connection) -> None:
    rc = _rc()
    instance = str(uuid.uuid4())
    node = _node(
        connection,
        resource_class=rc,
        traits=["CUSTOM_S"],
        provision_state="active",
        power_state="power on",
        instance_uuid=instance,
        owner="p-owner",
        lessee="p-lessee",
    )
    snapshot = store.snapshot(connection)
    assert snapshot.generation == store.generation(connection)
    (info,) = [n for n in snapshot.nodes if n.uuid == node["uuid"]]
    assert info.resource_class == rc and info.traits == {"CUSTOM_S"} and info.provisioned
    assert (info.provision_state, info.power_state, info.instance_uuid) == (
        "active",
        "power on",
        instance,
    )
    assert (info.owner, info.lessee, info.inventory_state) == ("p-owner", "p-lessee", "used")
    assert store.inspection(connection, node) is None
    store.record_inspection(connection, node, {"cpu": 1}, {"traits": []})
    store.record_inspection(connection, node, {"cpu": 2}, {"traits": ["X"]})
    found = store.inspection(connection, node)
    assert (
        found is not None and found["data"] == {"cpu": 2} and found["result"] == {"traits": ["X"]}
    )


def test_locked_lookup_holds_other_writers(migrated_engine: Engine) -> None:
    """A node read with ``lock`` cannot be locked by a second transaction until the first
    ends: FOR UPDATE on PostgreSQL, the database's write lock on SQLite."""
    engine = writer(migrated_engine)
    with engine.begin() as connection:
        node = _node(connection)
    try:
        order: list[str] = []
        locked_event = threading.Event()

        def second() -> None:
            locked_event.wait(10)
            with engine.begin() as other:
                store.find(other, node["uuid"], by_name=False, lock=True)
                order.append("second")

        thread = threading.Thread(target=second)
        with engine.begin() as connection:
            store.find(connection, node["uuid"], by_name=False, lock=True)
            thread.start()
            locked_event.set()
            thread.join(0.5)
            order.append("first")
        thread.join(30)
        assert order == ["first", "second"]
    finally:
        with engine.begin() as connection:
            store.remove(connection, store.find(connection, node["uuid"], by_name=False))


@pytest.fixture
def postgres_engine(postgres_url: str) -> Iterator[Engine]:
    engine = make_engine(postgres_url)
    migrate.upgrade(engine)
    yield engine
    engine.dispose()


def test_locked_lookup_times_out_on_postgresql(postgres_engine: Engine) -> None:
    """The row lock itself (SQLite serialises writers at BEGIN instead: no row lock)."""
    engine = writer(postgres_engine)
    with engine.begin() as connection:
        node = _node(connection)
    try:
        with engine.begin() as connection, engine.connect() as other:
            store.find(connection, node["uuid"], by_name=False, lock=True)
            other.execute(text("SET lock_timeout = '200ms'"))
            assert store.find(other, node["uuid"], by_name=False)["id"] == node["id"]
            with pytest.raises(OperationalError):
                store.find(other, node["uuid"], by_name=False, lock=True)
            other.rollback()
    finally:
        with engine.begin() as connection:
            store.remove(connection, store.find(connection, node["uuid"], by_name=False))
