"""An in-memory snapshot of the nodes the matcher works on (no database in here), and how
Nova's ironic driver reports each node to Placement: its inventory used, reserved or
schedulable, and why."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from flavorsmith.ironic.nodes import PROVISIONED_STATES
from flavorsmith.resource_classes import placement_name

# Nova 34, nova/virt/ironic/driver.py ``_node_resources_unavailable``: a node is "in a bad
# state" (its inventory reported reserved) in maintenance, with one of these power states
# (NOSTATE is None), or with a provision state other than these.
BAD_POWER_STATES = frozenset({"error", None})
GOOD_PROVISION_STATES = frozenset({"available", None})

InventoryState = Literal["schedulable", "used", "reserved", "absent"]


@dataclass(frozen=True)
class Hold:
    """One reason Nova's ironic driver gives Placement for not offering a node."""

    kind: str  # "instance", "provisioned", "maintenance", "power-state", "provision-state"
    detail: str


@dataclass(frozen=True)
class NodeInfo:
    uuid: str
    name: str | None
    resource_class: str | None
    traits: frozenset[str]
    provisioned: bool = False  # holds or is getting an instance (see is_provisioned)
    maintenance: bool = False
    # Ironic's fields as its API shows them. The defaults describe an idle node ready to
    # deploy; a node read from Ironic or the database always carries its own values.
    provision_state: str | None = "available"
    power_state: str | None = "power off"
    instance_uuid: str | None = None
    owner: str | None = None
    lessee: str | None = None

    @cached_property
    def placement_class(self) -> str | None:
        """What Nova's ironic driver reports for this node (None: no resource class)."""
        return placement_name(self.resource_class) if self.resource_class else None

    @cached_property
    def holds(self) -> tuple[Hold, ...]:
        """Why Nova's ironic driver reports this node's inventory reserved (empty: it does
        not), in Nova's words turned into an operator's."""
        return holds(self)

    @property
    def used(self) -> bool:
        """Nova's ``_node_resources_used``: the node has an instance (``provisioned`` alone
        counts too when no Ironic state says more, as for a node built by hand)."""
        return self.instance_uuid is not None or (
            self.provisioned and self.provision_state in GOOD_PROVISION_STATES
        )

    @property
    def inventory_state(self) -> InventoryState:
        """The node's inventory as Placement sees it through Nova's ironic driver: ``absent``
        (no resource class, so no inventory), ``used`` (an instance or a deployment),
        ``reserved`` (a state Nova will not schedule on) or ``schedulable``."""
        if self.placement_class is None:
            return "absent"
        if self.used:
            return "used"
        if self.holds:
            return "reserved"
        return "schedulable"

    @property
    def available(self) -> bool:
        """Schedulable as Placement would see it: an inventory of the node's resource class
        that Nova's ironic driver does not report reserved."""
        return self.inventory_state == "schedulable"

    @property
    def label(self) -> str:
        return self.name or self.uuid


def holds(node: NodeInfo) -> tuple[Hold, ...]:
    """Nova 34's rule (``update_provider_tree``): the inventory is reserved when the node is
    used (``_node_resources_used``: it has an instance) or unavailable
    (``_node_resources_unavailable``: maintenance, power state error or none, a provision
    state other than available)."""
    found: list[Hold] = []
    if node.instance_uuid is not None:
        found.append(
            Hold(
                "instance",
                f"the node holds instance {node.instance_uuid}: Nova's ironic driver reports "
                "it used (inventory reserved, allocated to that instance)",
            )
        )
    elif node.used:
        found.append(Hold("provisioned", "the node is provisioned: its inventory is in use"))
    if node.maintenance:
        found.append(
            Hold(
                "maintenance",
                "the node is in maintenance: Nova's ironic driver reports it reserved",
            )
        )
    if node.power_state in BAD_POWER_STATES:
        state = "none" if node.power_state is None else node.power_state
        why = (
            " (Ironic has not read it yet: a node has one once Ironic has verified its "
            "BMC, on the way to manageable)"
            if node.power_state is None
            else " (Ironic could not read or set its power: check the BMC)"
        )
        found.append(
            Hold(
                "power-state",
                f"power state is {state}: Nova's ironic driver reports the node reserved{why}",
            )
        )
    if node.provision_state not in GOOD_PROVISION_STATES:
        found.append(
            Hold(
                "provision-state",
                f"provision state is {node.provision_state!r}, not 'available': Nova's ironic "
                "driver reports the node reserved",
            )
        )
    return tuple(found)


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
    """A snapshot of nodes as Ironic's API shows them (``ironic.nodes.SCHEDULING_FIELDS``), in the
    given order. A field the record lacks reads as Ironic's
    null (a power state never read, no owner)."""
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
                provision_state=record.get("provision_state"),
                power_state=record.get("power_state"),
                instance_uuid=record.get("instance_uuid"),
                owner=record.get("owner"),
                lessee=record.get("lessee"),
            )
            for record in records
        ),
        generation,
    )
