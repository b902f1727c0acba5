"""Drift between the views an operator keeps aligned: the catalog, Ironic, Placement and Nova's
flavors. Pure: every view is passed in, every finding names its node or flavor and the command
that fixes it.

What Nova's ironic driver puts in Placement (Nova 34, ``nova/virt/ironic/driver.py``
``update_provider_tree``, ``nova/compute/resource_tracker.py`` ``_get_traits``): one root
provider per node, named (and, since Nova 28, identified) by the node's UUID; an inventory of
``CUSTOM_<resource class>`` with total 1, max_unit 1 and reserved 1 when the node is in
maintenance, its power state is error or none, its provision state is not available, or it
has an instance; the node's traits, replaced wholesale on each periodic update, plus the
traits Nova owns itself — ``COMPUTE_NODE``, ``OWNER_NOVA``, ``COMPUTE_STATUS_DISABLED`` (set
while the nova-compute service is disabled) and the driver's capability traits, each added
when the ironic driver supports it and removed when it does not (``nova/virt/driver.py``
``CAPABILITY_TRAITS_MAP`` over the ironic driver's ``capabilities``; the lists are in
``nova/ironic_provider.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol

from flavorsmith.catalog.model import Flavor
from flavorsmith.matching import pools
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.provider import derived
from flavorsmith.matching.snapshot import NodeInfo
from flavorsmith.nova import ironic_provider

# Traits Nova sets or clears on a node's provider whatever Ironic says: never drift.
NOVA_OWNED_TRAITS = (
    ironic_provider.ADDED | ironic_provider.REMOVED | {ironic_provider.STATUS_DISABLED}
)

KINDS = (
    "flavor-candidates",
    "provider-missing",
    "provider-without-node",
    "resource-class-mismatch",
    "inventory-absent",
    "inventory-reserved",
    "inventory-not-reserved",
    "trait-not-on-provider",
    "trait-not-in-ironic",
    "flavor-missing",
    "flavor-extra-spec",
    "flavor-public",
    "flavor-access",
    "pool-leak",
)

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass(frozen=True)
class Finding:
    kind: str  # one of KINDS
    subject: str  # the node or flavor
    detail: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "subject": self.subject, "detail": self.detail, "fix": self.fix}


class InventoryLike(Protocol):
    @property
    def total(self) -> int: ...
    @property
    def reserved(self) -> int: ...


class ProviderLike(Protocol):
    """A resource provider as Placement shows it (``clients/placement.py`` reads them)."""

    @property
    def uuid(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def inventories(self) -> Mapping[str, Any]: ...  # resource class -> InventoryLike
    @property
    def usages(self) -> Mapping[str, int]: ...
    @property
    def traits(self) -> AbstractSet[str]: ...


class FlavorAccess(Protocol):
    """What drift compares of a flavor, on both sides: a catalog flavor derived into the Nova
    flavor a sync writes (``nova.derive``), and a flavor as Nova has it
    (``sync/kinds/nova_flavors.py`` observes them)."""

    @property
    def id(self) -> str: ...
    @property
    def is_public(self) -> bool: ...
    @property
    def projects(self) -> tuple[str, ...]: ...
    @property
    def extra_specs(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class Fixes:
    """The commands a finding's fix names, for the cloud they run against (None: this
    service's own data)."""

    cloud: str | None = None

    @property
    def _flavorsmith(self) -> str:
        return f" --cloud {self.cloud}" if self.cloud else ""

    @property
    def _openstack(self) -> str:
        return f"openstack --os-cloud {self.cloud}" if self.cloud else "openstack"

    def sync(self) -> str:
        return f"flavorsmith sync apply --only flavors{self._flavorsmith}"

    def explain(self, flavor: str, node: str) -> str:
        return f"flavorsmith explain {flavor} {node}{self._flavorsmith}"

    def openstack(self, command: str) -> str:
        return f"{self._openstack} {command}"


