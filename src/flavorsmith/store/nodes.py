"""The node store: the only SQL on nodes, their traits and their inspections.

Every write is one transaction that also bumps the node generation, so caches (the matcher's
index) know they are stale, and logs which nodes it changed (NodeChange), so they can follow
without reading every node. Field rules live in :mod:`flavorsmith.ironic.nodes`; callers check
values there before they reach this module."""

from __future__ import annotations

import json
import uuid as uuidlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
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
from flavorsmith.ironic import mirror as mirroring
from flavorsmith.ironic import nodes as rules
from flavorsmith.ironic.mirror import MirroredNode
from flavorsmith.ironic.node_fields import INTERFACES
from flavorsmith.matching.snapshot import NodeInfo, Snapshot, is_provisioned
from flavorsmith.params import MAX_LIMIT
from flavorsmith.store import generations
from flavorsmith.store.generations import bump
from flavorsmith.store.plumbing import (
    Duplicate,
    Prepared,
    RowWriter,
    as_dict,
    fetch_all,
    fetch_one,
    keyset,
    unique,
)
from flavorsmith.store.plumbing import (
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
# SQLite's page cache during a large import (a negative cache_size is KiB).
LARGE_CACHE_KIB = -65536
# Rows per statement in bulk writes (within every database's parameter limit).
BATCH = 5000
# Nodes an import looks up and writes at a time (NodeImport.write): its memory, whatever the
# number of nodes.
IMPORT_BATCH = 2000


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
    if rules.is_uuid(ident):
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
    if not rules.is_uuid(ident):
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
    for chunk in _batches(wanted):
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


def _changed(
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
# driver (plumbing.Prepared).
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
    _changed(connection, created=[row["uuid"]])
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
    _changed(connection, [node["uuid"]])
    return {**node, **changes}


def remove(connection: Connection, node: dict[str, Any]) -> None:
    """Delete the node and its traits (nodes/service.py says whether it may go)."""
    connection.execute(delete(NodeTrait).where(NodeTrait.node_id == node["id"]))
    connection.execute(delete(Node).where(Node.id == node["id"]))
    _changed(connection, [node["uuid"]])


def _touch(connection: Connection, node: dict[str, Any]) -> None:
    _TOUCH.run(connection, {"node_id": node["id"], "stamp": now()})
    _changed(connection, [node["uuid"]])


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


# -- bulk import ------------------------------------------------------------------------------

# The stored columns an import entry may set (traits live in their own table; uuid and name
# identify the node). Importing another column is adding it here: the inventory format takes
# it as a key, and Ironic output (flavorsmith.ironic.records) stops ignoring it.
IMPORTED = (
    "driver",
    "resource_class",
    "properties",
    "driver_info",
    "extra",
    "description",
    "provision_state",
    "maintenance",
    "power_state",
    "instance_uuid",
    "owner",
    "lessee",
    "conductor_group",
    "retired",
    "retired_reason",
)
# What a new node gets for a column its entry does not set (other columns: NULL).
NEW_NODE: dict[str, Any] = {
    "driver": "fake-hardware",
    "properties": {},
    "driver_info": {},
    "extra": {},
    "provision_state": "available",
    "maintenance": False,
    "retired": False,
    "conductor_group": "",
}


# Every column of a node but its id, as an import's INSERT gives them.
_NEW_COLUMNS = tuple(c.name for c in COLUMNS if c.name != "id")


def _new_node_values(stamp: datetime) -> dict[str, Any]:
    """Every column of a node an import creates, before its entry's values: NEW_NODE's, the
    data fields' defaults, empty JSON objects, NULL."""
    return {
        **dict.fromkeys(_NEW_COLUMNS),
        **DATA_DEFAULTS,
        "instance_info": {},
        "network_data": {},
        **NEW_NODE,
        "created_at": stamp,
    }


@dataclass(frozen=True)
class NodeSpec:
    """One node of an import, already checked by the node rules. It matches the stored node
    with its UUID when it has one, else the one with its name. ``values`` are the columns to
    set (``name`` too when the entry gives one); columns not in it are left as stored (a new
    node gets NEW_NODE's); ``traits`` None leaves the stored traits."""

    name: str | None
    uuid: str | None
    values: dict[str, Any]
    traits: tuple[str, ...] | None

    @property
    def label(self) -> str:
        """How reports name the node: its name, else its UUID."""
        return self.name or self.uuid or "?"


@dataclass
class ImportReport:
    """How many nodes an import created, updated and left unchanged (``counts``), and their
    labels when asked for (the lists stay empty otherwise: a large import keeps no list)."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: {"created": 0, "updated": 0, "unchanged": 0}
    )


class NodeImport:
    """An import written batch by batch (:meth:`write`), in the caller's transaction, ended
    by :meth:`finish`: each batch looks up only its own nodes (by UUID, else by name), so
    memory stays the same whatever the number of nodes. Renames (and new nodes whose name a
    stored node still holds) are set last, all at once, so names may move or swap between
    nodes; a name that would belong to two nodes is a Conflict there (the caller's
    transaction then writes nothing)."""

    def __init__(
        self,
        connection: Connection,
        *,
        labels: bool = True,
        check: Callable[[Mapping[str, Any], Mapping[str, Any]], None] | None = None,
    ) -> None:
        """``check`` hears each stored node the import changes, with its changes, and may
        refuse them (by raising: the caller's transaction then writes nothing)."""
        self.connection = connection
        self.check = check
        self.report = ImportReport()
        self.labels = labels
        self.stamp = now()
        self.writer = RowWriter(connection, Node.__table__, _NEW_COLUMNS)
        self.template = self.writer.row(_new_node_values(self.stamp))
        self.trait_writer = RowWriter(connection, NodeTrait.__table__, ("node_id", "trait"))
        # Names set last: (node id, or None for a new node, its UUID, the name).
        self.names_last: list[tuple[int | None, str, str | None]] = []
        # The change log's UUIDs, up to LOG_LIMIT + 1 of them (more: the log says everything).
        self.logged_created: list[str] = []
        self.logged_changed: list[str] = []
        self.cache: AbstractContextManager[None] | None = _large_cache(connection, True)
        self.cache.__enter__()

    def _outcome(self, outcome: str, label: str) -> None:
        self.report.counts[outcome] += 1
        if self.labels:
            getattr(self.report, outcome).append(label)

    def _log(self, into: list[str], node_uuid: str) -> None:
        if len(self.logged_created) + len(self.logged_changed) <= LOG_LIMIT:
            into.append(node_uuid)

    def write(self, specs: Sequence[NodeSpec]) -> None:
        """Create, update or leave the nodes of one batch (IMPORT_BATCH specs or so)."""
        connection = self.connection
        wanted = (Node.id, Node.name, Node.uuid, *(getattr(Node, c) for c in IMPORTED))
        uuids = [spec.uuid for spec in specs if spec.uuid]
        names = [name for spec in specs if (name := spec.values.get("name", spec.name))]
        by_uuid = (
            {
                row.uuid: row
                for row in connection.execute(select(*wanted).where(Node.uuid.in_(uuids)))
            }
            if uuids
            else {}
        )
        by_name = (
            {
                row.name: row
                for row in connection.execute(select(*wanted).where(Node.name.in_(names)))
            }
            if names
            else {}
        )
        matched = [row.id for row in (*by_uuid.values(), *by_name.values())]
        current_traits: dict[int, set[str]] = {}
        if matched:
            found = connection.execute(
                select(NodeTrait.node_id, NodeTrait.trait).where(NodeTrait.node_id.in_(matched))
            )
            for node_id, trait in found:
                current_traits.setdefault(node_id, set()).add(trait)
        column_of = self.writer.index
        process = self.writer.processors
        name_at = column_of["name"]
        new_rows: list[list[Any]] = []
        new_traits: dict[str, tuple[str, ...]] = {}
        updates: list[tuple[int, dict[str, Any]]] = []
        trait_changes: list[tuple[int, tuple[str, ...]]] = []
        taken = set(by_name)  # names stored nodes hold, and this batch's new nodes
        for spec in specs:
            row = by_uuid.get(spec.uuid) if spec.uuid else by_name.get(spec.name)
            if row is None:
                node_uuid = spec.uuid or str(uuidlib.uuid4())
                new_row = self.template.copy()
                new_row[column_of["uuid"]] = node_uuid
                new_row[name_at] = spec.name
                for column, value in spec.values.items():
                    at = column_of[column]
                    convert = process[at]
                    new_row[at] = value if convert is None else convert(value)
                name = new_row[name_at]
                if name is not None and name in taken:  # another node has it still
                    new_row[name_at] = None
                    self.names_last.append((None, node_uuid, name))
                elif name is not None:
                    taken.add(name)
                new_rows.append(new_row)
                self._log(self.logged_created, node_uuid)
                if spec.traits:
                    new_traits[node_uuid] = spec.traits
                self._outcome("created", spec.label)
                continue
            changes = {c: v for c, v in spec.values.items() if getattr(row, c) != v}
            if changes and self.check is not None:
                self.check(dict(row._mapping), changes)
            traits_differ = spec.traits is not None and current_traits.get(row.id, set()) != set(
                spec.traits
            )
            if "name" in changes:
                self.names_last.append((row.id, row.uuid, changes.pop("name")))
                renamed = True
            else:
                renamed = False
            if changes:
                updates.append((row.id, changes))
            if traits_differ and spec.traits is not None:
                trait_changes.append((row.id, spec.traits))
            if changes or traits_differ or renamed:
                self._outcome("updated", spec.label)
                self._log(self.logged_changed, row.uuid)
            else:
                self._outcome("unchanged", spec.label)
        _update_many(connection, updates, self.stamp)
        self.writer.insert(new_rows)
        if trait_changes:
            changed_ids = [node_id for node_id, _ in trait_changes]
            connection.execute(delete(NodeTrait).where(NodeTrait.node_id.in_(changed_ids)))
        if new_traits:
            found = connection.execute(
                select(Node.uuid, Node.id).where(Node.uuid.in_(list(new_traits)))
            )
            ids = {str(node_uuid): int(node_id) for node_uuid, node_id in found}
            trait_changes += [(ids[node_uuid], traits) for node_uuid, traits in new_traits.items()]
        if trait_changes:
            self.trait_writer.insert(
                [(node_id, t) for node_id, traits in trait_changes for t in traits]
            )

    def finish(self) -> ImportReport:
        """Set the names left for last (Conflict when one would belong to two nodes), bump
        the node generation when anything changed; the report."""
        try:
            self._set_names()
            counts = self.report.counts
            if counts["created"] or counts["updated"]:
                _changed(
                    self.connection,
                    self.logged_changed,
                    created=self.logged_created,
                    everything=len(self.logged_created) + len(self.logged_changed) > LOG_LIMIT,
                )
        finally:
            self.close()
        return self.report

    def close(self) -> None:
        """Put SQLite's page cache back as it was (finish does; call it when not finishing)."""
        if self.cache is not None:
            cache, self.cache = self.cache, None
            cache.__exit__(None, None, None)

    def _set_names(self) -> None:
        if not self.names_last:
            return
        connection = self.connection
        new = [node_uuid for node_id, node_uuid, _ in self.names_last if node_id is None]
        ids: dict[str, int] = {}
        for chunk in _batches(new):
            found = connection.execute(select(Node.uuid, Node.id).where(Node.uuid.in_(chunk)))
            ids.update((str(node_uuid), int(node_id)) for node_uuid, node_id in found)
        final = [
            (node_id if node_id is not None else ids[node_uuid], node_uuid, name)
            for node_id, node_uuid, name in self.names_last
        ]
        moving = {node_id for node_id, _, _ in final}
        owner: dict[str, tuple[int, str]] = {}
        for node_id, node_uuid, name in final:
            if name is None:
                continue
            if name in owner:
                raise _name_conflict(name, owner[name], (node_id, node_uuid))
            owner[name] = (node_id, node_uuid)
        for chunk in _batches(list(owner)):
            held = connection.execute(
                select(Node.id, Node.uuid, Node.name).where(Node.name.in_(chunk))
            )
            for node_id, node_uuid, name in held:
                if node_id not in moving:
                    raise _name_conflict(str(name), (node_id, node_uuid), owner[str(name)])
        for chunk in _batches(sorted(moving)):  # names may swap: clear them all first
            connection.execute(update(Node).where(Node.id.in_(chunk)).values(name=None))
        renamed = [
            {"node_id": node_id, "new_name": name}
            for node_id, node_uuid, name in final
            if name is not None and node_uuid not in ids
        ]
        statement = (
            update(Node)
            .where(Node.id == bindparam("node_id"))
            .values(name=bindparam("new_name"), updated_at=self.stamp)
        )
        for chunk in _batches(renamed):
            connection.execute(statement, list(chunk))
        named = [
            {"node_id": node_id, "new_name": name}
            for node_id, node_uuid, name in final
            if name is not None and node_uuid in ids
        ]
        statement = (
            update(Node).where(Node.id == bindparam("node_id")).values(name=bindparam("new_name"))
        )
        for chunk in _batches(named):
            connection.execute(statement, list(chunk))


def _name_conflict(name: str, one: tuple[int, str], other: tuple[int, str]) -> Conflict:
    """The two nodes named in the order the store holds them (a new node after every stored
    one)."""
    first, second = sorted((one, other))
    return Conflict(
        f"the name {name!r} would belong to two nodes, {first[1]} and {second[1]} "
        "(the import matches a node by UUID when the entry has one, else by name)"
    )


def import_nodes(
    connection: Connection,
    specs: Sequence[NodeSpec],
    progress: Callable[[int, int], None] | None = None,
    *,
    check: Callable[[Mapping[str, Any], Mapping[str, Any]], None] | None = None,
) -> ImportReport:
    """Create missing nodes, update changed ones, leave the rest; in the caller's transaction,
    in batches (:class:`NodeImport`, which ``check`` is given), with one generation bump when
    anything changed. Conflict (nothing written, once the caller's transaction is rolled back)
    when two nodes would end up with one name. ``progress`` hears (nodes done, nodes in
    all)."""
    run = NodeImport(connection, check=check)
    try:
        for start in range(0, len(specs), IMPORT_BATCH):
            chunk = specs[start : start + IMPORT_BATCH]
            run.write(chunk)
            if progress is not None:
                progress(start + len(chunk), len(specs))
    except BaseException:
        run.close()
        raise
    return run.finish()


# -- mirroring a real Ironic -------------------------------------------------------------------


@dataclass
class MirrorReport:
    """What one refresh changed, by node UUID; ``refused`` says why it changed nothing."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    refused: str | None = None

    @property
    def writes(self) -> int:
        """Nodes written (created, updated or deleted): 0 for a refresh that found no change."""
        return len(self.created) + len(self.updated) + len(self.deleted)


def _batches(items: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), BATCH):
        yield items[start : start + BATCH]


def mirror(
    connection: Connection,
    nodes: Sequence[MirroredNode],
    *,
    max_delete: float = mirroring.MAX_DELETE,
    apply: bool = True,
) -> MirrorReport:
    """Make the stored nodes equal to ``nodes`` (the whole of a real Ironic), keyed by UUID:
    create the missing, update the changed (fields and traits), delete the stored nodes Ironic
    no longer has; in the caller's transaction, in batches, with one generation bump when
    anything changed and no write at all when nothing did. A refresh that would delete more
    than ``max_delete`` of the stored nodes writes nothing and says why (``refused``). With
    ``apply`` false, only the report: what a refresh would do, nothing written."""
    columns = mirroring.COLUMNS
    stored = {
        row.uuid: row
        for row in connection.execute(
            select(Node.id, Node.uuid, *(getattr(Node, c) for c in columns))
        )
    }
    current_traits: dict[int, set[str]] = {}
    for node_id, trait in connection.execute(select(NodeTrait.node_id, NodeTrait.trait)):
        current_traits.setdefault(node_id, set()).add(trait)
    wanted = {node.uuid for node in nodes}
    gone = [row for uuid, row in stored.items() if uuid not in wanted]
    report = MirrorReport()
    report.refused = mirroring.delete_refusal(len(stored), len(gone), max_delete)
    if report.refused is not None:
        return report
    new: list[MirroredNode] = []
    changes: list[tuple[int, dict[str, Any]]] = []
    new_traits: list[tuple[int, frozenset[str]]] = []
    renamed: list[int] = []
    for node in nodes:
        row = stored.get(node.uuid)
        if row is None:
            new.append(node)
            continue
        changed = {c: node.values[c] for c in columns if getattr(row, c) != node.values[c]}
        if changed:
            changes.append((row.id, changed))
            if "name" in changed:
                renamed.append(row.id)
        if current_traits.get(row.id, set()) != node.traits:
            new_traits.append((row.id, node.traits))
        if changed or current_traits.get(row.id, set()) != node.traits:
            report.updated.append(node.uuid)
        else:
            report.unchanged += 1
    report.created = [node.uuid for node in new]
    report.deleted = [row.uuid for row in gone]
    if not report.writes or not apply:
        return report
    stamp = now()
    for chunk in _batches([row.id for row in gone]):
        connection.execute(delete(NodeTrait).where(NodeTrait.node_id.in_(chunk)))
        connection.execute(delete(NodeInspection).where(NodeInspection.node_id.in_(chunk)))
        connection.execute(delete(Node).where(Node.id.in_(chunk)))
    # Names move between nodes (a swap, or a name freed by a node renamed in the same refresh):
    # the renamed nodes let go of theirs first, so no order of updates collides.
    for chunk in _batches(renamed):
        connection.execute(update(Node).where(Node.id.in_(chunk)).values(name=None))
    _update_many(connection, changes, stamp)
    rows = [_mirrored_row(node, stamp) for node in new]
    for chunk in _batches(rows):
        connection.execute(insert(Node), list(chunk))
    for chunk in _batches(report.created):
        found = connection.execute(select(Node.uuid, Node.id).where(Node.uuid.in_(chunk)))
        by_uuid: dict[str, int] = {str(uuid): int(node_id) for uuid, node_id in found}
        new_traits += [(by_uuid[n.uuid], n.traits) for n in new if n.uuid in by_uuid and n.traits]
    _replace_traits(connection, new_traits)
    _changed(connection, report.updated + report.deleted, created=report.created)
    return report


def _update_many(
    connection: Connection,
    changes: Sequence[tuple[int, dict[str, Any]]],
    stamp: datetime,
    wrote: Callable[[int], None] | None = None,
) -> None:
    """One executemany per set of changed columns (a fleet-wide power state change is one
    statement, not one per node); ``wrote`` hears how many nodes each statement updated."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for node_id, changed in changes:
        groups.setdefault(tuple(sorted(changed)), []).append(
            {"node_id": node_id, **{f"new_{name}": value for name, value in changed.items()}}
        )
    for names, params in groups.items():
        statement = (
            update(Node)
            .where(Node.id == bindparam("node_id"))
            .values({**{name: bindparam(f"new_{name}") for name in names}, "updated_at": stamp})
        )
        for chunk in _batches(params):
            connection.execute(statement, list(chunk))
            if wrote is not None:
                wrote(len(chunk))


def _replace_traits(
    connection: Connection, new_traits: Sequence[tuple[int, frozenset[str]]]
) -> None:
    for chunk in _batches([node_id for node_id, _ in new_traits]):
        connection.execute(delete(NodeTrait).where(NodeTrait.node_id.in_(chunk)))
    rows = [
        {"node_id": node_id, "trait": trait}
        for node_id, traits in new_traits
        for trait in sorted(traits)
    ]
    for chunk in _batches(rows):
        connection.execute(insert(NodeTrait), list(chunk))


def _mirrored_row(node: MirroredNode, stamp: datetime) -> dict[str, Any]:
    return {
        **DATA_DEFAULTS,
        "uuid": node.uuid,
        "instance_info": {},
        "driver_info": {},
        "extra": {},
        "network_data": {},
        "created_at": stamp,
        **node.values,
    }


@contextmanager
def _large_cache(connection: Connection, wanted: bool) -> Iterator[None]:
    """SQLite keeps up to 64 MiB of pages in memory while tens of thousands of rows go into
    the node table's many indexes (a third faster than its default 2 MiB); as it was after."""
    if not wanted or connection.dialect.name != "sqlite":
        yield
        return
    before = connection.exec_driver_sql("PRAGMA cache_size").scalar()
    connection.exec_driver_sql(f"PRAGMA cache_size={LARGE_CACHE_KIB}")
    try:
        yield
    finally:
        connection.exec_driver_sql(f"PRAGMA cache_size={int(before or -2000)}")


def _check_names(names: dict[str, str | None]) -> None:
    """Conflict when two nodes (by UUID) would have one name after an import."""
    owner: dict[str, str] = {}
    for node_uuid, name in names.items():
        if name is None:
            continue
        if name in owner:
            raise Conflict(
                f"the name {name!r} would belong to two nodes, {owner[name]} and {node_uuid} "
                "(the import matches a node by UUID when the entry has one, else by name)"
            )
        owner[name] = node_uuid


__all__ = [
    "DATA_DEFAULTS",
    "FIELD_LENGTHS",
    "GENERATION",
    "IMPORTED",
    "IMPORT_BATCH",
    "INTERFACES",
    "KEY_COLUMNS",
    "NEW_NODE",
    "SORT_KEYS",
    "ImportReport",
    "MirrorReport",
    "NodeChanges",
    "NodeImport",
    "NodeQuery",
    "NodeSpec",
    "as_dict",
    "changes_since",
    "create",
    "find",
    "generation",
    "import_nodes",
    "list_nodes",
    "mirror",
    "record_inspection",
    "remove",
    "save",
    "set_traits",
    "snapshot",
    "traits_of",
]
