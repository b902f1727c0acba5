"""What a catalog change (or a change of the fleet) does to what can be sold: the capacity
diff of ``flavorsmith review`` (pure).

Two catalogs, *base* and *head*, are matched against the nodes: one index when only the
catalog changes (both revisions' flavors are matched on it), two when the fleet changes too
(``retire`` and ``add`` make the second one). The diff says, per flavor, the nodes matched and
available before and after; which flavors become unschedulable; which nodes no flavor can use
any more, and which become usable; which dedicated pools start or stop leaking; which deploy
templates a flavor newly selects or drops; which runbooks are added, removed or changed (their
steps old → new) and which nodes gain or lose the right to run each (Ironic's rule: a node
runs a runbook when it has one of its traits); which load-balancer flavor profiles and flavors
are added, removed or changed (a profile's provider and flavor data key by key, a flavor's
description, enabled and profile); which network flavors are added, removed or changed (their
description, service_type, enabled and service profiles); and the catalog's new errors and
warnings. The Nova changes, which profiles and flavors Octavia would replace and which network
flavors Neutron would replace or swap profiles of (each kind's sync plan's call), and the gates
are the caller's (they need the sync plans and the command's options)."""

from __future__ import annotations

import json
import uuid as uuidlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from flavorsmith.catalog.model import (
    Catalog,
    Flavor,
    LoadBalancerFlavor,
    LoadBalancerProfileDef,
    NetworkFlavorDef,
    RunbookDef,
)
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.errors import Invalid
from flavorsmith.ironic.runbooks import may_run
from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.pools import Leak, leaks
from flavorsmith.matching.reports import rules_of
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from flavorsmith.nova.derive import selected_templates

# The JSON document's version: a field removed or changed in meaning is a new version; a field
# added is not.
FORMAT_VERSION = 1


@dataclass(frozen=True)
class FlavorDiff:
    """One flavor's nodes before and after (None: the flavor is not in that revision)."""

    flavor: str
    matching_before: int | None
    matching_after: int | None
    available_before: int | None
    available_after: int | None
    templates_selected: tuple[str, ...] = ()
    templates_dropped: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        if self.available_before is None:
            return "added"
        if self.available_after is None:
            return "removed"
        return "kept"

    @property
    def available_change(self) -> int:
        return (self.available_after or 0) - (self.available_before or 0)

    @property
    def matching_change(self) -> int:
        return (self.matching_after or 0) - (self.matching_before or 0)

    @property
    def unschedulable(self) -> bool:
        """Newly unschedulable: in head without an available node, and either new or with
        some in base."""
        return self.available_after == 0 and self.available_before != 0

    @property
    def lost_percent(self) -> float:
        """The share of its available nodes a kept flavor loses (0 when it loses none)."""
        before, after = self.available_before, self.available_after
        if not before or after is None or after >= before:
            return 0.0
        return (before - after) * 100.0 / before

    @property
    def changed(self) -> bool:
        return (
            self.status != "kept"
            or self.available_change != 0
            or self.matching_change != 0
            or bool(self.templates_selected or self.templates_dropped)
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavor": self.flavor,
            "status": self.status,
            "matching": {"before": self.matching_before, "after": self.matching_after},
            "available": {
                "before": self.available_before,
                "after": self.available_after,
                "change": self.available_change,
            },
            "unschedulable": self.unschedulable,
            "templates": {
                "selected": list(self.templates_selected),
                "dropped": list(self.templates_dropped),
            },
        }


