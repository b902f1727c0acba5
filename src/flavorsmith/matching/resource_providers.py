"""Placement's resource providers as Flavorsmith reads them from a real Placement: what a
provider holds (inventory per resource class), what is allocated from it (usages) and its
traits, and its answer to an allocation candidates query. Pure data and Placement's capacity
rule; the reading is in ``clients/placement``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Inventory:
    """One resource class's inventory on a provider, with Placement's field names."""

    total: int
    reserved: int = 0
    max_unit: int = 1
    min_unit: int = 1
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self) -> int:
        """What may be allocated in all: ``(total - reserved) * allocation_ratio``."""
        return int((self.total - self.reserved) * self.allocation_ratio)

    def fits(self, amount: int, used: int = 0) -> bool:
        """Placement's check for one request of ``amount`` with ``used`` already allocated:
        within min/max unit, a multiple of the step, and within the capacity left."""
        return (
            self.min_unit <= amount <= self.max_unit
            and amount % self.step_size == 0
            and used + amount <= self.capacity
        )


@dataclass(frozen=True, slots=True)
class Provider:
    """A resource provider: for a bare-metal node, the root provider Nova's ironic driver
    makes (its uuid and name are the node's uuid)."""

    uuid: str
    name: str
    generation: int
    inventories: Mapping[str, Inventory] = field(default_factory=dict)
    usages: Mapping[str, int] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()

    def fits(self, resource_class: str, amount: int) -> bool:
        """Whether ``amount`` of ``resource_class`` could be allocated here now."""
        inventory = self.inventories.get(resource_class)
        return inventory is not None and inventory.fits(amount, self.usages.get(resource_class, 0))


@dataclass(frozen=True, slots=True)
class Candidates:
    """Placement's answer to ``GET /allocation_candidates``: the providers of its allocation
    requests, or none and why when it refuses the query (a 400, which Nova's scheduler turns
    into NoValidHost)."""

    providers: frozenset[str]
    refused: str | None = None


__all__ = ["Candidates", "Inventory", "Provider"]