def _is_node_provider(provider: ProviderLike) -> bool:
    """A provider Nova's ironic driver made: named by a UUID with no inventory yet, or with
    only custom resource classes (a hypervisor has VCPU, a sharing provider DISK_GB)."""
    classes = list(provider.inventories)
    if classes:
        return all(rc.startswith("CUSTOM_") for rc in classes)
    return bool(_UUID.match(provider.name))


def match_providers(
    nodes: Sequence[NodeInfo], providers: Sequence[ProviderLike]
) -> dict[str, ProviderLike]:
    """Node UUID -> its provider: the provider with the node's UUID, else the one named by it
    (providers made before Nova used the node's UUID as the provider's)."""
    by_uuid = {p.uuid: p for p in providers}
    by_name = {p.name: p for p in providers}
    out: dict[str, ProviderLike] = {}
    for node in nodes:
        found = by_uuid.get(node.uuid) or by_name.get(node.uuid)
        if found is not None:
            out[node.uuid] = found
    return out


def _names(labels: Iterable[str], limit: int = 10) -> str:
    items = sorted(labels)
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _free(inventory: Any, used: int) -> int:
    return int(inventory.total) - int(inventory.reserved) - used


def node_findings(
    nodes: Sequence[NodeInfo],
    providers: Sequence[ProviderLike],
    fixes: Fixes = Fixes(),
) -> list[Finding]:
    """Each node against its provider: missing, resource class, inventory, reservation and
    traits (Nova's own traits left out); and node providers for no node."""
    out: list[Finding] = []
    matched = match_providers(nodes, providers)
    for node in nodes:
        out += one_node_findings(node, matched.get(node.uuid), fixes)
    known = {p.uuid for p in matched.values()}
    for provider in providers:
        if provider.uuid in known or not _is_node_provider(provider):
            continue
        classes = ", ".join(sorted(provider.inventories)) or "no inventory"
        out.append(
            Finding(
                "provider-without-node",
                provider.name,
                f"resource provider {provider.uuid} ({classes}) is for no Ironic node",
                fixes.openstack(f"resource provider delete {provider.uuid}")
                + " (once `"
                + fixes.openstack(f"resource provider usage show {provider.uuid}")
                + "` shows nothing in use)",
            )
        )
    return out


class NodeChecks:
    """Each node against the provider Nova's ironic driver derives from it (a service's own
    Placement), kept per node: the next call checks again only the nodes that changed (a new
    record: an index that follows the change log keeps the others' records) and the new ones.
    Equal to :func:`node_findings` of every node and its derived provider, as each node's checks
    depend on that node alone (its provider has its UUID, so no provider is for no node). Not
    thread-safe: one caller at a time."""

    def __init__(self, fixes: Fixes = Fixes()) -> None:
        self._fixes = fixes
        self._kept: dict[str, tuple[NodeInfo, ProviderLike, list[Finding]]] = {}
        self.checked = 0  # how many nodes were checked afresh, in all

    def check(self, nodes: Sequence[NodeInfo]) -> tuple[list[ProviderLike], list[Finding]]:
        """(every node's provider, the findings) in the nodes' order."""
        kept = self._kept
        now: dict[str, tuple[NodeInfo, ProviderLike, list[Finding]]] = {}
        providers: list[ProviderLike] = []
        findings: list[Finding] = []
        for node in nodes:
            entry = kept.get(node.uuid)
            if entry is None or not (entry[0] is node or entry[0] == node):
                provider = derived(node)
                entry = (node, provider, one_node_findings(node, provider, self._fixes))
                self.checked += 1
            now[node.uuid] = entry
            providers.append(entry[1])
            findings += entry[2]
        self._kept = now
        return providers, findings


