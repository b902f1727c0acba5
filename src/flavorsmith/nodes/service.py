"""Every write of a node goes through here: the Ironic-compatible API, the command line, node
imports and classifications (the Ironic mirror writes through its own store functions: it is
the one writer allowed while the nodes mirror a real Ironic). This module owns the rules a
node write follows, whoever makes it:

- while the nodes mirror a real Ironic, they are read-only: the mirror's state is read from
  the database (``store.background``, name ``mirror``), so a command line on the same
  database refuses exactly as every replica of the API does;
- Ironic's state rules: the resource class of a node that has one changes only in enroll,
  inspecting, inspect wait, manageable or available (a 409 in Ironic 39's words); a node that
  holds an instance or is provisioned is not deleted; at most 50 traits;
- what a classification changes on a node (``classify/update.py``), applied in one place.

Each function works in the caller's transaction; a refusal raises before anything is
written."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.classify.classification import Classification, classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.update import node_update
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Conflict
from flavorsmith.ironic import mirror as mirror_rules
from flavorsmith.ironic import nodes as rules
from flavorsmith.ironic.mirror import MirroredNode
from flavorsmith.store import background, node_import, node_mirror
from flavorsmith.store import nodes as store

Node = dict[str, Any]

# The background-state row that says the nodes mirror a real Ironic (sync/mirror.py keeps its
# refresh state in it).
MIRROR = "mirror"


# -- the source of the nodes -------------------------------------------------------------------


def mirrored_by(connection: Connection) -> str | None:
    """The refusal a node write answers while the nodes mirror a real Ironic (None when the
    database is their source)."""
    if not background.exists(connection, MIRROR):
        return None
    entry = background.load(connection, MIRROR)
    if entry is None or not entry.state.get("ironic"):
        return None
    label = str(entry.state["ironic"])
    interval = entry.state.get("interval_seconds")
    return mirror_rules.write_refusal(label, float(interval) if interval else None)


def check_writable(connection: Connection) -> None:
    """Refuse (409) a node write while the nodes mirror a real Ironic: the next refresh would
    undo it, so it is made there."""
    refusal = mirrored_by(connection)
    if refusal is not None:
        raise Conflict(refusal)


def mirror_from(connection: Connection, label: str, interval: float) -> None:
    """From now on the nodes mirror the Ironic ``label`` (``serve --ironic-*``, before its
    first refresh): node writes are refused. Another Ironic's state is replaced; this one's is
    kept (a restart keeps serving the last good mirror)."""
    entry = background.load(connection, MIRROR)
    state: dict[str, Any] = {}
    if entry is not None and entry.state.get("ironic") == label:
        state = dict(entry.state)
    state |= {"ironic": label, "interval_seconds": interval}
    background.save(connection, MIRROR, entry.holder if entry else "", store.now(), state)


def database_source(connection: Connection) -> None:
    """The database is the nodes' source again (``serve`` without ``--ironic-*``): node writes
    are allowed."""
    background.remove(connection, MIRROR)


def mirror(
    connection: Connection,
    observed: Sequence[MirroredNode],
    *,
    max_delete: float = mirror_rules.MAX_DELETE,
    apply: bool = True,
) -> node_mirror.MirrorReport:
    """One refresh of the mirror (``store.node_mirror.mirror``): the stored nodes become the
    ``observed`` whole of the real Ironic. The one writer the read-only state lets through, and
    not held to Ironic's state rules: Ironic applied them to what it answers."""
    return node_mirror.mirror(connection, observed, max_delete=max_delete, apply=apply)


# -- per-request writes -------------------------------------------------------------------------


def check_changes(node: Mapping[str, Any], changes: Mapping[str, Any]) -> None:
    """Ironic's state rules for ``changes`` to the stored ``node`` (409 in its words)."""
    if "resource_class" in changes and changes["resource_class"] != node["resource_class"]:
        refusal = rules.resource_class_refusal(
            node["uuid"], node["resource_class"], node["provision_state"]
        )
        if refusal is not None:
            raise Conflict(refusal)


def create(connection: Connection, values: dict[str, Any]) -> Node:
    check_writable(connection)
    return store.create(connection, values)


def update(connection: Connection, node: Node, changes: dict[str, Any]) -> Node:
    """Store ``changes`` to ``node`` (read with its lock): refused while mirrored, and where
    Ironic refuses them in the node's state."""
    check_writable(connection)
    check_changes(node, changes)
    return store.save(connection, node, changes)


def remove(connection: Connection, node: Node) -> None:
    check_writable(connection)
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
    store.remove(connection, node)


def set_traits(connection: Connection, node: Node, traits: Iterable[str]) -> list[str]:
    """Replace the node's traits (de-duplicated, in the order given); the traits set."""
    check_writable(connection)
    wanted = list(dict.fromkeys(traits))
    rules.check_trait_count(node["uuid"], wanted)
    store.set_traits(connection, node, wanted)
    return wanted


def add_trait(connection: Connection, node: Node, trait: str) -> None:
    check_writable(connection)
    current = store.traits_of(connection, [node["id"]])[node["id"]]
    if trait in current:
        return
    rules.check_trait_count(node["uuid"], [*current, trait])
    store.add_trait(connection, node, trait)


def remove_trait(connection: Connection, node: Node, trait: str) -> None:
    check_writable(connection)
    store.remove_trait(connection, node, trait)


def remove_all_traits(connection: Connection, node: Node) -> None:
    check_writable(connection)
    store.remove_all_traits(connection, node)


# -- classification ------------------------------------------------------------------------------


def classify_node(
    connection: Connection, node: Node, data: Any, catalog: Catalog, *, apply: bool
) -> tuple[Classification, dict[str, Any]]:
    """Classify inspection ``data`` for ``node`` (read with its lock); with ``apply``, keep it
    as the node's last inspection and update the node as ``classify/update.py`` decides: the
    traits the rules own, and the resource class when exactly one device type matched and
    Ironic allows the change in the node's state (else a 409 in Ironic's words, and nothing
    is written). The changes made: ``resource_class`` and ``traits`` (the whole new list)."""
    current = frozenset(store.traits_of(connection, [node["id"]])[node["id"]])
    result = classify(parse(data), catalog, current)
    changes: dict[str, Any] = {}
    if not apply:
        return result, changes
    check_writable(connection)
    decided = node_update(
        result, node["resource_class"], node=node["uuid"], provision_state=node["provision_state"]
    )
    if decided.refused is not None:
        raise Conflict(decided.refused)
    if decided.resource_class is not None:
        changes["resource_class"] = decided.resource_class
        node = store.save(connection, node, {"resource_class": decided.resource_class})
    if result.traits.result != current:
        traits = sorted(result.traits.result)
        set_traits(connection, node, traits)
        changes["traits"] = traits
    store.record_inspection(connection, node, data, result.as_dict())
    return result, changes


# -- imports ---------------------------------------------------------------------------------------


def start_import(connection: Connection, *, labels: bool = True) -> node_import.NodeImport:
    """A bulk import in the caller's transaction (``node_import.NodeImport``): refused while the
    nodes are mirrored, and each stored node it changes held to Ironic's state rules."""
    check_writable(connection)
    return node_import.NodeImport(connection, labels=labels, check=check_changes)


def import_nodes(
    connection: Connection,
    specs: Sequence[node_import.NodeSpec],
    progress: Callable[[int, int], None] | None = None,
) -> node_import.ImportReport:
    """Create missing nodes, update changed ones, leave the rest (``store.import_nodes``),
    held to the same rules as :func:`start_import`."""
    check_writable(connection)
    return node_import.import_nodes(connection, specs, progress, check=check_changes)
