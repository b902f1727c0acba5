"""What every store module shares (store/sql.py): rows, locked lookups, keyset pages, savepoint-guarded writes."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import Connection, bindparam, delete, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite

from flavorsmith.db.models import Counter, FlavorProfile, NodeChange, ServiceFlavor
from flavorsmith.errors import NotFound
from flavorsmith.store.sql import (
    Duplicate,
    Prepared,
    fetch_all,
    fetch_one,
    find,
    keyset,
    keyset_by,
    locked,
    unique,
)


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def _counters(connection: Connection, values: dict[str, int]) -> None:
    connection.execute(insert(Counter), [{"name": k, "value": v} for k, v in values.items()])


def test_rows_are_plain_dicts(connection: Connection) -> None:
    name = _name()
    _counters(connection, {name: 3})
    statement = select(Counter.name, Counter.value).where(Counter.name == name)
    assert fetch_all(connection, statement) == [{"name": name, "value": 3}]
    assert fetch_one(connection, statement) == {"name": name, "value": 3}
    assert fetch_one(connection, select(Counter.name).where(Counter.name == _name())) is None


def test_find_raises_not_found_with_the_callers_message(connection: Connection) -> None:
    statement = select(Counter.name).where(Counter.name == _name())
    with pytest.raises(NotFound, match="no such counter"):
        find(connection, statement, missing="no such counter", lock=True)


def test_locked_is_for_update_on_postgresql_only(connection: Connection) -> None:
    statement = locked(connection, select(Counter.name), True)
    compiled = str(statement.compile(dialect=connection.dialect))
    assert ("FOR UPDATE" in compiled) is (connection.dialect.name == "postgresql")
    assert "FOR UPDATE" not in str(locked(connection, select(Counter.name), False))


def test_for_update_compiles_per_dialect() -> None:
    class Fake:
        def __init__(self, name: str) -> None:
            self.dialect = type("D", (), {"name": name})()

    plain = select(Counter.name)
    pg = locked(Fake("postgresql"), plain, True)  # type: ignore[arg-type]
    lite = locked(Fake("sqlite"), plain, True)  # type: ignore[arg-type]
    assert "FOR UPDATE" in str(pg.compile(dialect=postgresql.dialect()))
    assert "FOR UPDATE" not in str(lite.compile(dialect=sqlite.dialect()))


def test_unique_rolls_back_only_the_failed_write(connection: Connection) -> None:
    name = _name()
    _counters(connection, {name: 1})
    with pytest.raises(Duplicate), unique(connection):
        connection.execute(insert(Counter).values(name=name, value=2))
    # The transaction is still usable and kept the first row.
    assert fetch_one(connection, select(Counter.value).where(Counter.name == name)) == {"value": 1}


@pytest.mark.parametrize("ascending", [True, False])
def test_keyset_pages_cover_every_row_once_in_order(
    connection: Connection, ascending: bool
) -> None:
    prefix = _name()
    values = {f"{prefix}-{i:02d}": i % 3 for i in range(10)}  # ties on value, broken by name
    _counters(connection, values)
    base = select(Counter.name, Counter.value).where(Counter.name.like(f"{prefix}-%"))
    expected = sorted(values.items(), key=lambda kv: (kv[1], kv[0]), reverse=not ascending)
    seen: list[tuple[str, int]] = []
    after = None
    while True:
        page = fetch_all(
            connection,
            keyset(base, Counter.value, Counter.name, ascending=ascending, after=after, limit=3),
        )
        seen.extend((r["name"], r["value"]) for r in page)
        if len(page) < 3:
            break
        after = (page[-1]["value"], page[-1]["name"])
    assert seen == expected


def test_keyset_on_the_identity_column_alone(connection: Connection) -> None:
    prefix = _name()
    _counters(connection, {f"{prefix}-{i}": 0 for i in range(4)})
    base = select(Counter.name).where(Counter.name.like(f"{prefix}-%"))
    page = fetch_all(
        connection,
        keyset(base, Counter.name, Counter.name, ascending=True, after=(None, f"{prefix}-1")),
    )
    assert [r["name"] for r in page] == [f"{prefix}-2", f"{prefix}-3"]


@pytest.mark.parametrize("first_ascending", [True, False])
@pytest.mark.parametrize("ident_ascending", [True, False])
def test_keyset_by_several_keys_with_nulls(
    connection: Connection, first_ascending: bool, ident_ascending: bool
) -> None:
    """Several sort keys, NULLs first ascending and last descending, pages of every size."""
    prefix = _name()
    profiles = [
        {
            "id": f"{prefix}-{i:02d}",
            "name": ["a", "b", "a", "c", "b", "a"][i],
            "provider_name": "noop",
            "flavor_data": "{}",
        }
        for i in range(6)
    ]
    connection.execute(insert(FlavorProfile), profiles)
    flavors = [
        {
            "id": f"{prefix}-f{i}",
            "name": f"{prefix}-f{i}",
            "description": [None, "x", "y", None, "x", "y", None][i],
            "enabled": i % 2 == 0,
            "flavor_profile_id": profiles[0]["id"],
        }
        for i in range(7)
    ]
    connection.execute(insert(ServiceFlavor), flavors)
    keys = [(ServiceFlavor.description, first_ascending), (ServiceFlavor.enabled, False)]
    base = select(ServiceFlavor.id, ServiceFlavor.description, ServiceFlavor.enabled).where(
        ServiceFlavor.id.like(f"{prefix}-f%")
    )

    ordered: list[dict[str, Any]] = sorted(
        flavors, key=lambda r: r["id"], reverse=not ident_ascending
    )
    ordered.sort(key=lambda r: not r["enabled"])  # enabled descending
    present = [r for r in ordered if r["description"] is not None]
    missing = [r for r in ordered if r["description"] is None]
    present.sort(key=lambda r: r["description"], reverse=not first_ascending)
    expected = [r["id"] for r in (missing + present if first_ascending else present + missing)]
    for size in range(1, 8):
        seen: list[str] = []
        after = None
        while True:
            page = fetch_all(
                connection,
                keyset_by(
                    base,
                    keys,
                    ServiceFlavor.id,
                    ident_ascending=ident_ascending,
                    after=after,
                    limit=size,
                ),
            )
            seen.extend(r["id"] for r in page)
            if len(page) < size:
                break
            last = page[-1]
            after = (last["description"], last["enabled"], last["id"])
        assert seen == expected, size


def test_prepared_statements_store_what_sqlalchemy_stores(connection: Connection) -> None:
    """Run on the driver's cursor, the same values reach the database as through execute:
    a boolean, a default and a bound parameter, in the database's own SQL."""
    log = Prepared(insert(NodeChange), column_keys=("generation", "uuid", "created"))
    log.run_many(
        connection,
        [
            {"generation": -7, "uuid": "prepared", "created": True},
            {"generation": -8, "uuid": "prepared", "created": False},
        ],
    )
    connection.execute(insert(NodeChange).values(generation=-9, uuid="execute", created=True))
    raw = text("SELECT generation, uuid, created FROM node_changes WHERE generation < 0 ORDER BY 1")
    true, false = (True, False) if connection.dialect.name == "postgresql" else (1, 0)
    assert [tuple(row) for row in connection.execute(raw)] == [
        (-9, "execute", true),
        (-8, "prepared", false),
        (-7, "prepared", true),
    ]
    reader = Prepared(
        select(NodeChange.generation, NodeChange.uuid).where(
            NodeChange.generation == bindparam("generation")
        )
    )
    assert reader.first(connection, {"generation": -8}) == {"generation": -8, "uuid": "prepared"}
    assert reader.first(connection, {"generation": -1}) is None
    assert reader.scalar(connection, {"generation": -7}) == -7
    prune = Prepared(delete(NodeChange).where(NodeChange.generation <= bindparam("oldest")))
    assert prune.run(connection, {"oldest": -8}) == 2


def test_prepared_reads_only_columns_the_driver_returns_as_they_are(
    connection: Connection,
) -> None:
    """SQLite returns a boolean as 0 or 1, which SQLAlchemy converts: such a read is refused
    there; psycopg returns a bool itself."""
    connection.execute(insert(NodeChange).values(generation=-5, uuid="bool", created=True))
    reader = Prepared(select(NodeChange.created).where(NodeChange.generation == -5))
    if connection.dialect.name == "postgresql":
        assert reader.first(connection) == {"created": True}
    else:
        with pytest.raises(TypeError, match="created: its values need converting"):
            reader.first(connection)
