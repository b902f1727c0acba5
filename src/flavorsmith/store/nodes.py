"""The node store's queries and per-request writes, on nodes, their traits and their
inspections (the bulk import is ``node_import.py``, the Ironic mirror's diff ``node_mirror.py``,
what the two share ``node_bulk.py``).

Every write is one transaction that also bumps the node generation, so caches (the matcher's
index) know they are stale, and logs which nodes it changed (NodeChange), so they can follow
without reading every node. Field rules live in :mod:`flavorsmith.ironic.nodes`; callers check
values there before they reach this module, and write through ``nodes/service.py``, which
holds every write to the node rules (Ironic's states, the mirror's read-only state)."""

from __future__ import annotations

import json
import uuid as uuidlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    String,
    bindparam,
    delete,
    false,
    func,
    insert,
    not_,
    or_,
    select,
    update,
)

from flavorsmith.db.models import Node, NodeChange, NodeInspection, NodeTrait
from flavorsmith.errors import Conflict, Invalid, NotFound
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.ironic.node_fields import INTERFACES
from flavorsmith.matching.snapshot import NodeInfo, Snapshot, is_provisioned
from flavorsmith.query_values import MAX_LIMIT
from flavorsmith.store import generations
from flavorsmith.store.generations import bump
from flavorsmith.store.node_bulk import batches
from flavorsmith.store.sql import (
    Duplicate,
    Prepared,
    fetch_all,
    fetch_one,
    keyset,
    unique,
)
from flavorsmith.store.sql import (
    find as find_row,
)

GENERATION = "nodes"
# The change log (NodeChange): a write that changes more nodes than this logs "*" instead (a
# reader rebuilds), and the log keeps at least this many generations: every PRUNE_EVERY
# generations, the older ones are deleted (a delete with every write cost a write of one
# node's traits a tenth of its database time; it kept the log no shorter than this does).
LOG_LIMIT = 1000
LOG_KEEP = 1000
PRUNE_EVERY = 100
EVERYTHING = "*"
COLUMNS = list(Node.__table__.columns)
# The longest text each column holds, for rules.checked_node (PostgreSQL refuses longer text).
FIELD_LENGTHS: dict[str, int] = {
    c.name: c.type.length for c in COLUMNS if isinstance(c.type, String) and c.type.length
}
SORT_KEYS = (
    "id",
    "uuid",
    "name",
    "driver",
    "resource_class",
    "provision_state",
    "power_state",
    "maintenance",
    "instance_uuid",
    "created_at",
    "updated_at",
    "conductor_group",
    "owner",
    "lessee",
    "retired",
    "protected",
    "shard",
    "instance_name",
)


def now() -> datetime:
    return datetime.now(UTC)


# -- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeQuery:
    resource_class: str | None = None
    provision_state: str | None = None
    maintenance: bool | None = None
    associated: bool | None = None
    driver: str | None = None
    traits: tuple[str, ...] = ()  # has all
    traits_any: tuple[str, ...] = ()  # has at least one
    not_traits: tuple[str, ...] = ()  # does not have all of them
    not_traits_any: tuple[str, ...] = ()  # has none
    owner: str | None = None
    lessee: str | None = None
    project: str | None = None  # owner or lessee (the list's `project` filter)
    visible_to: str | None = None  # owner or lessee: a project-scoped caller's own nodes
    conductor_group: str | None = None  # stored lowercased, compared as given (as Ironic)
    retired: bool | None = None
    shards: tuple[str, ...] = ()  # in any of them
    sharded: bool | None = None
    instance_name: str | None = None
    instance_uuid: str | None = None
    description_contains: str | None = None
    parent_node: str | None = None  # only the children of this node (a UUID)
    include_children: bool = True  # Ironic's API lists no child node unless asked
    fault: str | None = None  # faults are the conductor's: no stored node has one
    sort_key: str = "id"
    sort_dir: str = "asc"
    limit: int = MAX_LIMIT
    marker: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        if self.sort_key not in SORT_KEYS:
            raise Invalid(
                f"The sort_key value {self.sort_key!r} is an invalid field for sorting; "
                f"choose from {', '.join(SORT_KEYS)}"
            )
        if self.sort_dir not in ("asc", "desc"):
            raise Invalid(f"Invalid sort direction {self.sort_dir!r}: choose asc or desc")