def one_node_findings(
    node: NodeInfo, provider: ProviderLike | None, fixes: Fixes = Fixes()
) -> list[Finding]:
    """One node against its provider (None: Placement has none for it)."""
    out: list[Finding] = []
    label = node.label
    if provider is None:
        if node.placement_class is None:
            fix = fixes.openstack(f"baremetal node set --resource-class CLASS {label}")
            why = "the node has no resource class, so Nova makes no inventory for it"
        else:
            fix = fixes.openstack("compute service list --service nova-compute") + (
                " (a nova-compute that manages the node creates its provider on its next "
                "periodic update)"
            )
            why = "no nova-compute has reported it"
        out.append(
            Finding(
                "provider-missing",
                label,
                f"Placement has no resource provider for node {node.uuid}: {why}",
                fix,
            )
        )
        return out
    out += _inventory_findings(node, provider, not node.available, fixes)
    if node.placement_class is not None:  # Nova stops at NoResourceClass, before traits
        out += _trait_findings(node, provider, fixes)
    return out


def _inventory_findings(
    node: NodeInfo, provider: ProviderLike, reserves: bool, fixes: Fixes
) -> list[Finding]:
    label = node.label
    wanted = node.placement_class
    custom = sorted(rc for rc in provider.inventories if rc.startswith("CUSTOM_"))
    inventory = provider.inventories.get(wanted) if wanted else None
    set_class = fixes.openstack(
        f"resource provider inventory class set {provider.uuid} {wanted} --total 1 "
        f"--reserved {int(reserves)} --max_unit 1"
    )
    if wanted is None:
        if not custom:
            return []
        return [
            Finding(
                "resource-class-mismatch",
                label,
                f"the node has no resource class; its provider has inventory of "
                f"{', '.join(custom)}",
                fixes.openstack(f"baremetal node set --resource-class CLASS {label}"),
            )
        ]
    if inventory is None:
        if custom:
            return [
                Finding(
                    "resource-class-mismatch",
                    label,
                    f"Ironic says resource class {node.resource_class!r} ({wanted}); its "
                    f"provider has inventory of {', '.join(custom)}",
                    f"{set_class}, then "
                    + fixes.openstack(
                        f"resource provider inventory class delete {provider.uuid} {custom[0]}"
                    )
                    + " (or, if Ironic is wrong: "
                    + fixes.openstack(
                        f"baremetal node set --resource-class {custom[0].removeprefix('CUSTOM_')}"
                        f" {label}"
                    )
                    + ")",
                )
            ]
        return [
            Finding(
                "inventory-absent",
                label,
                f"its provider {provider.uuid} has no {wanted} inventory: Placement never "
                "offers the node",
                set_class,
            )
        ]
    used = int(provider.usages.get(wanted, 0))
    if not reserves and int(inventory.reserved) >= int(inventory.total) and used == 0:
        return [
            Finding(
                "inventory-reserved",
                label,
                f"the node is schedulable in Ironic, but its {wanted} inventory is reserved "
                f"({inventory.reserved} of {inventory.total}) in Placement",
                set_class,
            )
        ]
    if reserves and _free(inventory, used) > 0:
        return [
            Finding(
                "inventory-not-reserved",
                label,
                "the node is not schedulable in Ironic (maintenance, power or provision state, "
                f"or an instance), but Placement offers its {wanted} inventory "
                f"({_free(inventory, used)} free)",
                set_class,
            )
        ]
    return []


