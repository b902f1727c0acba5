"""The classification kind: each node of a real Ironic classified from the inspection inventory
Ironic keeps for it (``GET /v1/nodes/{node}/inventory``), and the result applied to that node.

Identity is the node's UUID. Ownership is the trait rules' prefixes: a node's traits that a
trait-rule file owns become exactly what the rules set, each added or removed on its own
(``PUT``/``DELETE /v1/nodes/{node}/traits/{trait}``), so traits anyone else sets meanwhile
survive; every other trait is left alone. The resource class is set when exactly one device
type matches. Ironic refuses to change the resource class of a node that has one outside the
enroll, inspecting, inspect wait, manageable and available states: such a node is planned as
``blocked`` (with its state) and left wholly alone, so its traits never describe a device type
its resource class does not.

Nothing here deletes and nothing is created: there is no prune. The kind has no target in the
service's own database and is not watched (``serve --sync`` must not retype a fleet because a
catalog file changed); ``flavorsmith classify --all`` and ``sync plan|apply --only
classification`` run it by name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.update import node_update
from flavorsmith.clients.ironic import INVENTORY_VERSION, IronicNodes
from flavorsmith.errors import FlavorsmithError, TargetError
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change

NAME = "classification"
# What a plan reads of each node (never driver_info nor instance_info).
FIELDS = ("uuid", "name", "resource_class", "traits", "provision_state")


@dataclass(frozen=True)
class ObservedNode:
    """A node as Ironic has it, with its stored inspection data (None: Ironic has none;
    ``unreadable``: why it could not be read)."""

    uuid: str
    name: str | None
    provision_state: str | None
    resource_class: str | None
    traits: frozenset[str]
    inventory: Any = None
    unreadable: str | None = None

    managed = True  # its owned traits are the rules'; nothing of a node is ever deleted

    @property
    def label(self) -> str:
        return self.name or self.uuid


@dataclass(frozen=True)
class NodeAction:
    """One node. ``kind``: update, noop, blocked, no-inventory, or conflict (its inventory
    cannot be classified: reported as a failure, nothing written)."""

    kind: str
    node: str  # name, else UUID
    uuid: str
    state: str | None
    reason: str
    resource_class: str | None  # as it is
    new_resource_class: str | None = None  # set when it changes (update) or would (blocked)
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    classification: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def subject(self) -> str:
        return self.node

    @property
    def writes(self) -> bool:
        return self.kind == "update"

    @property
    def changes(self) -> tuple[Change, ...]:
        """The resource class it sets (old and new) and each trait it adds or removes."""
        if self.kind != "update":
            return ()
        out = []
        if self.new_resource_class is not None and self.new_resource_class != self.resource_class:
            out.append(
                Change("change", "resource_class", self.resource_class, self.new_resource_class)
            )
        out += [Change("add", f"traits.{t}", new=t) for t in self.added]
        out += [Change("remove", f"traits.{t}", old=t) for t in self.removed]
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.kind,
            "node": self.node,
            "uuid": self.uuid,
            "provision_state": self.state,
            "resource_class": self.resource_class,
            "new_resource_class": self.new_resource_class,
            "traits_added": list(self.added),
            "traits_removed": list(self.removed),
            "reason": self.reason,
        }


def desired(catalog: Catalog) -> Catalog:
    """The catalog itself: its device types and trait rules decide every node."""
    return catalog


def plan_node(catalog: Catalog, node: ObservedNode) -> NodeAction:
    """The pure decision for one node."""
    same = NodeAction("noop", node.label, node.uuid, node.provision_state, "", node.resource_class)
    if node.unreadable is not None:
        return replace(same, kind="conflict", reason=node.unreadable)
    if node.inventory is None:
        reason = "Ironic has no inspection inventory for it (inspect it first)"
        return replace(same, kind="no-inventory", reason=reason)
    try:
        result = classify(parse(node.inventory), catalog, node.traits)
    except FlavorsmithError as exc:
        reason = f"its inspection inventory cannot be classified: {exc.message}"
        return replace(same, kind="conflict", reason=reason)
    current = node.resource_class
    wanted = result.resource_class
    update = node_update(result, current, node=node.uuid, provision_state=node.provision_state)
    new = update.resource_class
    planned = replace(
        same,
        new_resource_class=new,
        added=update.add,
        removed=update.remove,
        classification=result.as_dict(),
    )
    why = [] if wanted is not None else [f"resource class left alone: {result.device.summary}"]
    if update.refused is not None:
        reason = f"blocked: resource class {current} → {new}: {update.refused}"
        return replace(planned, kind="blocked", reason=reason)
    if not (new or planned.added or planned.removed):
        now = f"up to date (resource class {current})" if wanted else "traits up to date"
        return replace(planned, reason="; ".join([now, *why]))
    what = [f"resource class {current or '(none)'} → {new}"] if new else []
    what += [f"add {', '.join(planned.added)}"] if planned.added else []
    what += [f"remove {', '.join(planned.removed)}"] if planned.removed else []
    return replace(planned, kind="update", reason="; ".join(what + why))


def plan(catalog: Catalog, observed: Mapping[str, ObservedNode], prune: bool) -> list[NodeAction]:
    """Every observed node's action, by name then UUID (``prune`` means nothing here)."""
    nodes = sorted(observed.values(), key=lambda n: (n.name or "", n.uuid))
    return [plan_node(catalog, node) for node in nodes]


