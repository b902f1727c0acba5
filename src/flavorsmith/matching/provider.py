"""Placement's resource provider for a node, as the explanations read it: from a real Placement,
or derived from the node as Nova 34's ironic driver and resource tracker report it (one root
provider named and keyed by the node's UUID, an inventory of total 1 of its resource class,
reserved when the driver says so, allocated to its instance, its traits as Nova sets them:
``nova/ironic_provider.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from flavorsmith.matching.snapshot import NodeInfo
from flavorsmith.nova import ironic_provider

# The trait Nova's request forbids, set on the providers of a disabled nova-compute service.
COMPUTE_STATUS_DISABLED = ironic_provider.STATUS_DISABLED


@dataclass(frozen=True)
class Inventory:
    """One resource class of a provider (Placement's fields the explanations need)."""

    total: int
    reserved: int = 0
    max_unit: int = 1


@dataclass(frozen=True)
class ProviderView:
    """A resource provider: its inventories and usages by resource class, and its traits."""

    uuid: str
    name: str
    inventories: Mapping[str, Inventory] = field(default_factory=dict)
    usages: Mapping[str, int] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()

    def free(self, resource_class: str) -> int:
        """Units of ``resource_class`` Placement can still allocate (allocation ratio 1)."""
        inventory = self.inventories.get(resource_class)
        if inventory is None:
            return 0
        return inventory.total - inventory.reserved - self.usages.get(resource_class, 0)


def derived(node: NodeInfo) -> ProviderView:
    """The provider Nova's ironic driver reports for ``node`` (``update_provider_tree``): no
    inventory without a resource class (the driver raises NoResourceClass), else total 1,
    reserved 1 when the node is used or in a state Nova will not schedule on, and a usage
    of 1 when it holds an instance (the instance's allocation)."""
    inventories: dict[str, Inventory] = {}
    usages: dict[str, int] = {}
    rc = node.placement_class
    if rc is not None:
        reserved = node.used or bool(node.holds)
        inventories[rc] = Inventory(total=1, reserved=int(reserved), max_unit=1)
        if node.used:
            usages[rc] = 1
    return ProviderView(
        uuid=node.uuid,
        name=node.uuid,
        inventories=inventories,
        usages=usages,
        traits=ironic_provider.provider_traits(node.traits),
    )