def _trait_findings(node: NodeInfo, provider: ProviderLike, fixes: Fixes) -> list[Finding]:
    have = frozenset(provider.traits)
    ironic = node.traits - NOVA_OWNED_TRAITS
    placement = have - NOVA_OWNED_TRAITS
    only_ironic = sorted(ironic - placement)
    only_placement = sorted(placement - ironic)
    if not only_ironic and not only_placement:
        return []
    expected = sorted(ironic | (have & NOVA_OWNED_TRAITS))
    resync = fixes.openstack(
        "resource provider trait set "
        + " ".join(f"--trait {t}" for t in expected)
        + f" {provider.uuid}"
    )
    out: list[Finding] = []
    if only_ironic:
        out.append(
            Finding(
                "trait-not-on-provider",
                node.label,
                f"Ironic has {', '.join(only_ironic)}; its provider {provider.uuid} does not "
                "(nova-compute copies Ironic's traits on its periodic update)",
                resync,
            )
        )
    if only_placement:
        out.append(
            Finding(
                "trait-not-in-ironic",
                node.label,
                f"its provider {provider.uuid} has {', '.join(only_placement)}; Ironic does not",
                f"{resync} (or, if the node should have "
                f"{'it' if len(only_placement) == 1 else 'them'}: "
                + fixes.openstack(
                    f"baremetal node add trait {node.label} {' '.join(only_placement)}"
                )
                + ")",
            )
        )
    return out


def candidate_findings(
    index: Index,
    rules: Sequence[FlavorRule],
    candidates: Mapping[str, AbstractSet[str]],
    providers: Sequence[ProviderLike],
    fixes: Fixes = Fixes(),
) -> list[Finding]:
    """Per flavor, the schedulable nodes the matcher finds against the providers Placement
    returns as allocation candidates (``candidates``: flavor name -> provider UUIDs)."""
    nodes = index.snapshot.nodes
    owner = {p.uuid: uuid for uuid, p in match_providers(nodes, providers).items()}
    labels = {n.uuid: n.label for n in nodes}
    out: list[Finding] = []
    for rule in rules:
        if rule.name not in candidates:
            continue
        ours = {nodes[p].uuid for p in positions(index.match(rule)) if nodes[p].available}
        theirs = {owner.get(uuid, uuid) for uuid in candidates[rule.name]}
        only_ours = ours - theirs
        only_theirs = theirs - ours
        if not only_ours and not only_theirs:
            continue
        parts = [f"the matcher finds {len(ours)} schedulable nodes, Placement {len(theirs)}"]
        if only_ours:
            parts.append(f"only the matcher: {_names(labels[u] for u in only_ours)}")
        if only_theirs:
            parts.append(
                f"only Placement: {_names(labels.get(u, f'provider {u}') for u in only_theirs)}"
            )
        first = min(only_ours or only_theirs)
        out.append(
            Finding(
                "flavor-candidates",
                rule.name,
                "; ".join(parts),
                "fix the node findings of these nodes, then "
                + fixes.explain(rule.name, labels.get(first, first)),
            )
        )
    return out