def _has_all(traits: tuple[str, ...]) -> ColumnElement[bool]:
    matching = (
        select(NodeTrait.node_id)
        .where(NodeTrait.trait.in_(traits))
        .group_by(NodeTrait.node_id)
        .having(func.count() == len(set(traits)))
    )
    return Node.id.in_(matching)


def _has_any(traits: tuple[str, ...]) -> ColumnElement[bool]:
    return Node.id.in_(select(NodeTrait.node_id).where(NodeTrait.trait.in_(traits)))


def conditions(query: NodeQuery) -> list[ColumnElement[bool]]:
    """WHERE clauses; trait filters are subqueries on the (trait, node_id) index."""
    out: list[ColumnElement[bool]] = []
    if query.resource_class is not None:
        out.append(Node.resource_class == query.resource_class)
    if query.provision_state is not None:
        out.append(Node.provision_state == query.provision_state)
    if query.maintenance is not None:
        out.append(Node.maintenance == query.maintenance)
    if query.associated is not None:
        out.append(
            Node.instance_uuid.isnot(None) if query.associated else Node.instance_uuid.is_(None)
        )
    if query.driver is not None:
        out.append(Node.driver == query.driver)
    out.extend(_data_conditions(query))
    if query.traits:
        out.append(_has_all(query.traits))
    if query.traits_any:
        out.append(_has_any(query.traits_any))
    if query.not_traits:
        out.append(not_(_has_all(query.not_traits)))
    if query.not_traits_any:
        out.append(not_(_has_any(query.not_traits_any)))
    return out


def _data_conditions(query: NodeQuery) -> list[ColumnElement[bool]]:
    """The filters on Ironic's data fields, as Ironic's database layer applies them."""
    out: list[ColumnElement[bool]] = []
    equal = {
        Node.owner: query.owner,
        Node.lessee: query.lessee,
        Node.conductor_group: query.conductor_group,
        Node.retired: query.retired,
        Node.instance_name: query.instance_name,
        Node.instance_uuid: query.instance_uuid,
    }
    out.extend(column == value for column, value in equal.items() if value is not None)
    for project in (query.project, query.visible_to):
        if project is not None:
            out.append(or_(Node.owner == project, Node.lessee == project))
    if query.shards:
        out.append(Node.shard.in_(query.shards))
    if query.sharded is not None:
        out.append(Node.shard.isnot(None) if query.sharded else Node.shard.is_(None))
    if query.description_contains is not None:
        out.append(Node.description.contains(query.description_contains, autoescape=True))
    if query.parent_node is not None:
        out.append(Node.parent_node == query.parent_node)
    elif not query.include_children:
        out.append(Node.parent_node.is_(None))
    if query.fault is not None:
        out.append(false())
    return out


# What a caller that only checks policy on a node and writes its traits reads of it.
KEY_COLUMNS = ("id", "uuid", "owner", "lessee")


