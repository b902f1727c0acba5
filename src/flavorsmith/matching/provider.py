"""A node's Placement resource provider when no real Placement is read: derived from the node
as Nova 34's ironic driver and resource tracker report it (one root provider named and keyed by
the node's UUID, an inventory of total 1 of its resource class, reserved when the driver says
so, allocated to its instance, its traits as Nova sets them: ``nova/ironic_provider.py``)."""

from __future__ import annotations

from flavorsmith.matching.resource_providers import Inventory, Provider
from flavorsmith.matching.snapshot import NodeInfo
from flavorsmith.nova import ironic_provider

# The trait Nova's request forbids, set on the providers of a disabled nova-compute service.
COMPUTE_STATUS_DISABLED = ironic_provider.STATUS_DISABLED


def derived(node: NodeInfo) -> Provider:
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
    return Provider(
        uuid=node.uuid,
        name=node.uuid,
        generation=0,
        inventories=inventories,
        usages=usages,
        traits=ironic_provider.provider_traits(node.traits),
    )


__all__ = ["COMPUTE_STATUS_DISABLED", "Inventory", "Provider", "derived"]
