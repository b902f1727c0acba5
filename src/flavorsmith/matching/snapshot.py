"""An in-memory snapshot of the nodes the matcher works on (no database in here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

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
        for position, node in enumerate(self.nodes):
            lookup[node.uuid] = position
            if node.name is not None:
                lookup.setdefault(node.name, position)

    def find(self, ident: str) -> int | None:
        """A node's position by UUID or name."""
        return self.positions.get(ident)
