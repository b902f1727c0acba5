"""The node store's bulk import: create missing nodes, update changed ones, leave the rest, in
batches in the caller's transaction (``node import`` and the inventory files; the rules a node
is held to are nodes/service.py's)."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select, update

from flavorsmith.db.models import Node, NodeTrait
from flavorsmith.errors import Conflict
from flavorsmith.store.node_bulk import batches, large_cache, update_many
from flavorsmith.store.nodes import COLUMNS, DATA_DEFAULTS, LOG_LIMIT, log_changes, now
from flavorsmith.store.sql import RowWriter

# Nodes an import looks up and writes at a time (NodeImport.write): its memory, whatever the
# number of nodes.
IMPORT_BATCH = 2000

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
        self.cache: AbstractContextManager[None] | None = large_cache(connection, True)
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
        update_many(connection, updates, self.stamp)
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
                log_changes(
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
        for chunk in batches(new):
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
        for chunk in batches(list(owner)):
            held = connection.execute(
                select(Node.id, Node.uuid, Node.name).where(Node.name.in_(chunk))
            )
            for node_id, node_uuid, name in held:
                if node_id not in moving:
                    raise _name_conflict(str(name), (node_id, node_uuid), owner[str(name)])
        for chunk in batches(sorted(moving)):  # names may swap: clear them all first
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
        for chunk in batches(renamed):
            connection.execute(statement, list(chunk))
        named = [
            {"node_id": node_id, "new_name": name}
            for node_id, node_uuid, name in final
            if name is not None and node_uuid in ids
        ]
        statement = (
            update(Node).where(Node.id == bindparam("node_id")).values(name=bindparam("new_name"))
        )
        for chunk in batches(named):
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