@dataclass(frozen=True)
class RunbookDiff:
    """One runbook's change: its definition before and after (None: not in that revision),
    and the nodes of the fleet that gain or lose the right to run it."""

    runbook: str
    before: RunbookDef | None
    after: RunbookDef | None
    may_run_before: int  # nodes of the fleet that may run it (0 where it is absent)
    may_run_after: int
    gaining: tuple[str, ...] = ()  # nodes that may run head's and not base's, by label
    losing: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed" if self.fields else "kept"

    @property
    def fields(self) -> list[str]:
        """The fields of Ironic's runbook that differ (none for an added or removed one)."""
        if self.before is None or self.after is None:
            return []
        old, new = _comparable(self.before), _comparable(self.after)
        return [name for name in old if old[name] != new[name]]

    @property
    def changed(self) -> bool:
        return self.status != "kept" or bool(self.gaining or self.losing)

    def as_dict(self) -> dict[str, Any]:
        return {
            "runbook": self.runbook,
            "status": self.status,
            "fields": self.fields,
            "traits": {
                "before": None if self.before is None else list(self.before.traits),
                "after": None if self.after is None else list(self.after.traits),
            },
            "steps": {"before": runbook_steps(self.before), "after": runbook_steps(self.after)},
            "nodes": {
                "before": self.may_run_before,
                "after": self.may_run_after,
                "gaining": list(self.gaining),
                "losing": list(self.losing),
            },
        }


def runbook_steps(runbook: RunbookDef | None) -> list[dict[str, Any]] | None:
    """A runbook's steps in the order Ironic runs them (None: no runbook)."""
    if runbook is None:
        return None
    return [
        {k: step[k] for k in ("order", "interface", "step", "args")}
        for step in runbook.ordered_steps()
    ]


def _comparable(runbook: RunbookDef) -> dict[str, Any]:
    """Ironic's runbook with its steps in order and its traits as a set (their order in the
    file does not matter to Ironic)."""
    return {
        **runbook.as_api(),
        "traits": sorted(set(runbook.traits)),
        "steps": runbook_steps(runbook),
    }


@dataclass(frozen=True)
class FieldChange:
    """One field of a definition (a load-balancer profile or flavor, a network flavor), old →
    new (None: absent there)."""

    field: str
    before: Any
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class LbProfileDiff:
    """One load-balancer flavor profile added, removed or changed; ``replaced``: Octavia would
    have it made again (it changes no profile a flavor uses)."""

    profile: str
    status: str  # added, removed, changed
    changes: tuple[FieldChange, ...] = ()
    replaced: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "status": self.status,
            "changes": [c.as_dict() for c in self.changes],
            "replaced": self.replaced,
        }


@dataclass(frozen=True)
class LbFlavorDiff:
    """One load-balancer flavor added, removed or changed, with its profile before and after;
    ``replaced``: Octavia would have it deleted and made again (its profile is replaced, or it
    moves to another one)."""

    flavor: str
    status: str  # added, removed, changed
    profile_before: str | None
    profile_after: str | None
    changes: tuple[FieldChange, ...] = ()
    replaced: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavor": self.flavor,
            "status": self.status,
            "profile": {"before": self.profile_before, "after": self.profile_after},
            "changes": [c.as_dict() for c in self.changes],
            "replaced": self.replaced,
        }


@dataclass(frozen=True)
class LbReplaced:
    """What Octavia would make again between two revisions, by the catalog's names: the
    profiles and the flavors (the load-balancer sync plan says which)."""

    profiles: frozenset[str] = frozenset()
    flavors: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LbChanges:
    """The load-balancer flavor profiles and flavors that change, each by name."""

    profiles: tuple[LbProfileDiff, ...] = ()
    flavors: tuple[LbFlavorDiff, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.profiles or self.flavors)

    def __len__(self) -> int:
        return len(self.profiles) + len(self.flavors)

    def as_dict(self) -> dict[str, Any]:
        return {
            "profiles": [p.as_dict() for p in self.profiles],
            "flavors": [f.as_dict() for f in self.flavors],
        }


