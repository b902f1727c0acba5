"""An in-memory snapshot of the nodes the matcher works on (no database in here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from flavorsmith.ironic.nodes import PROVISIONED_STATES
from flavorsmith.resource_classes import placement_name


@dataclass(frozen=True)
class NodeInfo:
    uuid: str
    name: str | None
    resource_class: str | None
    traits: frozenset[str]
    provisioned: bool = False
    maintenance: bool = False

    @cached_property
    def placement_class(self) -> str | None:
        """What Nova's ironic driver reports for this node (None: no resource class)."""
        return placement_name(self.resource_class) if self.resource_class else None

    @property
    def available(self) -> bool:
        return not self.provisioned and not self.maintenance

    @property
    def label(self) -> str:
        return self.name or self.uuid


@dataclass(frozen=True)
class Snapshot:
    nodes: tuple[NodeInfo, ...] = ()
    generation: int = 0
    positions: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        lookup = self.positions
        if lookup:  # given by the caller, already filled (Index.updated keeps it current)
            return
        for position, node in enumerate(self.nodes):
            lookup[node.uuid] = position
            if node.name is not None:
                lookup.setdefault(node.name, position)

    def find(self, ident: str) -> int | None:
        """A node's position by UUID or name."""
        return self.positions.get(ident)


def is_provisioned(provision_state: str | None, instance_uuid: str | None) -> bool:
    """A node that holds (or is getting) an instance: it is not available to schedule on."""
    return provision_state in PROVISIONED_STATES or instance_uuid is not None


def from_records(records: Iterable[Mapping[str, Any]], generation: int = 0) -> Snapshot:
    """A snapshot of nodes as Ironic's API shows them (``uuid``, ``name``, ``resource_class``,
    ``traits``, ``provision_state``, ``instance_uuid``, ``maintenance``), in the given order."""
    return Snapshot(
        tuple(
            NodeInfo(
                uuid=str(record["uuid"]),
                name=record.get("name"),
                resource_class=record.get("resource_class"),
                traits=frozenset(record.get("traits") or ()),
                provisioned=is_provisioned(
                    record.get("provision_state"), record.get("instance_uuid")
                ),
                maintenance=bool(record.get("maintenance")),
            )
            for record in records
        ),
        generation,
    )