def find(
    connection: Connection,
    ident: str,
    *,
    by_name: bool,
    lock: bool = False,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A node by UUID, or by name where the API version allows names; 404 otherwise.
    ``columns``: only these stored columns (and ``id`` and ``uuid``); None: every column."""
    if is_uuid(ident):
        key, value = "uuid", str(uuidlib.UUID(ident))
    elif by_name:
        key, value = "name", ident
    else:
        raise NotFound(f"Node {ident} could not be found.")
    missing = f"Node {ident} could not be found."
    if columns is not None and tuple(columns) == KEY_COLUMNS:
        row = _KEY_FINDERS[(key, lock)].first(connection, {"ident": value})
        if row is None:
            raise NotFound(missing)
        return row
    return find_row(
        connection,
        _finder(key, None if columns is None else tuple(columns)),
        missing=missing,
        lock=lock,
        params={"ident": value},
    )


_FINDERS: dict[tuple[str, tuple[str, ...] | None], Any] = {}


def _finder(key: str, columns: tuple[str, ...] | None) -> Any:
    """The statement that reads a node by ``key`` (its uuid or name, bound as ``ident``),
    made once for each set of columns: a write of one node's traits is a handful of short
    statements, and building a statement of sixty columns cost as much as running it."""
    found = _FINDERS.get((key, columns))
    if found is None:
        selected = COLUMNS if columns is None else _columns(columns)
        found = select(*selected).where(getattr(Node, key) == bindparam("ident"))
        _FINDERS[(key, columns)] = found
    return found


def names(connection: Connection) -> list[str]:
    """Every node's name, sorted (nodes without one left out)."""
    statement = select(Node.name).where(Node.name.is_not(None)).order_by(Node.name)
    return [str(row[0]) for row in connection.execute(statement)]


def traits_of(connection: Connection, node_ids: Sequence[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {node_id: [] for node_id in node_ids}
    if not node_ids:
        return out
    if len(node_ids) == 1:  # one node's (every trait request): a statement made once
        [node_id] = node_ids
        out[node_id] = list(connection.execute(_ONE_NODES_TRAITS, {"node_id": node_id}).scalars())
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
    connection: Connection,
    query: NodeQuery,
    *,
    columns: Iterable[str] | None = None,
    with_traits: bool = False,
) -> list[dict[str, Any]]:
    """One keyset page: filtered, sorted by (sort_key, id), after the marker node (a UUID).

    ``columns``: only these stored columns (and always ``id`` and ``uuid``), for a caller
    that shows a few fields of many nodes; None reads every column. ``with_traits``: each row
    also holds ``traits``, the node's traits in ``traits_of``'s order, read in the same
    statement."""
    query.validate()
    after = None
    if query.marker:
        marker = fetch_one(
            connection,
            select(getattr(Node, query.sort_key), Node.id).where(
                Node.uuid == _canonical(query.marker)
            ),
        )
        if marker is None:
            raise NotFound(f"Node {query.marker} could not be found.")
        after = (marker[query.sort_key], marker["id"])
    selected = COLUMNS if columns is None else _columns(columns)
    if with_traits:
        selected = [*selected, _traits_column(connection)]
    statement = keyset(
        select(*selected).where(*conditions(query)),
        getattr(Node, query.sort_key),
        Node.id,
        ascending=query.sort_dir == "asc",
        after=after,
        limit=query.limit,
    )
    rows = fetch_all(connection, statement)
    if with_traits:
        for row in rows:
            row["traits"] = _traits_value(row["traits"])
    return rows


def _canonical(ident: str) -> str:
    """A node UUID as stored (lowercase, hyphenated); NotFound for what is not a UUID."""
    if not is_uuid(ident):
        raise NotFound(f"Node {ident} could not be found.")
    return str(uuidlib.UUID(ident))


_BY_NAME = {c.name: c for c in COLUMNS}


def _columns(names: Iterable[str]) -> list[Any]:
    """The stored columns ``names``, after ``id`` and ``uuid``, each once."""
    wanted = dict.fromkeys(("id", "uuid", *names))
    return [_BY_NAME[name] for name in wanted]


def _traits_column(connection: Connection) -> Any:
    """A node's traits as one value of the page's own statement (no second query, no row per
    trait): a JSON array aggregated in a subquery on the (node_id, trait) key. PostgreSQL
    orders it as ``traits_of``'s ORDER BY does; SQLite (before 3.44) cannot order an aggregate,
    so ``_traits_value`` sorts it, as SQLite's binary collation would."""
    aggregate: ColumnElement[Any]
    if connection.dialect.name == "postgresql":
        aggregate = func.json_agg(NodeTrait.trait).aggregate_order_by(NodeTrait.trait)
    else:
        aggregate = func.json_group_array(NodeTrait.trait)
    subquery = select(aggregate).where(NodeTrait.node_id == Node.id).scalar_subquery()
    return subquery.label("traits")


def _traits_value(value: Any) -> list[str]:
    """The trait list ``_traits_column`` read: PostgreSQL's driver has parsed the JSON (NULL
    when the node has no trait), SQLite hands over its text (``[]`` when none)."""
    if value is None:
        return []
    if not isinstance(value, str):
        return list(value)
    if value == "[]":
        return []
    if "\\" in value:  # an escaped character: let the JSON parser read it
        return sorted(json.loads(value))
    # Without a backslash no string holds a quote, so the array splits at its '","'
    # exactly as the JSON parser would read it, five times faster (ten per node, per page).
    return sorted(value[2:-2].split('","'))


# What the matcher reads of a node (NodeInfo), for the snapshot and for the change log's reader.
INFO_COLUMNS = (
    Node.id,
    Node.uuid,
    Node.name,
    Node.resource_class,
    Node.provision_state,
    Node.power_state,
    Node.instance_uuid,
    Node.maintenance,
    Node.owner,
    Node.lessee,
)


def _info(row: Any, traits: Iterable[str]) -> NodeInfo:
    return NodeInfo(
        uuid=row.uuid,
        name=row.name,
        resource_class=row.resource_class,
        traits=frozenset(traits),
        provisioned=is_provisioned(row.provision_state, row.instance_uuid),
        maintenance=row.maintenance,
        provision_state=row.provision_state,
        power_state=row.power_state,
        instance_uuid=row.instance_uuid,
        owner=row.owner,
        lessee=row.lessee,
    )


def snapshot(connection: Connection) -> Snapshot:
    """Every node with its traits, read in one transaction (so all of one generation)."""
    generation = generations.read(connection, GENERATION)
    traits: dict[int, list[str]] = {}
    for node_id, trait in connection.execute(select(NodeTrait.node_id, NodeTrait.trait)):
        traits.setdefault(node_id, []).append(trait)
    rows = connection.execute(select(*INFO_COLUMNS).order_by(Node.id))
    nodes = tuple(_info(row, traits.get(row.id, ())) for row in rows)
    return Snapshot(nodes, generation)


@dataclass(frozen=True)
class NodeChanges:
    """What changed between two node generations: ``removed`` are the UUIDs of nodes deleted
    (or deleted and created again) since, ``nodes`` the current records of every other node
    created or changed since, in the snapshot's order (new nodes sort after every older one)."""

    since: int
    generation: int
    removed: frozenset[str]
    nodes: tuple[NodeInfo, ...]


def changes_since(connection: Connection, since: int, *, limit: int = 10_000) -> NodeChanges | None:
    """The nodes changed after generation ``since`` up to the current one, read in the caller's
    (consistent) transaction; None when the log cannot say (pruned or never written for some
    of those generations, a write too large to log, more than ``limit`` nodes changed)."""
    current = generations.read(connection, GENERATION)
    if since > current:
        return None
    if since == current:
        return NodeChanges(since, current, frozenset(), ())
    logged = connection.execute(
        select(func.count(func.distinct(NodeChange.generation))).where(
            NodeChange.generation > since, NodeChange.generation <= current
        )
    ).scalar_one()
    if logged != current - since:
        return None
    changed: set[str] = set()
    created: set[str] = set()
    for uuid, was_created in connection.execute(
        select(NodeChange.uuid, NodeChange.created).where(
            NodeChange.generation > since, NodeChange.generation <= current
        )
    ):
        if not uuid:
            continue
        changed.add(uuid)
        if was_created:
            created.add(uuid)
        if uuid == EVERYTHING or len(changed) > limit:
            return None
    rows: list[Any] = []
    wanted = sorted(changed)
    for chunk in batches(wanted):
        rows += connection.execute(select(*INFO_COLUMNS).where(Node.uuid.in_(chunk)))
    rows.sort(key=lambda row: row.id)
    traits = traits_of(connection, [row.id for row in rows])
    found = {row.uuid for row in rows}
    return NodeChanges(
        since,
        current,
        frozenset(created | (changed - found)),
        tuple(_info(row, traits[row.id]) for row in rows),
    )


def log_changes(
    connection: Connection,
    uuids: Iterable[str] = (),
    *,
    created: Iterable[str] = (),
    everything: bool = False,
) -> int:
    """Bump the node generation and log which nodes it changed (``created``: new nodes, which
    may reuse the UUID of a node deleted earlier; ``everything``: more than the log keeps,
    whatever the lists hold); prune the log's old generations every PRUNE_EVERY."""
    value = bump(connection, GENERATION)
    new = set(created)
    others = set(uuids) - new
    if everything or len(new) + len(others) > LOG_LIMIT:
        rows = [{"generation": value, "uuid": EVERYTHING, "created": False}]
    else:
        rows = [{"generation": value, "uuid": u, "created": False} for u in sorted(others)]
        rows += [{"generation": value, "uuid": u, "created": True} for u in sorted(new)]
    if not rows:  # every generation has a row, so a reader can tell a pruned log from a quiet one
        rows = [{"generation": value, "uuid": "", "created": False}]
    _LOG.run_many(connection, rows)
    if value % PRUNE_EVERY == 0:
        _PRUNE.run(connection, {"oldest": value - LOG_KEEP})
    return value


# What a trait write reads of its node (by uuid or name, locked or not), run on the driver.
_KEY_FINDERS = {
    (key, lock): Prepared(
        (lambda s: s.with_for_update() if lock else s)(
            select(*_columns(KEY_COLUMNS)).where(getattr(Node, key) == bindparam("ident"))
        )
    )
    for key in ("uuid", "name")
    for lock in (False, True)
}

# The statements every node write runs, made once (see _finder); the hot ones run on the
# driver (sql.Prepared).
_ONE_NODES_TRAITS = (
    select(NodeTrait.trait)
    .where(NodeTrait.node_id == bindparam("node_id"))
    .order_by(NodeTrait.trait)
)
_LOG = Prepared(insert(NodeChange), column_keys=("generation", "uuid", "created"))
_PRUNE = Prepared(delete(NodeChange).where(NodeChange.generation <= bindparam("oldest")))
_TOUCH = Prepared(
    update(Node)
    .where(Node.id == bindparam("node_id"))
    .values(updated_at=bindparam("stamp", type_=Node.__table__.c.updated_at.type))
)
_CLEAR_TRAITS = Prepared(delete(NodeTrait).where(NodeTrait.node_id == bindparam("node_id")))
_ADD_TRAITS = Prepared(insert(NodeTrait), column_keys=("node_id", "trait"))
_NODES_TRAITS = Prepared(select(NodeTrait.trait).where(NodeTrait.node_id == bindparam("node_id")))
_REMOVE_TRAIT = Prepared(
    delete(NodeTrait).where(
        NodeTrait.node_id == bindparam("node_id"), NodeTrait.trait == bindparam("trait")
    )
)


def generation(connection: Connection) -> int:
    """The node generation: it changes with every committed node or trait write."""
    return generations.read(connection, GENERATION)


def count(engine: Engine) -> int:
    """How many nodes the store holds (one query: what a readiness reason names)."""
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(Node)).scalar_one())


