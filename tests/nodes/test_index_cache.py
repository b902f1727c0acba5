"""The index cache follows node changes made through the store — random trait changes,
field changes, renames, creations, deletions, imports and mirror refreshes — without reading
every node, and after each change equals an index built afresh from the same snapshot (every
bitmap), on SQLite and PostgreSQL; it builds afresh when the change log cannot say."""

from __future__ import annotations

import random
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, select

from flavorsmith.db import migrate
from flavorsmith.db.engine import consistent, make_engine, writer
from flavorsmith.db.models import Node
from flavorsmith.ironic.mirror import mirrored
from flavorsmith.matching.index import Index
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.store import node_import, node_mirror
from flavorsmith.store import nodes as store
from tests.database import throwaway_postgres
from tests.matching.test_index_update import assert_same

TRAITS = [f"CUSTOM_T{i}" for i in range(10)]
CLASSES = ["baremetal", "gpu", "m1.small"]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A database of its own (a mirror refresh deletes every node it is not given)."""
    if request.param == "sqlite":
        made = make_engine(f"sqlite:///{tmp_path / 'cache.db'}")
        migrate.upgrade(made)
        yield made
        made.dispose()
        return
    with throwaway_postgres() as url:
        made = make_engine(url)
        migrate.upgrade(made)
        yield made
        made.dispose()


def fresh(engine: Engine) -> Index:
    with consistent(engine).begin() as connection:
        return Index.build(store.snapshot(connection))


def _uuids(connection: Connection) -> list[str]:
    return [str(u) for u in connection.execute(select(Node.uuid).order_by(Node.id)).scalars()]


def _change(rng: random.Random, connection: Connection, deleted: list[str]) -> None:
    """One random write through the store."""
    uuids = _uuids(connection)
    kind = rng.choice(["create", "create", "remove", "traits", "trait", "save", "import"])
    if not uuids:
        kind = "create"
    if kind == "create":
        again = deleted and rng.random() < 0.3  # a UUID that comes back after its deletion
        store.create(
            connection,
            {
                "uuid": deleted.pop() if again else str(uuidlib.uuid4()),
                "name": rng.choice([None, f"n-{uuidlib.uuid4().hex[:6]}"]),
                "driver": "fake-hardware",
                "resource_class": rng.choice(CLASSES),
                "traits": rng.sample(TRAITS, rng.randint(0, 3)),
                "provision_state": rng.choice(["available", "active"]),
            },
        )
        return
    node = store.find(connection, rng.choice(uuids), by_name=False)
    if kind == "remove":
        if node["provision_state"] == "active":
            store.save(connection, node, {"provision_state": "available"})
        else:
            store.remove(connection, node)
            deleted.append(node["uuid"])
    elif kind == "traits":
        store.set_traits(connection, node, rng.sample(TRAITS, rng.randint(0, 4)))
    elif kind == "trait":
        trait = rng.choice(TRAITS)
        if trait in store.traits_of(connection, [node["id"]])[node["id"]]:
            store.remove_trait(connection, node, trait)
        else:
            store.add_trait(connection, node, trait)
    elif kind == "save":
        store.save(
            connection,
            node,
            {
                "maintenance": not node["maintenance"],
                "resource_class": rng.choice(CLASSES),
                "name": rng.choice([None, f"n-{uuidlib.uuid4().hex[:6]}"]),
            },
        )
    else:
        specs = [
            node_import.NodeSpec(None, u, {"resource_class": rng.choice(CLASSES)}, None)
            for u in rng.sample(uuids, min(3, len(uuids)))
        ]
        specs.append(node_import.NodeSpec(None, str(uuidlib.uuid4()), {}, ("CUSTOM_T1",)))
        node_import.import_nodes(connection, specs)


@pytest.mark.parametrize("seed", range(3))
def test_random_changes_follow_to_the_same_index(engine: Engine, seed: int) -> None:
    rng = random.Random(seed)
    cache = IndexCache(engine)
    deleted: list[str] = []
    assert_same(cache.current(), fresh(engine))
    for _ in range(40):
        with writer(engine).begin() as connection:
            for _ in range(rng.choice([1, 1, 2, 3])):  # several writes, or one, per read
                _change(rng, connection, deleted)
        assert_same(cache.current(), fresh(engine))
    assert cache.rebuilds == 1 and cache.updates == 40


def test_a_mirror_refresh_is_followed(engine: Engine) -> None:
    def record(uuid: str, traits: list[str], state: str = "available") -> dict[str, object]:
        return {
            "uuid": uuid,
            "name": None,
            "resource_class": "baremetal",
            "traits": traits,
            "provision_state": state,
            "maintenance": False,
            "driver": "fake-hardware",
        }

    uuids = [str(uuidlib.uuid4()) for _ in range(30)]
    with writer(engine).begin() as connection:
        node_mirror.mirror(connection, [mirrored(record(u, ["CUSTOM_A"])) for u in uuids])
    cache = IndexCache(engine)
    cache.current()
    later = [record(u, ["CUSTOM_B"] if i % 3 else ["CUSTOM_A"]) for i, u in enumerate(uuids)]
    later = [*later[1:], record(str(uuidlib.uuid4()), [], "active")]  # one gone, one new
    with writer(engine).begin() as connection:
        node_mirror.mirror(connection, [mirrored(r) for r in later])
    assert_same(cache.current(), fresh(engine))
    assert (cache.rebuilds, cache.updates) == (1, 1)


def test_rebuilds_when_the_log_cannot_say(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = IndexCache(engine)
    cache.current()
    many = [node_import.NodeSpec(None, str(uuidlib.uuid4()), {}, ("CUSTOM_A",)) for _ in range(5)]
    monkeypatch.setattr(store, "LOG_LIMIT", 4)  # one write changes more nodes than logged
    with writer(engine).begin() as connection:
        node_import.import_nodes(connection, many)
    assert_same(cache.current(), fresh(engine))
    assert (cache.rebuilds, cache.updates) == (2, 0)
    monkeypatch.setattr(store, "LOG_LIMIT", 1000)
    monkeypatch.setattr(store, "LOG_KEEP", 2)  # the log forgets what this process needs
    monkeypatch.setattr(store, "PRUNE_EVERY", 1)
    for spec in many[:3]:
        with writer(engine).begin() as connection:
            node = store.find(connection, str(spec.uuid), by_name=False)
            store.set_traits(connection, node, ["CUSTOM_B"])
    assert_same(cache.current(), fresh(engine))
    assert (cache.rebuilds, cache.updates) == (3, 0)
    with writer(engine).begin() as connection:
        node = store.find(connection, str(many[4].uuid), by_name=False)
        store.set_traits(connection, node, ["CUSTOM_C"])
    assert_same(cache.current(), fresh(engine))
    assert (cache.rebuilds, cache.updates) == (3, 1)


def test_a_uuid_deleted_and_created_again_moves_to_the_end(engine: Engine) -> None:
    with writer(engine).begin() as connection:
        made = [
            store.create(connection, {"driver": "fake-hardware", "resource_class": "baremetal"})
            for _ in range(3)
        ]
    cache = IndexCache(engine)
    cache.current()
    with writer(engine).begin() as connection:  # between two reads of the cache
        store.remove(connection, made[0])
        store.create(
            connection, {"uuid": made[0]["uuid"], "driver": "fake-hardware", "traits": ["CUSTOM_A"]}
        )
    index = cache.current()
    assert [n.uuid for n in index.snapshot.nodes] == [m["uuid"] for m in (*made[1:], made[0])]
    assert_same(index, fresh(engine))
    assert (cache.rebuilds, cache.updates) == (1, 1)