def flavor_findings(
    wanted: Sequence[FlavorAccess],
    nova: Mapping[str, FlavorAccess],
    fixes: Fixes = Fixes(),
    marker: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Each catalog flavor against Nova's flavor of the same id: missing, extra specs key by
    key (``marker``: the keys a sync adds to every flavor it manages), public-ness, access."""
    out: list[Finding] = []
    for want in sorted(wanted, key=lambda w: w.id):
        have = nova.get(want.id)
        if have is None:
            out.append(
                Finding("flavor-missing", want.id, "in the catalog, not in Nova", fixes.sync())
            )
            continue
        specs = {**want.extra_specs, **(marker or {})}
        for key in sorted(set(specs) | set(have.extra_specs)):
            mine, theirs = specs.get(key), have.extra_specs.get(key)
            if mine == theirs:
                continue
            if theirs is None:
                detail = f"extra spec {key}={mine} is in the catalog, not in Nova"
            elif mine is None:
                detail = f"extra spec {key}={theirs} is in Nova, not in the catalog"
            else:
                detail = f"extra spec {key} is {theirs!r} in Nova, {mine!r} in the catalog"
            fix = fixes.sync()
            if marker and key in marker and theirs is None:
                fix = (
                    fixes.openstack(f"flavor set --property {key}={mine} {want.id}")
                    + f" (adopts the flavor), then {fix}"
                )
            out.append(Finding("flavor-extra-spec", want.id, detail, fix))
        if want.is_public != have.is_public:
            out.append(
                Finding(
                    "flavor-public",
                    want.id,
                    f"{'public' if have.is_public else 'private'} in Nova, "
                    f"{'public' if want.is_public else 'private'} in the catalog "
                    "(Nova cannot change it in place: sync replaces the flavor)",
                    fixes.sync(),
                )
            )
        elif not want.is_public:
            extra = sorted(set(have.projects) - set(want.projects))
            lacking = sorted(set(want.projects) - set(have.projects))
            if extra or lacking:
                parts = ([f"Nova also gives it to {', '.join(extra)}"] if extra else []) + (
                    [f"Nova does not give it to {', '.join(lacking)}"] if lacking else []
                )
                out.append(Finding("flavor-access", want.id, "; ".join(parts), fixes.sync()))
    return out


def pool_findings(
    flavors: Sequence[Flavor], index: Index, isolated: Iterable[str] = ()
) -> list[Finding]:
    """Each private flavor whose nodes (of ``index``: the nodes verify read) a flavor other
    projects use can also land on (``matching/pools.py``), with the trait to mark absent in
    that flavor's file, or Nova's isolated aggregates."""
    files = {f.name: f.doc.display for f in flavors if f.doc is not None}
    out: list[Finding] = []
    for leak in pools.leaks(flavors, index, isolated=tuple(isolated)):
        first, alternative = leak.fixes()
        where = files.get(leak.reached_by)
        out.append(
            Finding(
                "pool-leak",
                leak.pool,
                leak.summary(),
                f"{first}{f', in {where}' if where else ''}; or {alternative}",
            )
        )
    return out


@dataclass(frozen=True)
class Report:
    """Every finding, where each view came from, and what was compared."""

    findings: tuple[Finding, ...]
    sources: Mapping[str, str]
    counts: Mapping[str, int]
    notes: tuple[str, ...] = ()

    @property
    def aligned(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        by_kind: dict[str, int] = {}
        for finding in self.findings:
            by_kind[finding.kind] = by_kind.get(finding.kind, 0) + 1
        return {
            "aligned": self.aligned,
            "sources": dict(self.sources),
            "checked": dict(self.counts),
            "notes": list(self.notes),
            "counts": {k: by_kind[k] for k in KINDS if k in by_kind},
            "findings": [f.as_dict() for f in self.findings],
        }


def verify(
    *,
    index: Index,
    rules: Sequence[FlavorRule],
    wanted: Sequence[FlavorAccess],
    nova: Mapping[str, FlavorAccess],
    providers: Sequence[ProviderLike],
    candidates: Mapping[str, AbstractSet[str]] | None,
    sources: Mapping[str, str],
    fixes: Fixes = Fixes(),
    marker: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
    flavors: Sequence[Flavor] = (),
    isolated: Iterable[str] = (),
    node_checks: Sequence[Finding] | None = None,
) -> Report:
    """All the checks: flavors against Placement's candidates (when ``candidates`` is given),
    nodes against their providers, catalog flavors against Nova's, and the pools of the
    catalog's ``flavors`` that other flavors reach on these nodes. ``node_checks``: the nodes
    against their providers when already made (:class:`NodeChecks`)."""
    nodes = index.snapshot.nodes
    findings: list[Finding] = []
    if candidates is not None:
        findings += candidate_findings(index, rules, candidates, providers, fixes)
    if node_checks is None:
        node_checks = node_findings(nodes, providers, fixes)
    findings += node_checks
    findings += flavor_findings(wanted, nova, fixes, marker)
    findings += pool_findings(flavors, index, isolated)
    return Report(
        tuple(findings),
        sources,
        {
            "flavors": len(wanted),
            "nodes": len(nodes),
            "providers": len(providers),
            "nova_flavors": len(nova),
        },
        tuple(notes),
    )
