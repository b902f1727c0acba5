"""The node store's side of mirroring a real Ironic: diff a full read of Ironic's nodes
against the stored ones and write only the difference (the refresh loop is sync/mirror.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from flavorsmith.db.models import Node, NodeInspection, NodeTrait
from flavorsmith.ironic import mirror as mirroring
from flavorsmith.ironic.mirror import MirroredNode
from flavorsmith.store.node_bulk import batches, update_many
from flavorsmith.store.nodes import DATA_DEFAULTS, log_changes, now


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
    for chunk in batches([row.id for row in gone]):
        connection.execute(delete(NodeTrait).where(NodeTrait.node_id.in_(chunk)))
        connection.execute(delete(NodeInspection).where(NodeInspection.node_id.in_(chunk)))
        connection.execute(delete(Node).where(Node.id.in_(chunk)))
    # Names move between nodes (a swap, or a name freed by a node renamed in the same refresh):
    # the renamed nodes let go of theirs first, so no order of updates collides.
    for chunk in batches(renamed):
        connection.execute(update(Node).where(Node.id.in_(chunk)).values(name=None))
    update_many(connection, changes, stamp)
    rows = [_mirrored_row(node, stamp) for node in new]
    for chunk in batches(rows):
        connection.execute(insert(Node), list(chunk))
    for chunk in batches(report.created):
        found = connection.execute(select(Node.uuid, Node.id).where(Node.uuid.in_(chunk)))
        by_uuid: dict[str, int] = {str(uuid): int(node_id) for uuid, node_id in found}
        new_traits += [(by_uuid[n.uuid], n.traits) for n in new if n.uuid in by_uuid and n.traits]
    _replace_traits(connection, new_traits)
    log_changes(connection, report.updated + report.deleted, created=report.created)
    return report


def _replace_traits(
    connection: Connection, new_traits: Sequence[tuple[int, frozenset[str]]]
) -> None:
    for chunk in batches([node_id for node_id, _ in new_traits]):
        connection.execute(delete(NodeTrait).where(NodeTrait.node_id.in_(chunk)))
    rows = [
        {"node_id": node_id, "trait": trait}
        for node_id, traits in new_traits
        for trait in sorted(traits)
    ]
    for chunk in batches(rows):
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
