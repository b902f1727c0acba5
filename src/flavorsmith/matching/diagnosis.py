"""Why a flavor cannot land on a node ("why NoValidHost?"), layer by layer: the catalog (the
matcher's reasons), Ironic (the node's states, read with Nova 34's ironic-driver rule), Placement
(the node's resource provider: missing, without the inventory, reserved, allocated, traits that
differ from Ironic's, a disabled compute service), flavor access (Nova's rule for a private
flavor) and the scheduler's cap on candidates; and for a flavor alone, its nodes counted by
their first reason.

Pure: the caller passes the nodes, the providers (real ones, or None to derive each from its
node as Nova would) and the flavor's access."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from flavorsmith.ironic.nodes import PROVISIONED_STATES
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.match import explain
from flavorsmith.matching.provider import COMPUTE_STATUS_DISABLED, derived
from flavorsmith.matching.resource_providers import Provider
from flavorsmith.matching.snapshot import NodeInfo

# Nova's [scheduler]max_placement_results default: the `limit` of GET /allocation_candidates.
MAX_PLACEMENT_RESULTS = 1000

Layer = Literal["catalog", "ironic", "placement", "access", "scheduler"]
LAYERS: tuple[Layer, ...] = ("catalog", "ironic", "placement", "access", "scheduler")


@dataclass(frozen=True)
class Finding:
    """One reason, in one layer. ``blocking``: the boot cannot land there because of it;
    otherwise a fact the operator should know (an owner, a private flavor, the cap)."""

    layer: Layer
    kind: str
    detail: str
    subject: str | None = None  # the trait, state or project the finding is about
    blocking: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "kind": self.kind,
            "subject": self.subject,
            "blocking": self.blocking,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Access:
    """Who may boot the flavor (the catalog's ``is_public`` and ``projects``)."""

    is_public: bool = True
    projects: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """What a diagnosis is asked in: the project booting (None: not said), the flavor's
    access, whether Placement is a real one, and Nova's cap on candidates."""

    project: str | None = None
    access: Access = field(default_factory=Access)
    real_placement: bool = False
    max_placement_results: int = MAX_PLACEMENT_RESULTS
    # Every trait some node has (Placement refuses a request forbidding a custom trait it
    # never saw); None: not checked.
    known_traits: frozenset[str] | None = None


# A provider lookup: the node's provider in Placement, or None when Placement has none.
Providers = Callable[[NodeInfo], Provider | None]
# Without a cloud: each node's provider derived as Nova's ironic driver reports it.
DERIVED: Providers = derived


# The matcher's reasons that hold for every node alike: the request itself is refused.
FLAVOR_WIDE = frozenset({"never", "unknown-trait"})


def _catalog(node: NodeInfo, rule: FlavorRule, context: Context) -> list[Finding]:
    traits = sorted(rule.required | rule.forbidden, key=len, reverse=True)
    findings = []
    for reason in explain(node, rule, context.known_traits):
        if reason.kind == "missing-any-trait":
            choices = next((c for c in rule.any_of if all(t in reason.detail for t in c)), None)
            subject = ", ".join(sorted(choices)) if choices else None
        else:
            subject = next((t for t in traits if t in reason.detail), None)
        findings.append(Finding("catalog", reason.kind, reason.detail, subject))
    return findings


def unmodelled_findings(rule: FlavorRule) -> list[Finding]:
    """What the matcher cannot model for the flavor: its answer may differ from Placement's."""
    return [
        Finding("catalog", "unmodelled", f"not modelled: {text}", blocking=False)
        for text in rule.unmodelled
    ]


def _ironic(node: NodeInfo, context: Context) -> list[Finding]:
    findings = []
    for hold in node.holds:
        subject = {
            "instance": node.instance_uuid,
            "power-state": node.power_state or "none",
            "provision-state": node.provision_state,
        }.get(hold.kind)
        findings.append(Finding("ironic", hold.kind, hold.detail, subject))
    # Neither Nova 34's ironic driver nor Ironic 39's deploy looks at owner or lessee: Nova
    # deploys with its service credentials, and Ironic only records the instance's project as
    # the lessee at deploy time ([conductor]automatic_lessee). They decide who may see and
    # act on the node in Ironic's API, not where Nova may schedule.
    for kind, value in (("owner", node.owner), ("lessee", node.lessee)):
        if value is None:
            continue
        other = context.project is not None and value != context.project
        detail = (
            f"the node's {kind} is project {value}"
            + (f", not {context.project}" if other else "")
            + ": Nova schedules and deploys regardless (its ironic driver does not read "
            f"{kind}, and Ironic does not refuse Nova's deploy for it); it decides who may "
            "use the node through Ironic's own API"
        )
        findings.append(Finding("ironic", kind, detail, value, blocking=False))
    return findings


def _placement(
    node: NodeInfo, rule: FlavorRule, provider: Provider | None, context: Context
) -> list[Finding]:
    source = "" if context.real_placement else " (derived from the node as Nova reports it)"
    rc = rule.placement_class
    if provider is None:
        return [
            Finding(
                "placement",
                "no-provider",
                f"Placement has no resource provider for the node{source}: Nova's compute "
                "service has not reported it (is the node in a conductor group or shard a "
                "running nova-compute manages?)",
            )
        ]
    findings: list[Finding] = []
    inventory = provider.inventories.get(rc)
    if inventory is None:
        if node.placement_class == rc or not provider.inventories:
            have = ", ".join(sorted(provider.inventories)) or "none"
            why = (
                " (the node has no resource class, so Nova's ironic driver reports none)"
                if node.placement_class is None
                else ""
            )
            findings.append(
                Finding(
                    "placement",
                    "no-inventory",
                    f"the provider has no {rc} inventory{source} (its inventory: {have}){why}",
                    rc,
                )
            )
    else:
        used = provider.usages.get(rc, 0)
        if inventory.capacity <= 0:
            findings.append(
                Finding(
                    "placement",
                    "reserved",
                    f"the provider's {rc} inventory is reserved ({inventory.reserved} of "
                    f"{inventory.total}){source}",
                    rc,
                )
            )
        if used > 0 and used + 1 > inventory.capacity:
            findings.append(
                Finding(
                    "placement",
                    "allocated",
                    f"the provider's {rc} inventory is allocated ({used} of "
                    f"{inventory.total} used){source}",
                    rc,
                )
            )
        if not (inventory.min_unit <= 1 <= inventory.max_unit and 1 % inventory.step_size == 0):
            findings.append(
                Finding(
                    "placement",
                    "unit",
                    f"the provider's {rc} inventory takes no allocation of 1 (min_unit "
                    f"{inventory.min_unit}, max_unit {inventory.max_unit}, step_size "
                    f"{inventory.step_size})",
                    rc,
                )
            )
    # Traits: only where Placement's differ from Ironic's (the catalog layer already says
    # what the node itself lacks or has).
    for trait in sorted(rule.required - provider.traits):
        if trait in node.traits:
            findings.append(
                Finding(
                    "placement",
                    "provider-missing-trait",
                    f"the flavor requires {trait}: the Ironic node has it, its provider in "
                    f"Placement does not{source} (Nova's compute has not synced the node's "
                    "traits, or the trait was removed in Placement)",
                    trait,
                )
            )
    for trait in sorted(rule.forbidden & provider.traits):
        if trait not in node.traits:
            findings.append(
                Finding(
                    "placement",
                    "provider-forbidden-trait",
                    f"the flavor forbids {trait}: the node's provider in Placement has it, "
                    f"the Ironic node does not{source}",
                    trait,
                )
            )
    if COMPUTE_STATUS_DISABLED in provider.traits:
        findings.append(
            Finding(
                "placement",
                "compute-disabled",
                f"the provider has {COMPUTE_STATUS_DISABLED}: the nova-compute service that "
                "manages the node is disabled, and Nova's request forbids that trait",
                COMPUTE_STATUS_DISABLED,
            )
        )
    return findings


def access_findings(context: Context) -> list[Finding]:
    """Flavor access, Nova's rule: a private flavor boots only for the projects on its
    access list (and admins may not boot it for others either: the list decides)."""
    if context.access.is_public:
        return []
    if context.project is None:
        return [
            Finding(
                "access",
                "private-flavor",
                "the flavor is private: only the projects on its access list can boot it "
                "(give --project to check one)",
                blocking=False,
            )
        ]
    if context.project in context.access.projects:
        return []
    return [
        Finding(
            "access",
            "private-flavor",
            f"the flavor is private and project {context.project} is not on its access list",
            context.project,
        )
    ]


def candidate_limit(candidates: int, context: Context) -> list[Finding]:
    """Nova asks Placement for at most ``max_placement_results`` candidates."""
    cap = context.max_placement_results
    if candidates <= cap:
        return []
    return [
        Finding(
            "scheduler",
            "candidate-limit",
            f"{candidates:,} nodes qualify, but Nova asks Placement for at most {cap:,} "
            "candidates ([scheduler]max_placement_results): the others are never considered "
            "for one boot (Placement returns the same ones each time unless "
            "[placement]randomize_allocation_candidates is set)",
            str(cap),
            blocking=False,
        )
    ]


def node_findings(
    node: NodeInfo, rule: FlavorRule, provider: Provider | None, context: Context
) -> list[Finding]:
    """Every reason the flavor cannot land on the node, by node layer (catalog, Ironic,
    Placement); flavor-wide ones (access, the cap) are the caller's to add."""
    return [
        *_catalog(node, rule, context),
        *_ironic(node, context),
        *_placement(node, rule, provider, context),
    ]


def schedulable(findings: Sequence[Finding]) -> bool:
    return not any(f.blocking for f in findings)


@dataclass(frozen=True)
class NodeDiagnosis:
    flavor: str
    node: NodeInfo
    project: str | None
    real_placement: bool
    findings: tuple[Finding, ...]

    @property
    def schedulable(self) -> bool:
        return schedulable(self.findings)

    def as_dict(self) -> dict[str, Any]:
        node = self.node
        return {
            "flavor": self.flavor,
            "node": {
                "uuid": node.uuid,
                "name": node.name,
                "resource_class": node.resource_class,
                "provision_state": node.provision_state,
                "power_state": node.power_state,
                "maintenance": node.maintenance,
                "instance_uuid": node.instance_uuid,
                "owner": node.owner,
                "lessee": node.lessee,
                "inventory": node.inventory_state,
            },
            "project": self.project,
            "placement": "real" if self.real_placement else "derived",
            "schedulable": self.schedulable,
            "reasons": [f.as_dict() for f in self.findings],
        }


def diagnose_node(
    node: NodeInfo,
    rule: FlavorRule,
    provider: Provider | None,
    context: Context,
    candidates: int,
) -> NodeDiagnosis:
    """The node's diagnosis; ``candidates`` is how many nodes Placement would offer for the
    flavor (for the cap, said only when the node itself qualifies)."""
    findings = [*node_findings(node, rule, provider, context), *unmodelled_findings(rule)]
    flavor_wide = access_findings(context)
    if schedulable(findings):
        flavor_wide += candidate_limit(candidates, context)
    return NodeDiagnosis(
        rule.name, node, context.project, context.real_placement, (*findings, *flavor_wide)
    )


# Counting a flavor's nodes: each node under its first blocking reason, in this order (what
# would still stop it once the later ones were fixed comes first).
RANK = {
    "never": 0,
    "resource-class": 0,
    "missing-trait": 1,
    "forbidden-trait": 1,
    "no-provider": 2,
    "no-inventory": 3,
    "provisioned": 4,
    "maintenance": 5,
    "power-state": 6,
    "provision-state": 7,
    "reserved": 8,
    "allocated": 9,
    "unit": 9,
    "provider-missing-trait": 10,
    "provider-forbidden-trait": 10,
    "compute-disabled": 11,
}
CATALOG_RANK = 1  # a catalog reason of a kind this module does not know yet


def bucket(finding: Finding) -> tuple[str, str | None]:
    """The count a node's first reason goes to: its kind and subject, with the instance and
    provisioned states together as ``provisioned``."""
    kind, subject = finding.kind, finding.subject
    if kind in ("instance", "provisioned") or (
        kind == "provision-state" and subject in PROVISIONED_STATES
    ):
        return "provisioned", None
    if kind in FLAVOR_WIDE:
        return "never", None
    if kind in ("resource-class", "reserved", "allocated", "no-provider", "no-inventory"):
        return kind, None
    return kind, subject


def rank(finding: Finding) -> int:
    """Where a finding's count comes in the order of RANK (by its bucket, so an active node
    counts as provisioned whatever its other states)."""
    kind = bucket(finding)[0]
    return RANK.get(kind, CATALOG_RANK if finding.layer == "catalog" else len(RANK))


def first_reason(findings: Sequence[Finding]) -> Finding | None:
    blocking = [f for f in findings if f.blocking]
    return min(blocking, key=rank) if blocking else None


PHRASES: Mapping[str, Callable[[int, str | None], str]] = {
    "available": lambda n, s: f"{n} available",
    "never": lambda n, s: f"{n} excluded by the flavor's Placement request itself",
    "resource-class": lambda n, s: f"{n} of another resource class",
    "missing-any-trait": lambda n, s: f"{n} have none of {s}",
    "missing-trait": lambda n, s: f"{n} lack {s}",
    "forbidden-trait": lambda n, s: f"{n} have {s} (forbidden)",
    "no-provider": lambda n, s: f"{n} have no provider",
    "no-inventory": lambda n, s: f"{n} have no inventory of the class in Placement",
    "provisioned": lambda n, s: f"{n} provisioned",
    "maintenance": lambda n, s: f"{n} in maintenance",
    "power-state": lambda n, s: f"{n} with power state {s}",
    "provision-state": lambda n, s: f"{n} in provision state {s}",
    "reserved": lambda n, s: f"{n} reserved in Placement",
    "allocated": lambda n, s: f"{n} allocated in Placement",
    "unit": lambda n, s: f"{n} whose inventory takes no allocation of 1",
    "provider-missing-trait": lambda n, s: f"{n} whose provider lacks {s}",
    "provider-forbidden-trait": lambda n, s: f"{n} whose provider has {s} (forbidden)",
    "compute-disabled": lambda n, s: f"{n} on a disabled nova-compute",
}


def phrase(kind: str, subject: str | None, count: int) -> str:
    words = PHRASES.get(kind)
    if words is not None:
        return words(count, subject)
    return f"{count} {kind}" + (f" ({subject})" if subject else "")


@dataclass(frozen=True)
class Count:
    kind: str
    subject: str | None
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "reason": self.kind,
            "subject": self.subject,
            "count": self.count,
            "text": phrase(self.kind, self.subject, self.count),
        }