def committed_generation(engine: Engine) -> int:
    """The node generation as last committed, read outside any transaction: the cheap check
    a cache of the nodes makes on every request."""
    return generations.read_now(engine, GENERATION)


def inspection(connection: Connection, node: dict[str, Any]) -> dict[str, Any] | None:
    """The last inspection stored for ``node``: its data, result and time; None if none."""
    return fetch_one(
        connection,
        select(NodeInspection.data, NodeInspection.result, NodeInspection.created_at).where(
            NodeInspection.node_id == node["id"]
        ),
    )


# -- writing ----------------------------------------------------------------------------------


# Ironic's data fields a create may set, and what a node has when it sets none.
DATA_DEFAULTS: dict[str, Any] = {
    "owner": None,
    "lessee": None,
    "conductor_group": "",
    "chassis_uuid": None,
    "instance_name": None,
    "automated_clean": None,
    "protected": False,
    "protected_reason": None,
    "retired": False,
    "retired_reason": None,
    "disable_power_off": False,
    "boot_mode": None,
    "secure_boot": None,
    "shard": None,
    "parent_node": None,
    **{f"{name}_interface": None for name in INTERFACES},
}


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
        "network_data": values.get("network_data") or {},
        "created_at": stamp,
    } | {name: values.get(name, default) for name, default in DATA_DEFAULTS.items()}
    try:
        with unique(connection):
            node_id = connection.execute(insert(Node).values(**row).returning(Node.id)).scalar_one()
    except Duplicate:
        raise _duplicate(connection, row) from None
    traits = values.get("traits") or []
    if traits:
        connection.execute(insert(NodeTrait), [{"node_id": node_id, "trait": t} for t in traits])
    log_changes(connection, created=[row["uuid"]])
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
        with unique(connection):
            connection.execute(update(Node).where(Node.id == node["id"]).values(**changes))
    except Duplicate:
        raise Conflict(f"A node with name {changes.get('name')} already exists.") from None
    log_changes(connection, [node["uuid"]])
    return {**node, **changes}


