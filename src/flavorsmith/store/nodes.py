"""Reading and writing nodes and traits: every write is one transaction that also bumps the
node generation, so caches (the matcher's index) know they are stale."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from flavorsmith.db.models import Node, NodeTrait
from flavorsmith.errors import Conflict, NotFound
from flavorsmith.ironic import nodes as rules
from flavorsmith.store.generations import bump
from flavorsmith.store.node_query import NodeQuery, conditions, ordered_page

GENERATION = "nodes"
COLUMNS = [c for c in Node.__table__.columns]


def now() -> datetime:
    return datetime.now(UTC)


def _row(result_row: Any) -> dict[str, Any]:
    return dict(result_row._mapping)


def find(
    connection: Connection, ident: str, *, by_name: bool, lock: bool = False
) -> dict[str, Any]:
    """A node by UUID, or by name where the API version allows names; 404 otherwise."""
    if rules.is_uuid(ident):
        where = Node.uuid == str(uuidlib.UUID(ident))
    elif by_name:
        where = Node.name == ident
    else:
        raise NotFound(f"Node {ident} could not be found.")
    statement = select(*COLUMNS).where(where)
    if lock and connection.dialect.name == "postgresql":
        statement = statement.with_for_update()
    found = connection.execute(statement).first()
    if found is None:
        raise NotFound(f"Node {ident} could not be found.")
    return _row(found)


def traits_of(connection: Connection, node_ids: Sequence[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {node_id: [] for node_id in node_ids}
    if not node_ids:
        return out
    rows = connection.execute(
        select(NodeTrait.node_id, NodeTrait.trait)
        .where(NodeTrait.node_id.in_(node_ids))
        .order_by(NodeTrait.node_id, NodeTrait.trait)
    )
    for node_id, trait in rows:
        out[node_id].append(trait)
    return out


def list_nodes(
    connection: Connection, query: NodeQuery, *, by_name: bool = True
) -> list[dict[str, Any]]:
    query.validate()
    marker_row = find(connection, query.marker, by_name=False) if query.marker else None
    statement = select(*COLUMNS).where(*conditions(query))
    rows = connection.execute(ordered_page(statement, query, marker_row))
    return [_row(r) for r in rows]


def create(connection: Connection, values: dict[str, Any]) -> dict[str, Any]:
    stamp = now()
    row = {
        "uuid": values.get("uuid") or str(uuidlib.uuid4()),
        "name": values.get("name"),
        "driver": values["driver"],
        "resource_class": values.get("resource_class"),
        "provision_state": values.get("provision_state", "enroll"),
        "maintenance": values.get("maintenance", False),
        "maintenance_reason": values.get("maintenance_reason"),
        "power_state": values.get("power_state"),
        "instance_uuid": values.get("instance_uuid"),
        "description": values.get("description"),
        "properties": values.get("properties") or {},
        "instance_info": values.get("instance_info") or {},
        "driver_info": values.get("driver_info") or {},
        "extra": values.get("extra") or {},
        "created_at": stamp,
    }
    try:
        with connection.begin_nested():
            node_id = connection.execute(insert(Node).values(**row).returning(Node.id)).scalar_one()
    except IntegrityError:
        raise _duplicate(connection, row) from None
    traits = values.get("traits") or []
    if traits:
        connection.execute(insert(NodeTrait), [{"node_id": node_id, "trait": t} for t in traits])
    bump(connection, GENERATION)
    return find(connection, row["uuid"], by_name=False)


def _duplicate(connection: Connection, row: dict[str, Any]) -> Conflict:
    if connection.execute(select(Node.id).where(Node.uuid == row["uuid"])).first():
        return Conflict(f"A node with UUID {row['uuid']} already exists.")
    return Conflict(f"A node with name {row['name']} already exists.")


def save(connection: Connection, node: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """Store changed fields; 409 when a new name is taken."""
    if not changes:
        return node
    changes = {**changes, "updated_at": now()}
    try:
        with connection.begin_nested():
            connection.execute(update(Node).where(Node.id == node["id"]).values(**changes))
    except IntegrityError:
        raise Conflict(f"A node with name {changes.get('name')} already exists.") from None
    bump(connection, GENERATION)
    return {**node, **changes}


def remove(connection: Connection, node: dict[str, Any]) -> None:
    if node["instance_uuid"]:
        raise Conflict(
            f"Node {node['uuid']} is associated with instance {node['instance_uuid']}; "
            "it cannot be deleted"
        )
    if node["provision_state"] in rules.PROVISIONED_STATES:
        raise Conflict(
            f"Node {node['uuid']} is in provision state {node['provision_state']!r}; "
            "it cannot be deleted"
        )
    connection.execute(delete(NodeTrait).where(NodeTrait.node_id == node["id"]))
    connection.execute(delete(Node).where(Node.id == node["id"]))
    bump(connection, GENERATION)


def _touch(connection: Connection, node: dict[str, Any]) -> None:
    connection.execute(update(Node).where(Node.id == node["id"]).values(updated_at=now()))
    bump(connection, GENERATION)


def set_traits(connection: Connection, node: dict[str, Any], traits: Iterable[str]) -> list[str]:
    wanted = list(dict.fromkeys(traits))
    rules.check_trait_count(node["uuid"], wanted)
    connection.execute(delete(NodeTrait).where(NodeTrait.node_id == node["id"]))
    if wanted:
        connection.execute(insert(NodeTrait), [{"node_id": node["id"], "trait": t} for t in wanted])
    _touch(connection, node)
    return wanted


def add_trait(connection: Connection, node: dict[str, Any], trait: str) -> None:
    current = traits_of(connection, [node["id"]])[node["id"]]
    if trait in current:
        return
    rules.check_trait_count(node["uuid"], [*current, trait])
    connection.execute(insert(NodeTrait).values(node_id=node["id"], trait=trait))
    _touch(connection, node)


def remove_trait(connection: Connection, node: dict[str, Any], trait: str) -> None:
    result = connection.execute(
        delete(NodeTrait).where(NodeTrait.node_id == node["id"], NodeTrait.trait == trait)
    )
    if result.rowcount == 0:
        raise NotFound(f"Node {node['uuid']} doesn't have a trait '{trait}'")
    _touch(connection, node)


def remove_all_traits(connection: Connection, node: dict[str, Any]) -> None:
    connection.execute(delete(NodeTrait).where(NodeTrait.node_id == node["id"]))
    _touch(connection, node)
