"""A write of a node's traits, statement for statement, two ways: ``store.sql.Prepared`` (each
statement compiled once and run on the transaction's driver cursor) against SQLAlchemy's own
``Connection.execute`` of the same Core statements (its compiled cache; a list of rows goes
through the driver's executemany, or insertmanyvalues for an INSERT).

    PYTHONPATH=src .venv/bin/python benchmarks/prepared.py [--writes 2000] [--rounds 5]

On a fresh SQLite file (migrated) holding one node, each write is the statements of
``PUT /v1/nodes/{node}/traits`` (replacing 10 traits, 3 of them changed) in one writing
transaction, on one Connection kept from write to write as the service keeps it: read the
node by uuid, read its traits, delete the traits that go, insert the new ones, touch the node,
bump the node generation and log the change. Prints the median time of one write each way
(the best of ``--rounds`` rounds, the two ways taking turns) and their ratio. Not run in CI.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.dialects import sqlite

from flavorsmith.db.engine import make_engine, writer
from flavorsmith.db.migrate import upgrade
from flavorsmith.db.models import Counter, Node, NodeChange, NodeTrait
from flavorsmith.store.sql import Prepared

FIND = select(Node.id, Node.uuid, Node.name).where(Node.uuid == bindparam("ident"))
TRAITS = select(NodeTrait.trait).where(NodeTrait.node_id == bindparam("node_id"))
REMOVE = delete(NodeTrait).where(
    NodeTrait.node_id == bindparam("node_id"), NodeTrait.trait == bindparam("trait")
)
ADD = insert(NodeTrait)
TOUCH = (
    update(Node)
    .where(Node.id == bindparam("node_id"))
    .values(updated_at=bindparam("stamp", type_=Node.__table__.c.updated_at.type))
)
BUMP = (
    sqlite.insert(Counter)
    .values(name=bindparam("name"), value=1)
    .on_conflict_do_update(index_elements=[Counter.name], set_={"value": Counter.value + 1})
    .returning(Counter.value)
)
LOG = insert(NodeChange)

P_FIND = Prepared(FIND)
P_TRAITS = Prepared(TRAITS)
P_REMOVE = Prepared(REMOVE)
P_ADD = Prepared(ADD, column_keys=("node_id", "trait"))
P_TOUCH = Prepared(TOUCH)
P_BUMP = Prepared(BUMP)
P_LOG = Prepared(LOG, column_keys=("generation", "uuid", "created"))


def traits_of(number: int) -> list[str]:
    """Ten traits, three of which change from one write to the next."""
    return [f"CUSTOM_KEEP_{i}" for i in range(7)] + [f"CUSTOM_N{number}_{i}" for i in range(3)]


def with_prepared(connection: Connection, ident: str, wanted: list[str]) -> None:
    node = P_FIND.first(connection, {"ident": ident})
    assert node is not None
    node_id = node["id"]
    current = set(P_TRAITS.column(connection, {"node_id": node_id}))
    gone = sorted(current - set(wanted))
    added = sorted(set(wanted) - current)
    P_REMOVE.run_many(connection, [{"node_id": node_id, "trait": t} for t in gone])
    P_ADD.run_many(connection, [{"node_id": node_id, "trait": t} for t in added])
    P_TOUCH.run(connection, {"node_id": node_id, "stamp": datetime.now(UTC)})
    value = int(P_BUMP.scalar(connection, {"name": "nodes"}))
    P_LOG.run_many(connection, [{"generation": value, "uuid": ident, "created": False}])


def with_execute(connection: Connection, ident: str, wanted: list[str]) -> None:
    node = connection.execute(FIND, {"ident": ident}).mappings().one()
    node_id = node["id"]
    current = set(connection.execute(TRAITS, {"node_id": node_id}).scalars())
    gone = sorted(current - set(wanted))
    added = sorted(set(wanted) - current)
    if gone:
        connection.execute(REMOVE, [{"node_id": node_id, "trait": t} for t in gone])
    if added:
        connection.execute(ADD, [{"node_id": node_id, "trait": t} for t in added])
    connection.execute(TOUCH, {"node_id": node_id, "stamp": datetime.now(UTC)})
    value = int(connection.execute(BUMP, {"name": "nodes"}).scalar_one())
    connection.execute(LOG, {"generation": value, "uuid": ident, "created": False})


def one_round(
    connection: Connection,
    write: Callable[[Connection, str, list[str]], None],
    ident: str,
    writes: int,
    start: int,
) -> float:
    """The median time of one write, in microseconds."""
    times = []
    for number in range(start, start + writes):
        wanted = traits_of(number)
        began = time.perf_counter()
        with connection.begin():
            write(connection, ident, wanted)
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'bench.db'}")
        upgrade(engine)
        ident = str(uuid.uuid4())
        with writer(engine).begin() as connection:
            connection.execute(
                insert(Node),
                {
                    "uuid": ident,
                    "driver": "fake-hardware",
                    "provision_state": "available",
                    "created_at": datetime.now(UTC),
                },
            )
        ways: dict[str, Callable[[Connection, str, list[str]], None]] = {
            "Prepared (driver cursor)": with_prepared,
            "Connection.execute": with_execute,
        }
        best: dict[str, float] = {}
        number = 0
        with writer(engine).connect() as connection:
            for _ in range(args.rounds):
                for name, write in ways.items():
                    median = one_round(connection, write, ident, args.writes, number)
                    number += args.writes
                    best[name] = min(best.get(name, median), median)
            rows = connection.execute(TRAITS, {"node_id": 1}).scalars().all()
            assert sorted(rows) == sorted(traits_of(number - 1)), rows
        engine.dispose()
    prepared, executed = best["Prepared (driver cursor)"], best["Connection.execute"]
    print(f"{args.writes} writes of 10 traits a round, best of {args.rounds} rounds (median)")
    for name, value in best.items():
        print(f"{name:26} {value:8.1f} us a write")
    print(f"Connection.execute / Prepared: {executed / prepared:.2f}x")


if __name__ == "__main__":
    main()