def remove(connection: Connection, node: dict[str, Any]) -> None:
    """Delete the node and its traits (nodes/service.py says whether it may go)."""
    connection.execute(delete(NodeTrait).where(NodeTrait.node_id == node["id"]))
    connection.execute(delete(Node).where(Node.id == node["id"]))
    log_changes(connection, [node["uuid"]])


def _touch(connection: Connection, node: dict[str, Any]) -> None:
    _TOUCH.run(connection, {"node_id": node["id"], "stamp": now()})
    log_changes(connection, [node["uuid"]])


def set_traits(connection: Connection, node: dict[str, Any], traits: Iterable[str]) -> list[str]:
    """Replace the node's traits with ``traits``: only the traits that go are deleted and only
    the new ones inserted (deleting every row and inserting them all again rewrote about three
    times the index pages, as many for a trait kept as for one changed)."""
    wanted = list(dict.fromkeys(traits))
    node_id = node["id"]
    current = set(_NODES_TRAITS.column(connection, {"node_id": node_id}))
    gone = current.difference(wanted)
    if gone:
        _REMOVE_TRAIT.run_many(connection, [{"node_id": node_id, "trait": t} for t in gone])
    added = [t for t in wanted if t not in current]
    if added:
        _ADD_TRAITS.run_many(connection, [{"node_id": node_id, "trait": t} for t in added])
    _touch(connection, node)
    return wanted


def add_trait(connection: Connection, node: dict[str, Any], trait: str) -> None:
    """Add a trait the node does not have."""
    _ADD_TRAITS.run_many(connection, [{"node_id": node["id"], "trait": trait}])
    _touch(connection, node)


def remove_trait(connection: Connection, node: dict[str, Any], trait: str) -> None:
    if _REMOVE_TRAIT.run(connection, {"node_id": node["id"], "trait": trait}) == 0:
        raise NotFound(f"Node {node['uuid']} doesn't have a trait '{trait}'")
    _touch(connection, node)


def remove_all_traits(connection: Connection, node: dict[str, Any]) -> None:
    _CLEAR_TRAITS.run(connection, {"node_id": node["id"]})
    _touch(connection, node)


def record_inspection(
    connection: Connection, node: dict[str, Any], data: Any, result: dict[str, Any]
) -> None:
    """Keep ``data`` and what classifying it decided as the node's last inspection (no
    generation bump: the matcher does not read inspections)."""
    connection.execute(delete(NodeInspection).where(NodeInspection.node_id == node["id"]))
    connection.execute(
        insert(NodeInspection).values(
            node_id=node["id"], data=data, result=result, created_at=now()
        )
    )
