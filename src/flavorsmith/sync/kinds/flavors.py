"""The flavor kind: the catalog's flavors, derived into Nova flavors, kept equal in a Nova
(the service's own compute API or a real one).

Identity is the flavor id (= the catalog name); ownership is the extra spec
``flavorsmith:managed=true`` on the flavor itself, visible to operators and kept across
restarts. Nova cannot change vcpus, ram, disk, swap, ephemeral or is_public in place, so
those are a replace: delete and create again with the same id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from flavorsmith.catalog.model import Catalog
from flavorsmith.nova.derive import DerivedFlavor, derive
from flavorsmith.sync.engine import Kind, Step

MARKER = "flavorsmith:managed"
MARKER_VALUE = "true"
IMMUTABLE = ("vcpus", "ram", "disk", "swap", "ephemeral", "is_public")


@dataclass(frozen=True)
class ObservedFlavor:
    id: str
    name: str
    vcpus: int
    ram: int
    disk: int
    swap: int
    ephemeral: int
    is_public: bool
    description: str | None
    extra_specs: Mapping[str, str]
    projects: tuple[str, ...] = ()

    @property
    def managed(self) -> bool:
        return self.extra_specs.get(MARKER) == MARKER_VALUE


@dataclass(frozen=True)
class Action:
    """One step. ``kind``: create, update, access, replace, delete, keep (managed, gone from
    the catalog, no --prune), unmanaged, conflict, noop."""

    kind: str
    flavor: str
    reason: str
    desired: DerivedFlavor | None = None
    set_specs: dict[str, str] = field(default_factory=dict)
    unset_specs: tuple[str, ...] = ()
    description: str | None = None
    change_description: bool = False
    add_projects: tuple[str, ...] = ()
    remove_projects: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        return self.flavor

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "access", "replace", "delete")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind, "flavor": self.flavor, "reason": self.reason}
        if self.set_specs:
            out["set_extra_specs"] = dict(self.set_specs)
        if self.unset_specs:
            out["unset_extra_specs"] = list(self.unset_specs)
        if self.change_description:
            out["description"] = self.description
        if self.add_projects:
            out["add_projects"] = list(self.add_projects)
        if self.remove_projects:
            out["remove_projects"] = list(self.remove_projects)
        return out


def desired_specs(flavor: DerivedFlavor) -> dict[str, str]:
    return {**flavor.extra_specs, MARKER: MARKER_VALUE}


def _immutable(flavor: DerivedFlavor) -> dict[str, Any]:
    return {k: getattr(flavor, k) for k in IMMUTABLE}


def _observed_immutable(flavor: ObservedFlavor) -> dict[str, Any]:
    return {k: getattr(flavor, k) for k in IMMUTABLE}


def _interrupted(want: DerivedFlavor, have: ObservedFlavor) -> bool:
    """A bare flavor exactly like ours, with no extra specs at all: our own create that was
    cut off before it could mark the flavor. Adopting it lets a killed sync converge."""
    return (
        not have.extra_specs
        and _immutable(want) == _observed_immutable(have)
        and have.name == want.name
    )


def plan(
    desired: Sequence[DerivedFlavor], observed: Mapping[str, ObservedFlavor], prune: bool = False
) -> list[Action]:
    """The pure diff; ``prune`` deletes managed flavors gone from the catalog."""
    actions: list[Action] = []
    names = {o.name: o for o in observed.values()}
    wanted_ids = {d.id for d in desired}
    for want in sorted(desired, key=lambda d: d.id):
        have = observed.get(want.id)
        if have is None:
            clash = names.get(want.name)
            if clash is not None and clash.id != want.id:
                actions.append(
                    Action(
                        "conflict",
                        want.id,
                        f"Nova has a flavor named {want.name!r} with id {clash.id!r}; rename "
                        "or delete it",
                        want,
                    )
                )
            else:
                actions.append(Action("create", want.id, "in the catalog, not in Nova", want))
            continue
        if not have.managed and not _interrupted(want, have):
            actions.append(
                Action(
                    "conflict",
                    want.id,
                    f"a flavor with id {want.id!r} exists but is not managed by Flavorsmith "
                    f"(no {MARKER}={MARKER_VALUE}); set that extra spec to adopt it, or delete it",
                    want,
                )
            )
            continue
        changed = [k for k in IMMUTABLE if getattr(want, k) != getattr(have, k)]
        if changed:
            details = ", ".join(f"{k} {getattr(have, k)} -> {getattr(want, k)}" for k in changed)
            actions.append(
                Action(
                    "replace",
                    want.id,
                    f"Nova cannot change {details} in place; delete and create with the same id",
                    want,
                )
            )
            continue
        actions += _in_place(want, have)
    for have in sorted(observed.values(), key=lambda o: o.id):
        if have.id in wanted_ids:
            continue
        if not have.managed:
            actions.append(Action("unmanaged", have.id, "not created by Flavorsmith; left alone"))
        elif prune:
            actions.append(
                Action("delete", have.id, "managed by Flavorsmith and no longer in the catalog")
            )
        else:
            actions.append(
                Action("keep", have.id, "managed but no longer in the catalog; --prune deletes it")
            )
    return actions


def _in_place(want: DerivedFlavor, have: ObservedFlavor) -> list[Action]:
    actions: list[Action] = []
    specs = desired_specs(want)
    to_set = {k: v for k, v in specs.items() if have.extra_specs.get(k) != v}
    to_unset = tuple(sorted(k for k in have.extra_specs if k not in specs))
    reasons = []
    if want.description != have.description:
        reasons.append("description changed")
    if to_set:
        reasons.append(f"extra specs to set: {', '.join(sorted(to_set))}")
    if to_unset:
        reasons.append(f"extra specs to unset: {', '.join(to_unset)}")
    if reasons:
        actions.append(
            Action(
                "update",
                want.id,
                "; ".join(reasons),
                want,
                set_specs=to_set,
                unset_specs=to_unset,
                description=want.description,
                change_description=want.description != have.description,
            )
        )
    if not want.is_public:
        add = tuple(sorted(set(want.projects) - set(have.projects)))
        remove = tuple(sorted(set(have.projects) - set(want.projects)))
        if add or remove:
            parts = ([f"give {', '.join(add)}"] if add else []) + (
                [f"take back from {', '.join(remove)}"] if remove else []
            )
            actions.append(
                Action(
                    "access",
                    want.id,
                    "; ".join(parts),
                    want,
                    add_projects=add,
                    remove_projects=remove,
                )
            )
    if not actions:
        actions.append(Action("noop", want.id, "up to date", want))
    return actions


SpecCheck = Callable[[str, str], bool]
"""``(key, value) -> True`` when a target would refuse that extra spec. The one place the
extra-spec rules reach the flavor kind: a real Nova's target is given one (it writes the
keys stock Nova refuses at a microversion that does not validate them)."""


class FlavorTarget(Protocol):
    """A Nova's flavors, as the steps of this kind call them."""

    calls: int

    def observe(self) -> dict[str, ObservedFlavor]: ...
    def create(self, flavor: DerivedFlavor) -> None: ...
    def delete(self, flavor_id: str) -> None: ...
    def set_description(self, flavor_id: str, description: str | None) -> None: ...
    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None: ...
    def unset_spec(self, flavor_id: str, key: str) -> None: ...
    def add_project(self, flavor_id: str, project: str) -> None: ...
    def remove_project(self, flavor_id: str, project: str) -> None: ...


