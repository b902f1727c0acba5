"""Runbooks in the store, on SQLite and PostgreSQL: unique names and UUIDs, keyset pages in
every sort order, the project filter, traits kept distinct."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Connection

from flavorsmith.errors import Conflict, NotFound
from flavorsmith.store import generations
from flavorsmith.store import runbooks as store

STEPS = [{"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}]


def _name() -> str:
    return f"rb-{uuid.uuid4().hex[:10]}"


def test_create_find_save_remove(connection: Connection) -> None:
    before = generations.read(connection, store.GENERATION)
    row = store.create(
        connection,
        {"name": _name(), "steps": STEPS, "traits": ["CUSTOM_B", "CUSTOM_A", "CUSTOM_B"]},
    )
    assert generations.read(connection, store.GENERATION) == before + 1
    assert row["traits"] == ["CUSTOM_A", "CUSTOM_B"]
    assert row["public"] is False and row["disable_ramdisk"] is False
    assert row["extra"] == {} and row["owner"] is None and row["updated_at"] is None
    assert store.find(connection, row["uuid"]) == store.find(connection, row["name"]) == row
    assert store.find(connection, row["uuid"], lock=True)["steps"] == STEPS

    with pytest.raises(Conflict, match=f"A runbook with name {row['name']} already exists."):
        store.create(connection, {"name": row["name"], "steps": STEPS})
    with pytest.raises(Conflict, match=f"A runbook with UUID {row['uuid']} already exists."):
        store.create(connection, {"name": _name(), "uuid": row["uuid"], "steps": STEPS})

    other = store.create(connection, {"name": _name(), "steps": STEPS})
    with pytest.raises(Conflict, match="already exists"):
        store.save(connection, other, {"name": row["name"]})
    saved = store.save(connection, row, {"description": "d", "steps": [*STEPS, *STEPS]})
    assert store.find(connection, row["uuid"]) == saved
    assert saved["updated_at"] is not None

    saved = store.add_trait(connection, saved, "CUSTOM_0")
    assert store.find(connection, row["uuid"])["traits"] == ["CUSTOM_0", "CUSTOM_A", "CUSTOM_B"]
    assert store.add_trait(connection, saved, "CUSTOM_0") is saved
    saved = store.remove_trait(connection, saved, "CUSTOM_A")
    assert store.remove_trait(connection, saved, "CUSTOM_NOT_THERE") is saved
    saved = store.set_traits(connection, saved, ["CUSTOM_Z", "CUSTOM_Z"])
    assert store.find(connection, row["uuid"])["traits"] == ["CUSTOM_Z"]

    assert [r["name"] for r in store.named(connection, [other["name"], row["name"], "x"])] == (
        sorted([other["name"], row["name"]])
    )
    store.remove(connection, saved)
    with pytest.raises(NotFound, match=f"Runbook {row['uuid']} could not be found."):
        store.find(connection, row["uuid"])
    with pytest.raises(NotFound, match=f"Runbook {row['name']} could not be found."):
        store.find(connection, row["name"])


@pytest.mark.parametrize("sort_key", store.SORT_KEYS)
@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
def test_pages_cover_every_row_once(connection: Connection, sort_key: str, sort_dir: str) -> None:
    owner = uuid.uuid4().hex
    made = []
    for index in range(5):
        made.append(
            store.create(
                connection,
                {
                    "name": _name(),
                    "steps": STEPS,
                    "owner": owner if index % 2 else None,
                    "public": index == 4,
                    "description": None if index % 3 == 0 else f"d{index % 2}",
                    "disable_ramdisk": index == 1,
                },
            )
        )
        if index == 2:
            store.save(connection, made[-1], {"extra": {"k": index}})
    ours = {r["uuid"] for r in made}
    whole = [r for r in store.list_all(connection, sort_key=sort_key, sort_dir=sort_dir)]
    seen: list[str] = []
    marker = None
    while True:
        page = store.list_all(
            connection, limit=2, marker=marker, sort_key=sort_key, sort_dir=sort_dir
        )
        if not page:
            break
        seen.extend(r["uuid"] for r in page)
        marker = page[-1]["uuid"]
    assert seen == [r["uuid"] for r in whole]
    assert ours <= set(seen)

    projected = {r["uuid"] for r in store.list_all(connection, project=owner)} & ours
    assert projected == {made[1]["uuid"], made[3]["uuid"], made[4]["uuid"]}
    owned = {r["uuid"] for r in store.list_all(connection, owner=owner)}
    assert owned == {made[1]["uuid"], made[3]["uuid"]}


def test_a_marker_must_be_a_runbook(connection: Connection) -> None:
    with pytest.raises(NotFound, match=r"Runbook nope could not be found\."):
        store.list_all(connection, marker="nope")
    gone = str(uuid.uuid4())
    with pytest.raises(NotFound, match=f"Runbook {gone} could not be found."):
        store.list_all(connection, marker=gone)
    with pytest.raises(ValueError, match="cannot sort runbooks by 'steps'"):
        store.list_all(connection, sort_key="steps")
