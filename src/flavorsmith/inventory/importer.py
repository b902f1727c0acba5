"""Importing an inventory file: validated entry by entry, then applied idempotently in bulk."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from flavorsmith.catalog.document import Document
from flavorsmith.db.models import Node, NodeTrait
from flavorsmith.diagnostics import Diagnostic
from flavorsmith.errors import Invalid
from flavorsmith.ironic import nodes as rules
from flavorsmith.store.generations import bump
from flavorsmith.store.nodes import GENERATION, now

FIELDS = (
    "name",
    "uuid",
    "driver",
    "resource_class",
    "traits",
    "properties",
    "driver_info",
    "extra",
    "description",
    "provision_state",
    "maintenance",
)
# The stored columns an entry sets (traits live in their own table).
COLUMNS = tuple(f for f in FIELDS if f not in ("traits", "uuid", "name"))
BATCH = 5000


@dataclass(frozen=True)
class NodeSpec:
    name: str
    uuid: str | None
    values: dict[str, Any]
    traits: tuple[str, ...]


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


Problem = tuple[list[str | int], str, bool]  # where, what, whether it points at the key


def parse(data: Any) -> tuple[list[NodeSpec], list[Problem]]:
    """Entries from ``[...]`` or ``{nodes: [...]}``; problems say where, for diagnostics."""
    prefix: list[str | int] = []
    if isinstance(data, dict) and set(data) == {"nodes"}:
        data, prefix = data["nodes"], ["nodes"]
    if not isinstance(data, list):
        return [], [([], "expected a list of nodes (or a mapping with 'nodes')", False)]
    specs: list[NodeSpec] = []
    problems: list[Problem] = []
    first: dict[str, int] = {}
    for index, entry in enumerate(data):
        at = [*prefix, index]
        try:
            spec = _spec(entry)
        except _EntryError as exc:
            problems.append(([*at, *exc.path], exc.message, exc.at_key))
            continue
        if spec.name in first:
            problems.append(
                (
                    [*at, "name"],
                    f"{spec.name!r} is listed twice (first as entry {first[spec.name]})",
                    False,
                )
            )
            continue
        first[spec.name] = index
        specs.append(spec)
    return specs, problems


def diagnostics(doc: Document, problems: list[Problem]) -> list[Diagnostic]:
    return [doc.diagnostic(path, message, at_key=at_key) for path, message, at_key in problems]


class _EntryError(Exception):
    def __init__(self, path: list[str | int], message: str, *, at_key: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.at_key = at_key


def _spec(entry: Any) -> NodeSpec:
    if not isinstance(entry, dict):
        raise _EntryError([], "each node is a mapping with at least a name")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise _EntryError(
            [unknown[0]], f"unknown key {unknown[0]!r}; allowed: {', '.join(FIELDS)}", at_key=True
        )
    name = entry.get("name")
    if name is None:
        raise _EntryError([], "every node needs a name (the import matches nodes by name)")
    values = {
        "driver": entry.get("driver", "fake-hardware"),
        "resource_class": entry.get("resource_class"),
        "properties": entry.get("properties", {}),
        "driver_info": entry.get("driver_info", {}),
        "extra": entry.get("extra", {}),
        "description": entry.get("description"),
        "provision_state": entry.get("provision_state", "available"),
        "maintenance": entry.get("maintenance", False),
    }
    checks: list[tuple[str, Any]] = [
        ("name", lambda: rules.check_name(name)),
        ("driver", lambda: rules.check_driver(values["driver"])),
        ("resource_class", lambda: rules.check_resource_class(values["resource_class"])),
        ("properties", lambda: rules.check_mapping("properties", values["properties"])),
        ("driver_info", lambda: rules.check_mapping("driver_info", values["driver_info"])),
        ("extra", lambda: rules.check_mapping("extra", values["extra"])),
    ]
    for key, check in checks:
        try:
            check()
        except Invalid as exc:
            raise _EntryError([key], exc.message) from None
    if values["provision_state"] not in rules.PROVISION_STATES:
        raise _EntryError(
            ["provision_state"],
            f"unknown provision state {values['provision_state']!r}; "
            f"allowed: {', '.join(rules.PROVISION_STATES)}",
        )
    if not isinstance(values["maintenance"], bool):
        raise _EntryError(["maintenance"], "must be true or false")
    node_uuid = entry.get("uuid")
    if node_uuid is not None and not (isinstance(node_uuid, str) and rules.is_uuid(node_uuid)):
        raise _EntryError(["uuid"], f"invalid UUID {node_uuid!r}")
    raw_traits = entry.get("traits", [])
    if not isinstance(raw_traits, list):
        raise _EntryError(["traits"], "must be a list of trait names")
    for position, trait in enumerate(raw_traits):
        try:
            rules.check_trait(trait)
        except Invalid as exc:
            raise _EntryError(["traits", position], exc.message) from None
    traits = tuple(dict.fromkeys(raw_traits))
    try:
        rules.check_trait_count(str(name), traits)
    except Invalid as exc:
        raise _EntryError(["traits"], exc.message) from None
    try:
        checked = rules.checked_node({**values, "name": name, "uuid": node_uuid})
    except rules.FieldInvalid as exc:
        raise _EntryError([exc.field], exc.message) from None
    node_uuid = checked.pop("uuid")
    checked.pop("name")
    return NodeSpec(name=str(name), uuid=node_uuid, values=checked, traits=traits)


def apply(connection: Connection, specs: list[NodeSpec]) -> ImportReport:
    """Create missing nodes, update changed ones, leave the rest; one transaction."""
    report = ImportReport()
    existing = {
        row.name: row
        for row in connection.execute(
            select(Node.id, Node.name, Node.uuid, *(getattr(Node, c) for c in COLUMNS))
        )
        if row.name is not None
    }
    current_traits: dict[int, set[str]] = {}
    for node_id, trait in connection.execute(select(NodeTrait.node_id, NodeTrait.trait)):
        current_traits.setdefault(node_id, set()).add(trait)
    stamp = now()
    new_rows: list[dict[str, Any]] = []
    trait_changes: list[tuple[int, tuple[str, ...]]] = []
    for spec in specs:
        row = existing.get(spec.name)
        if row is None:
            new_rows.append(
                {"name": spec.name, "uuid": spec.uuid or str(uuid.uuid4()), "created_at": stamp}
                | spec.values
            )
            report.created.append(spec.name)
            continue
        changes = {c: spec.values[c] for c in COLUMNS if getattr(row, c) != spec.values[c]}
        traits_differ = current_traits.get(row.id, set()) != set(spec.traits)
        if changes:
            connection.execute(
                update(Node).where(Node.id == row.id).values(**changes, updated_at=stamp)
            )
        if traits_differ:
            trait_changes.append((row.id, spec.traits))
        if changes or traits_differ:
            report.updated.append(spec.name)
        else:
            report.unchanged.append(spec.name)
    for start in range(0, len(new_rows), BATCH):
        connection.execute(insert(Node), new_rows[start : start + BATCH])
    by_name = {spec.name: spec for spec in specs}
    for start in range(0, len(report.created), BATCH):
        chunk = report.created[start : start + BATCH]
        for name, node_id in connection.execute(
            select(Node.name, Node.id).where(Node.name.in_(chunk))
        ):
            spec = by_name[str(name)]
            if spec.traits:
                trait_changes.append((node_id, spec.traits))
    if trait_changes:
        changed_ids = [node_id for node_id, _ in trait_changes]
        for start in range(0, len(changed_ids), BATCH):
            connection.execute(
                delete(NodeTrait).where(NodeTrait.node_id.in_(changed_ids[start : start + BATCH]))
            )
        rows = [
            {"node_id": node_id, "trait": t} for node_id, traits in trait_changes for t in traits
        ]
        for start in range(0, len(rows), BATCH):
            connection.execute(insert(NodeTrait), rows[start : start + BATCH])
    if report.created or report.updated:
        bump(connection, GENERATION)
    return report