class NodeTarget(IronicNodes):
    """A real Ironic's nodes with their inventories (API 1.81 or later); ``only`` narrows a
    plan to one node (by name or UUID)."""

    version = INVENTORY_VERSION
    needs = "classifying nodes from their stored inspection inventory needs"

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)  # extra specs are no concern of nodes
        self.only: str | None = None

    def observe(self) -> dict[str, ObservedNode]:
        if self.only is None:
            found = self.nodes(FIELDS)
        else:
            try:
                found = [self.node(self.only, FIELDS)]
            except TargetError as exc:
                if exc.status == 404:
                    raise TargetError(
                        f"node {self.only!r} is not in this Ironic", status=404
                    ) from None
                raise
        out: dict[str, ObservedNode] = {}
        for item in found:
            inventory, unreadable = self._inventory(item["uuid"])
            out[item["uuid"]] = ObservedNode(
                uuid=item["uuid"],
                name=item.get("name"),
                provision_state=item.get("provision_state"),
                resource_class=item.get("resource_class"),
                traits=frozenset(item.get("traits") or ()),
                inventory=inventory,
                unreadable=unreadable,
            )
        return out

    def _inventory(self, uuid: str) -> tuple[Any, str | None]:
        """(the stored inspection data or None, why it could not be read). A node Ironic
        answers for with an error of its own does not stop the others; an Ironic that cannot
        be reached at all does."""
        try:
            return self.inventory(uuid), None
        except TargetError as exc:
            if exc.status == 404:
                return None, None
            if exc.status is None:
                raise
            return None, f"its inspection inventory cannot be read: {exc}"


def steps(action: NodeAction, target: NodeTarget) -> list[Step]:
    """The resource class first (when Ironic refuses it, no trait is touched), then each
    owned trait on its own."""
    out: list[Step] = []
    if action.new_resource_class is not None:
        out.append(partial(target.set_resource_class, action.uuid, action.new_resource_class))
    out += [partial(target.add_trait, action.uuid, trait) for trait in action.added]
    out += [partial(target.remove_trait, action.uuid, trait) for trait in action.removed]
    return out


KIND: Kind[Catalog, ObservedNode, NodeAction, NodeTarget] = Kind(
    name=NAME,
    noun="nodes",
    subject="node",
    service="baremetal",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=None,
    sdk_target=NodeTarget,
    watched=False,
)