def load_balancer_changes(
    base: Sequence[LoadBalancerProfileDef],
    head: Sequence[LoadBalancerProfileDef],
    replaced: LbReplaced = LbReplaced(),
) -> LbChanges:
    """Each profile and flavor added, removed or changed between ``base`` and ``head``, by
    name: a profile's provider and flavor data key by key (base's keys in their order, then
    head's new ones), a flavor's description, enabled and profile."""

    def profile_changes(
        was: LoadBalancerProfileDef, now: LoadBalancerProfileDef
    ) -> list[FieldChange]:
        changes = []
        if was.provider != now.provider:
            changes.append(FieldChange("provider", was.provider, now.provider))
        return changes + mapping_changes(was.flavor_data, now.flavor_data, "flavor_data.")

    profiles = [
        LbProfileDiff(c.name, c.status, c.changes, c.replaced)
        for c in by_name(
            {p.name: p for p in base}, {p.name: p for p in head}, profile_changes, replaced.profiles
        )
    ]

    def flavor_changes(
        was: tuple[str, LoadBalancerFlavor], now: tuple[str, LoadBalancerFlavor]
    ) -> list[FieldChange]:
        (old_profile, old_flavor), (new_profile, new_flavor) = was, now
        fields = []
        if old_profile != new_profile:
            fields.append(FieldChange("profile", old_profile, new_profile))
        if (old_flavor.description or "") != (new_flavor.description or ""):
            fields.append(
                FieldChange("description", old_flavor.description, new_flavor.description)
            )
        if old_flavor.enabled != new_flavor.enabled:
            fields.append(FieldChange("enabled", old_flavor.enabled, new_flavor.enabled))
        return fields

    flavors = [
        LbFlavorDiff(
            c.name,
            c.status,
            None if c.before is None else c.before[0],
            None if c.after is None else c.after[0],
            c.changes,
            c.replaced,
        )
        for c in by_name(
            {f.name: (p.name, f) for p in base for f in p.flavors},
            {f.name: (p.name, f) for p in head for f in p.flavors},
            flavor_changes,
            replaced.flavors,
        )
    ]
    return LbChanges(tuple(profiles), tuple(flavors))


T = TypeVar("T")


@dataclass(frozen=True)
class Compared(Generic[T]):
    """One definition of a kind as ``by_name`` finds it: added, removed or changed, its
    definition before and after (None where absent), the fields that differ, and whether the
    kind's sync plan would replace it."""

    name: str
    status: str  # added, removed, changed
    before: T | None
    after: T | None
    changes: tuple[FieldChange, ...] = ()
    replaced: bool = False


def by_name(
    base: Mapping[str, T],
    head: Mapping[str, T],
    compare: Callable[[T, T], list[FieldChange]],
    replaced: frozenset[str] = frozenset(),
) -> list[Compared[T]]:
    """The definitions of one kind added, removed or changed between ``base`` and ``head``, by
    name: a definition in both is changed when ``compare`` finds a field that differs or the
    kind's sync plan would replace it (``replaced`` names those), else left out."""
    out: list[Compared[T]] = []
    for name in sorted(base.keys() | head.keys()):
        was, now = base.get(name), head.get(name)
        if was is None or now is None:
            out.append(Compared(name, "added" if was is None else "removed", was, now))
            continue
        changes = compare(was, now)
        remade = name in replaced
        if changes or remade:
            out.append(Compared(name, "changed", was, now, tuple(changes), remade))
    return out


def mapping_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
) -> list[FieldChange]:
    """Each key of two mappings whose value differs, is added (``before`` None) or removed
    (``after`` None), named ``prefix`` + key: base's keys in their order, then head's new
    ones."""
    return [
        FieldChange(f"{prefix}{key}", before.get(key), after.get(key))
        for key in [*before, *(k for k in after if k not in before)]
        if before.get(key) != after.get(key) or (key in before) != (key in after)
    ]