@dataclass(frozen=True)
class FlavorDiagnosis:
    flavor: str
    project: str | None
    real_placement: bool
    nodes: int
    candidates: int
    counts: tuple[Count, ...]
    findings: tuple[Finding, ...]  # flavor-wide: access, the candidate cap

    @property
    def summary(self) -> str:
        return ", ".join(phrase(c.kind, c.subject, c.count) for c in self.counts) or "no nodes"

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavor": self.flavor,
            "project": self.project,
            "placement": "real" if self.real_placement else "derived",
            "nodes": self.nodes,
            "candidates": self.candidates,
            "summary": self.summary,
            "counts": [c.as_dict() for c in self.counts],
            "reasons": [f.as_dict() for f in self.findings],
        }


# A node of no class and no trait, to ask the matcher what holds for every node.
_NOBODY = NodeInfo("", None, None, frozenset())


def diagnose_flavor(
    nodes: Sequence[NodeInfo],
    rule: FlavorRule,
    providers: Providers,
    context: Context,
) -> FlavorDiagnosis:
    """The flavor's nodes counted by their first reason ("available" when none), the most
    common first, then in the order of RANK."""
    tally: dict[tuple[str, str | None], int] = {}
    order: dict[tuple[str, str | None], int] = {("available", None): -1}
    candidates = 0
    wide = [f for f in _catalog(_NOBODY, rule, context) if f.kind in FLAVOR_WIDE]
    for node in nodes:
        if wide:
            first: Finding | None = wide[0]
        elif node.placement_class != rule.placement_class:  # the first reason, whatever else
            first = Finding("catalog", "resource-class", "")
        else:
            first = first_reason(node_findings(node, rule, providers(node), context))
        if first is None:
            key: tuple[str, str | None] = ("available", None)
            candidates += 1
        else:
            key = bucket(first)
            order.setdefault(key, rank(first))
        tally[key] = tally.get(key, 0) + 1
    counts = tuple(
        Count(kind, subject, count)
        for (kind, subject), count in sorted(
            tally.items(), key=lambda item: (order[item[0]], -item[1], str(item[0][1]))
        )
    )
    findings = (
        *wide,
        *unmodelled_findings(rule),
        *access_findings(context),
        *candidate_limit(candidates, context),
    )
    return FlavorDiagnosis(
        rule.name, context.project, context.real_placement, len(nodes), candidates, counts, findings
    )


def count_candidates(
    nodes: Sequence[NodeInfo], rule: FlavorRule, providers: Providers, context: Context
) -> int:
    """How many of ``nodes`` Placement would offer for the flavor."""
    if any(f.kind in FLAVOR_WIDE for f in _catalog(_NOBODY, rule, context)):
        return 0
    return sum(
        1
        for node in nodes
        if node.placement_class == rule.placement_class
        and schedulable(node_findings(node, rule, providers(node), context))
    )