def desired(catalog: Catalog) -> list[DerivedFlavor]:
    """The Nova flavors of every catalog flavor whose resource class resolves."""
    return derive(catalog)[0]


def steps(action: Action, target: FlavorTarget) -> list[Step]:
    """The target calls that carry out one action."""
    flavor_id = action.flavor
    want = action.desired
    out: list[Step] = []
    if action.kind in ("create", "replace"):
        assert want is not None
        if action.kind == "replace":
            out.append(partial(target.delete, flavor_id))
        out.append(partial(target.create, want))
        out.append(partial(target.set_specs, flavor_id, desired_specs(want)))
        if not want.is_public:
            out += [partial(target.add_project, flavor_id, p) for p in want.projects]
    elif action.kind == "update":
        if action.change_description:
            out.append(partial(target.set_description, flavor_id, action.description))
        if action.set_specs:
            out.append(partial(target.set_specs, flavor_id, action.set_specs))
        out += [partial(target.unset_spec, flavor_id, k) for k in action.unset_specs]
    elif action.kind == "access":
        out += [partial(target.add_project, flavor_id, p) for p in action.add_projects]
        out += [partial(target.remove_project, flavor_id, p) for p in action.remove_projects]
    elif action.kind == "delete":
        out.append(partial(target.delete, flavor_id))
    return out


KIND: Kind[list[DerivedFlavor], ObservedFlavor, Action, FlavorTarget] = Kind(
    name="flavors",
    noun="flavors",
    subject="flavor",
    service="compute",
    desired=desired,
    plan=plan,
    steps=steps,
)