@dataclass(frozen=True)
class NetReplaced:
    """What ``sync plan --only network-flavors`` would do in Neutron between two revisions, by
    the catalog's names: the flavors it would replace, and for each flavor it updates by
    swapping service profiles, the profiles made and associated and the ones removed (each as
    the catalog writes a profile)."""

    flavors: frozenset[str] = frozenset()
    made: Mapping[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    removed: Mapping[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class NetFlavorDiff:
    """One network flavor added, removed or changed; ``replaced``: Neutron would have it
    deleted and made again (its service_type changes); ``made`` and ``removed``: the service
    profiles an update swaps (Neutron changes no profile a flavor uses)."""

    flavor: str
    status: str  # added, removed, changed
    changes: tuple[FieldChange, ...] = ()
    replaced: bool = False
    made: tuple[dict[str, Any], ...] = ()
    removed: tuple[dict[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "flavor": self.flavor,
            "status": self.status,
            "changes": [c.as_dict() for c in self.changes],
            "replaced": self.replaced,
            "profiles": {"made": list(self.made), "removed": list(self.removed)},
        }


PROFILES_FIELD = "service_profiles"


def network_flavor_changes(
    base: Sequence[NetworkFlavorDef],
    head: Sequence[NetworkFlavorDef],
    replaced: NetReplaced = NetReplaced(),
) -> list[NetFlavorDiff]:
    """Each network flavor added, removed or changed between ``base`` and ``head``, by name:
    its description, service_type and enabled as Neutron holds them, then its service
    profiles by position (``service_profiles[N].driver``, ..., or ``service_profiles[N]``
    whole for one only one side has); profiles listed in another order are no change."""

    def compare(was: NetworkFlavorDef, now: NetworkFlavorDef) -> list[FieldChange]:
        changes = mapping_changes(_net_fields(was), _net_fields(now))
        old = [p.as_dict() for p in was.service_profiles]
        new = [p.as_dict() for p in now.service_profiles]
        if sorted(map(_key, old)) == sorted(map(_key, new)):
            return changes
        for index in range(max(len(old), len(new))):
            at = f"{PROFILES_FIELD}[{index}]"
            if index < len(old) and index < len(new):
                changes += mapping_changes(old[index], new[index], f"{at}.")
            elif index < len(old):
                changes.append(FieldChange(at, old[index], None))
            else:
                changes.append(FieldChange(at, None, new[index]))
        return changes

    return [
        NetFlavorDiff(
            c.name,
            c.status,
            c.changes,
            c.replaced,
            replaced.made.get(c.name, ()) if c.status == "changed" else (),
            replaced.removed.get(c.name, ()) if c.status == "changed" else (),
        )
        for c in by_name(
            {f.name: f for f in base}, {f.name: f for f in head}, compare, replaced.flavors
        )
    ]


def _net_fields(flavor: NetworkFlavorDef) -> dict[str, Any]:
    """A network flavor's own fields as Neutron holds them (no description is "")."""
    return {
        "description": flavor.description or "",
        "service_type": flavor.service_type,
        "enabled": flavor.enabled,
    }


def _key(profile: Mapping[str, Any]) -> str:
    return json.dumps(profile, sort_keys=True)


@dataclass(frozen=True)
class Fleet:
    """What a what-if did to the nodes: how many before and after, retired and added."""

    nodes_before: int
    nodes_after: int
    retired: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes_before": self.nodes_before,
            "nodes_after": self.nodes_after,
            "retired": list(self.retired),
            "added": list(self.added),
        }


@dataclass(frozen=True)
class Review:
    flavors: list[FlavorDiff]  # every flavor of either revision, by name
    nodes_unusable: list[str]  # matched by a base flavor, by no head flavor
    nodes_usable: list[str]  # matched by no base flavor, by a head flavor
    leaks_started: list[Leak]
    leaks_stopped: list[Leak]
    errors: list[Diagnostic]  # head's, not base's
    warnings: list[Diagnostic]
    fleet: Fleet
    nova: list[dict[str, Any]] = field(default_factory=list)  # the sync plan's writes
    runbooks: list[RunbookDiff] = field(default_factory=list)  # the changed ones, by name
    load_balancers: LbChanges = LbChanges()
    network_flavors: list[NetFlavorDiff] = field(default_factory=list)  # by name

    @property
    def changed_flavors(self) -> list[FlavorDiff]:
        return [f for f in self.flavors if f.changed]

    @property
    def unschedulable(self) -> list[FlavorDiff]:
        return [f for f in self.flavors if f.unschedulable]

    @property
    def has_effects(self) -> bool:
        return bool(
            self.changed_flavors
            or self.nodes_unusable
            or self.nodes_usable
            or self.leaks_started
            or self.leaks_stopped
            or self.errors
            or self.warnings
            or self.nova
            or self.runbooks
            or self.load_balancers
            or self.network_flavors
            or self.fleet.retired
            or self.fleet.added
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "headline": headline(self),
            "fleet": self.fleet.as_dict(),
            "flavors": [f.as_dict() for f in self.changed_flavors],
            "unschedulable": [f.flavor for f in self.unschedulable],
            "nodes": {"unusable": self.nodes_unusable, "usable": self.nodes_usable},
            "pool_leaks": {
                "started": [leak.as_dict() for leak in self.leaks_started],
                "stopped": [leak.as_dict() for leak in self.leaks_stopped],
            },
            "nova": self.nova,
            "runbooks": [r.as_dict() for r in self.runbooks],
            "load_balancer_flavors": self.load_balancers.as_dict(),
            "network_flavors": [f.as_dict() for f in self.network_flavors],
            "diagnostics": {
                "errors": [d.as_dict() for d in self.errors],
                "warnings": [d.as_dict() for d in self.warnings],
            },
        }


def review(
    base: Catalog,
    head: Catalog,
    before: Index,
    after: Index | None = None,
    *,
    base_diagnostics: Sequence[Diagnostic] = (),
    head_diagnostics: Sequence[Diagnostic] = (),
    fleet: Fleet | None = None,
    lb_replaced: LbReplaced = LbReplaced(),
    net_replaced: NetReplaced = NetReplaced(),
) -> Review:
    """The diff of ``base`` matched on ``before`` and ``head`` matched on ``after`` (the same
    index when omitted: the fleet does not change); ``lb_replaced``: the load-balancer profiles
    and flavors Octavia would make again, as the sync plan says; ``net_replaced``: what the
    network flavors' sync plan would replace or swap in Neutron."""
    after = before if after is None else after
    base_bits = _matches(base, before)
    head_bits = _matches(head, after)
    base_flavors = {f.name: f for f in base.flavors}
    head_flavors = {f.name: f for f in head.flavors}
    diffs = []
    for name in sorted(base_bits.keys() | head_bits.keys()):
        was, now = base_bits.get(name), head_bits.get(name)
        old = selected(base_flavors.get(name), base)
        new = selected(head_flavors.get(name), head)
        diffs.append(
            FlavorDiff(
                flavor=name,
                matching_before=None if was is None else was.bit_count(),
                matching_after=None if now is None else now.bit_count(),
                available_before=None if was is None else (was & before.available).bit_count(),
                available_after=None if now is None else (now & after.available).bit_count(),
                templates_selected=tuple(t for t in new if t not in old)
                if name in head_flavors
                else (),
                templates_dropped=tuple(t for t in old if t not in new)
                if name in head_flavors
                else (),
            )
        )
    unusable, usable = _node_changes(before, after, base_bits.values(), head_bits.values())
    old_leaks = {(x.pool, x.reached_by): x for x in leaks(base.flavors, before)}
    new_leaks = {(x.pool, x.reached_by): x for x in leaks(head.flavors, after)}
    errors, warnings = new_diagnostics(base_diagnostics, head_diagnostics)
    return Review(
        flavors=diffs,
        nodes_unusable=unusable,
        nodes_usable=usable,
        leaks_started=[x for k, x in new_leaks.items() if k not in old_leaks],
        leaks_stopped=[x for k, x in old_leaks.items() if k not in new_leaks],
        errors=errors,
        warnings=warnings,
        fleet=fleet or Fleet(len(before.snapshot.nodes), len(after.snapshot.nodes)),
        runbooks=runbook_changes(base.runbooks, head.runbooks, before, after),
        load_balancers=load_balancer_changes(
            base.load_balancer_profiles, head.load_balancer_profiles, lb_replaced
        ),
        network_flavors=network_flavor_changes(
            base.network_flavors, head.network_flavors, net_replaced
        ),
    )


def runbook_changes(
    base: Sequence[RunbookDef], head: Sequence[RunbookDef], before: Index, after: Index
) -> list[RunbookDiff]:
    """Each runbook added, removed or changed, or that nodes gain or lose the right to run,
    by name. Gaining and losing count the nodes of both fleets (a what-if's retired and added
    nodes are the fleet's change, not the runbook's), by label."""
    old = {r.name: r for r in base}
    new = {r.name: r for r in head}
    kept = {n.uuid for n in before.snapshot.nodes} & {n.uuid for n in after.snapshot.nodes}
    out = []
    for name in sorted(old.keys() | new.keys()):
        was, now = old.get(name), new.get(name)
        if before is after and was and now and _comparable(was) == _comparable(now):
            continue  # the same runbook on the same nodes
        may_before = _may_run(was, before)
        may_after = _may_run(now, after)
        diff = RunbookDiff(
            runbook=name,
            before=was,
            after=now,
            may_run_before=len(may_before),
            may_run_after=len(may_after),
            gaining=tuple(
                _labels(
                    n
                    for n in after.snapshot.nodes
                    if n.uuid in kept and n.uuid in may_after and n.uuid not in may_before
                )
            ),
            losing=tuple(
                _labels(
                    n
                    for n in after.snapshot.nodes
                    if n.uuid in kept and n.uuid in may_before and n.uuid not in may_after
                )
            ),
        )
        if diff.changed:
            out.append(diff)
    return out


def _may_run(runbook: RunbookDef | None, index: Index) -> set[str]:
    """The UUIDs of the nodes of ``index`` that may run ``runbook`` (none when absent)."""
    if runbook is None:
        return set()
    return {n.uuid for n in index.snapshot.nodes if may_run(runbook.traits, n.traits)}


def selected(flavor: Flavor | None, catalog: Catalog) -> tuple[str, ...]:
    return () if flavor is None else selected_templates(flavor, catalog.deploy_templates)


def _matches(catalog: Catalog, index: Index) -> dict[str, int]:
    return {rule.name: index.match(rule) for rule in rules_of(catalog)}


def _node_changes(
    before: Index, after: Index, base_bits: Iterable[int], head_bits: Iterable[int]
) -> tuple[list[str], list[str]]:
    """The nodes of both fleets that a base flavor matched and no head flavor does, and the
    other way round: their labels, sorted."""
    was = _union(base_bits)
    now = _union(head_bits)
    if before is after:
        nodes = before.snapshot.nodes
        return (
            _labels(nodes[p] for p in positions(was & ~now)),
            _labels(nodes[p] for p in positions(now & ~was)),
        )
    old = {before.snapshot.nodes[p].uuid for p in positions(was)}
    kept = {n.uuid for n in before.snapshot.nodes}
    new_nodes = after.snapshot.nodes
    now_used = {new_nodes[p].uuid for p in positions(now)}
    return (
        _labels(n for n in new_nodes if n.uuid in old and n.uuid not in now_used),
        _labels(n for n in new_nodes if n.uuid in kept and n.uuid in now_used - old),
    )


def _labels(nodes: Iterable[NodeInfo]) -> list[str]:
    """The nodes' labels, sorted: a report names them in the same order whichever source
    listed the fleet (a nodes file in its order, Ironic by UUID)."""
    return sorted(n.label for n in nodes)


def _union(bitmaps: Iterable[int]) -> int:
    out = 0
    for bits in bitmaps:
        out |= bits
    return out


def new_diagnostics(
    base: Sequence[Diagnostic], head: Sequence[Diagnostic]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Head's errors and warnings that base does not have, compared by file, severity and
    message (a line that moved is the same finding)."""
    known = {(d.path, d.severity, d.message) for d in base}
    fresh = sorted(d for d in head if (d.path, d.severity, d.message) not in known)
    return (
        [d for d in fresh if d.severity is Severity.ERROR],
        [d for d in fresh if d.severity is Severity.WARNING],
    )


def headline(result: Review, limit: int = 5) -> str:
    """One line for a pull request: each flavor whose available nodes change, then the ones
    that become unschedulable, appear or go, the leaks that start, the new errors."""
    parts: list[str] = []
    for diff in result.flavors:
        if diff.status == "added":
            parts.append(f"{diff.flavor} added ({diff.available_after} nodes)")
        elif diff.status == "removed":
            parts.append(f"{diff.flavor} removed")
        elif diff.available_change:
            parts.append(
                f"{diff.flavor}: {diff.available_before} → {diff.available_after} nodes "
                f"({signed(diff.available_change)})"
            )
    parts += [f"{d.flavor} becomes unschedulable" for d in result.unschedulable]
    parts += [f"{x.pool} starts leaking to {x.reached_by}" for x in result.leaks_started]
    parts += [_runbook_part(r) for r in result.runbooks]
    lbs = result.load_balancers
    parts += [_lb_part("load-balancer profile", p.profile, p) for p in lbs.profiles]
    # A flavor made again only because its profile is: the profile's part says it.
    parts += [
        _lb_part("load-balancer flavor", f.flavor, f)
        for f in lbs.flavors
        if f.status != "changed" or f.changes
    ]
    parts += [_lb_part("network flavor", f.flavor, f) for f in result.network_flavors]
    if result.nodes_unusable:
        parts.append(f"{_count(len(result.nodes_unusable), 'node')} no flavor can use")
    if result.errors:
        parts.append(f"{_count(len(result.errors), 'new catalog error')}")
    if not parts:
        return "no change to what can be sold" if not result.has_effects else "no capacity change"
    shown = parts[:limit]
    if len(parts) > limit:
        shown.append(f"and {len(parts) - limit} more")
    return "; ".join(shown)


def _runbook_part(diff: RunbookDiff) -> str:
    """``runbook NAME added (N nodes may run it)``, ``runbook NAME removed``, ``runbook NAME
    changed (steps): B → A nodes may run it (±C)``."""
    if diff.status == "added":
        return f"runbook {diff.runbook} added ({_count(diff.may_run_after, 'node')} may run it)"
    if diff.status == "removed":
        return f"runbook {diff.runbook} removed"
    said = f"runbook {diff.runbook}"
    if diff.fields:
        said += f" changed ({', '.join(diff.fields)})"
    count = diff.may_run_after - diff.may_run_before
    if count:
        said += f": {diff.may_run_before} → {diff.may_run_after} nodes may run it ({signed(count)})"
    return said


def _lb_part(noun: str, name: str, diff: LbProfileDiff | LbFlavorDiff | NetFlavorDiff) -> str:
    """``load-balancer profile NAME changed (flavor_data.compute_flavor), replaced``,
    ``load-balancer flavor NAME added``, ``network flavor NAME changed (service_type),
    replaced``."""
    said = f"{noun} {name} {diff.status}"
    if diff.changes:
        said += f" ({', '.join(c.field for c in diff.changes)})"
    if diff.replaced:
        said += ", replaced"
    return said


def signed(number: int) -> str:
    """``+4``, ``\N{MINUS SIGN}40`` (a minus sign, as typeset), ``0``."""
    return f"+{number}" if number > 0 else f"{MINUS}{-number}" if number < 0 else "0"


MINUS = "\N{MINUS SIGN}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


# What-if on the fleet.


def retire(snapshot: Snapshot, catalog: Catalog, what: str) -> tuple[Snapshot, tuple[str, ...]]:
    """The fleet without the nodes ``what`` names: a device type (its model, or manufacturer
    and model), a resource class, or nodes (names or UUIDs, comma-separated); and their
    labels, sorted. Naming nothing of these is an Invalid."""
    wanted = what.strip()
    classes: set[str] = set()
    for device in catalog.device_types:
        if wanted.lower() in (
            device.model.lower(),
            f"{device.manufacturer} {device.model}".lower(),
        ):
            classes.update(rc.name for rc in device.resource_classes)
    if not classes and any(n.resource_class == wanted for n in snapshot.nodes):
        classes = {wanted}
    if classes:
        gone = [n for n in snapshot.nodes if n.resource_class in classes]
    else:
        idents = [i.strip() for i in wanted.split(",") if i.strip()]
        missing = [i for i in idents if snapshot.find(i) is None]
        if missing or not idents:
            raise Invalid(
                f"--retire {what!r}: no device type, resource class or node of that name "
                f"({', '.join(missing) or 'nothing named'})"
            )
        at = {snapshot.find(i) for i in idents}
        gone = [snapshot.nodes[p] for p in sorted(p for p in at if p is not None)]
    dropped = {n.uuid for n in gone}
    kept = tuple(n for n in snapshot.nodes if n.uuid not in dropped)
    return Snapshot(kept, snapshot.generation), tuple(_labels(gone))


def add(snapshot: Snapshot, spec: str) -> tuple[Snapshot, tuple[str, ...]]:
    """The fleet with ``COUNT:LIKE_NODE`` more nodes: each with the resource class and traits
    of that node, idle and ready to schedule, named ``LIKE_NODE+new-N``; and their labels."""
    count_text, sep, like = spec.partition(":")
    if not sep or not count_text.strip().isdigit() or int(count_text) < 1 or not like.strip():
        raise Invalid(f"--add {spec!r}: give COUNT:LIKE_NODE, e.g. 40:r7615-a01-u02")
    at = snapshot.find(like.strip())
    if at is None:
        raise Invalid(f"--add {spec!r}: no node named {like.strip()!r}")
    model = snapshot.nodes[at]
    taken = {n.name for n in snapshot.nodes}
    new: list[NodeInfo] = []
    number = 0
    while len(new) < int(count_text):
        number += 1
        name = f"{model.label}+new-{number}"
        if name in taken:
            continue
        new.append(_like(model, name))
    return Snapshot(snapshot.nodes + tuple(new), snapshot.generation), tuple(n.label for n in new)


def _like(model: NodeInfo, name: str) -> NodeInfo:
    return NodeInfo(
        uuid=str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"flavorsmith-review:{name}")),
        name=name,
        resource_class=model.resource_class,
        traits=model.traits,
    )


def nova_entries(actions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The sync plan's writes as the review shows them, by flavor."""
    return sorted((dict(a) for a in actions), key=lambda a: (a["flavor"], a["action"]))


# Gates for CI.

GATES = ("unschedulable", "leak", "loss:N", "error")


@dataclass(frozen=True)
class Tripped:
    """A ``--fail-on`` condition that holds, and what makes it hold."""

    condition: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"condition": self.condition, "detail": self.detail}


def check_gate(condition: str) -> str:
    """``condition`` as given, when it is one of GATES (``loss:N`` with N a percentage from 0
    to 100, a ``%`` allowed); an Invalid otherwise."""
    name, _, value = condition.partition(":")
    if name in ("unschedulable", "leak", "error") and not value:
        return condition
    if name == "loss":
        try:
            percent = float(value.removesuffix("%"))
        except ValueError:
            percent = -1.0
        if 0 <= percent <= 100:
            return condition
    raise Invalid(
        f"unknown condition {condition!r}: give unschedulable, leak, loss:N (a percentage) or error"
    )


def tripped(result: Review, conditions: Sequence[str], *, strict: bool = False) -> list[Tripped]:
    """The conditions that hold, in the order given; with ``strict``, a new warning trips
    ``error`` as a new error does."""
    out: list[Tripped] = []
    for condition in conditions:
        name, _, value = check_gate(condition).partition(":")
        if name == "unschedulable":
            details = [f"{d.flavor} becomes unschedulable" for d in result.unschedulable]
        elif name == "leak":
            details = [leak.summary() for leak in result.leaks_started]
        elif name == "loss":
            limit = float(value.removesuffix("%"))
            details = [
                f"{d.flavor} loses {d.lost_percent:.0f} % of its available nodes "
                f"({d.available_before} → {d.available_after})"
                for d in result.flavors
                if d.lost_percent > limit
            ]
        else:
            found = [*result.errors, *(result.warnings if strict else ())]
            details = [f"{d.path}:{d.line}: {d.message}" for d in found]
        out += [Tripped(condition, detail) for detail in details]
    return out
