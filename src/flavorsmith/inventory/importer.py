"""Importing an inventory file: each entry checked by the node rules the API uses
(:func:`flavorsmith.ironic.nodes.checked_node`), then stored idempotently in bulk by the node
store."""

from __future__ import annotations

from typing import Any

from flavorsmith.catalog.document import Document
from flavorsmith.db.engine import Connection
from flavorsmith.diagnostics import Diagnostic
from flavorsmith.errors import Invalid
from flavorsmith.ironic import nodes as rules
from flavorsmith.store import nodes as store
from flavorsmith.store.nodes import IMPORTED, ImportReport, NodeSpec

# The keys a node entry may have, in the order the error message lists them: name and uuid,
# then the stored columns (the store's list) with traits after the resource class.
FIELDS = ("name", "uuid", *IMPORTED[:2], "traits", *IMPORTED[2:])
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
    # The same field rules as the API's (a description that is not text, a mapping that is
    # not one, a value no database stores...), reported at the entry's key.
    try:
        rules.checked_node({**values, "name": name}, store.FIELD_LENGTHS)
    except rules.FieldInvalid as exc:
        raise _EntryError([exc.field], exc.message) from None
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
        checked = rules.checked_node(
            {**values, "name": name, "uuid": node_uuid}, store.FIELD_LENGTHS
        )
    except rules.FieldInvalid as exc:
        raise _EntryError([exc.field], exc.message) from None
    node_uuid = checked.pop("uuid")
    checked.pop("name")
    return NodeSpec(name=str(name), uuid=node_uuid, values=checked, traits=traits)


def store_nodes(connection: Connection, specs: list[NodeSpec]) -> ImportReport:
    """Create missing nodes, update changed ones, leave the rest; in the caller's transaction."""
    return store.import_nodes(connection, specs)


__all__ = ["FIELDS", "ImportReport", "NodeSpec", "Problem", "diagnostics", "parse", "store_nodes"]
