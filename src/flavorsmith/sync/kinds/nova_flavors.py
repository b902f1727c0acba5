"""The flavor kind: the catalog's flavors, derived into Nova flavors, kept equal in a Nova
(the service's own compute API or a real one).

Identity is the flavor id (= the catalog name); ownership is the extra spec
``flavorsmith:managed=true`` on the flavor itself, visible to operators and kept across
restarts. Nova cannot change vcpus, ram, disk, swap, ephemeral or is_public in place, so
those are a replace: delete and create again with the same id.

A flavor is written whole where the target allows it: the service's own database creates,
replaces and repairs a flavor with its extra specs and its access in one transaction
(``WholeFlavors.put``). A real Nova takes them as separate calls, in the order that shows no
project a flavor before it is complete where Nova allows it (``SdkFlavors``). What an
interrupted sync leaves there — a flavor with the catalog's id, name and properties, without
the marker, and only some of the catalog's extra specs and access — is ours, half-made, and
the next plan repairs it (``half_made``, action ``repair``).

A plan that deletes or replaces a flavor says how many servers use it (``count_servers``): a
real Nova is asked (``GET /servers?all_tenants=1&flavor=ID``, paged; the credential's own
project only when it may not list every project's); the service's own compute API holds no
servers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

from flavorsmith.catalog.model import Catalog
from flavorsmith.clients.nova import NovaTarget
from flavorsmith.errors import TargetError
from flavorsmith.nova.derive import DerivedFlavor, derive
from flavorsmith.servers_in_use import ALL_PROJECTS, Servers
from flavorsmith.store import nova_flavors as flavor_store
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change
from flavorsmith.sync.store_target import StoreTarget
from flavorsmith.visibility import OPERATOR

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
    """One step. ``kind``: create, update, access, replace, delete, repair (a half-made flavor
    completed), keep (managed, gone from the catalog, no --prune), unmanaged, conflict,
    noop."""

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
    observed: ObservedFlavor | None = field(default=None, compare=False)  # as it is now
    # A delete or a replace: the servers that use the flavor, as the target counted them.
    servers: Servers | None = field(default=None, compare=False)

    @property
    def subject(self) -> str:
        return self.flavor

    @property
    def name(self) -> str:
        """The flavor's name (its id is the subject)."""
        if self.observed is not None:
            return self.observed.name
        return self.desired.name if self.desired is not None else self.flavor

    @property
    def changes(self) -> tuple[Change, ...]:
        """Every attribute a create sets; what an update, an access change or a replace
        changes, old and new (``extra_specs.KEY`` key by key, ``access`` one project each)."""
        want, have = self.desired, self.observed
        if self.kind == "create" and want is not None:
            return _created(want)
        if self.kind == "replace" and want is not None and have is not None:
            forced = tuple(
                Change("change", k, getattr(have, k), getattr(want, k), forces=True)
                for k in IMMUTABLE
                if getattr(want, k) != getattr(have, k)
            )
            rest = _description(want, have) + _spec_changes(
                desired_specs(want),
                have.extra_specs,
                tuple(sorted(k for k in have.extra_specs if k not in desired_specs(want))),
            )
            return forced + rest
        if self.kind in ("update", "repair") and have is not None:
            described = _description(want, have) if self.change_description else ()
            specs = _spec_changes(self.set_specs, have.extra_specs, self.unset_specs)
            return described + specs + self._access_changes()
        if self.kind == "access":
            return self._access_changes()
        return ()

    def _access_changes(self) -> tuple[Change, ...]:
        return tuple(Change("add", "access", new=p) for p in self.add_projects) + tuple(
            Change("remove", "access", old=p) for p in self.remove_projects
        )

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "access", "replace", "delete", "repair")

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


def _created(want: DerivedFlavor) -> tuple[Change, ...]:
    plain = ("id", "name", "description", *IMMUTABLE)
    out = [Change("add", k, new=getattr(want, k)) for k in plain]
    specs = desired_specs(want)
    out += [Change("add", f"extra_specs.{k}", new=specs[k]) for k in sorted(specs)]
    if not want.is_public:
        out += [Change("add", "access", new=p) for p in sorted(want.projects)]
    return tuple(out)


def _description(want: DerivedFlavor | None, have: ObservedFlavor) -> tuple[Change, ...]:
    if want is None or want.description == have.description:
        return ()
    return (Change("change", "description", have.description, want.description),)


def _spec_changes(
    to_set: Mapping[str, str], have: Mapping[str, str], to_unset: tuple[str, ...]
) -> tuple[Change, ...]:
    out = [
        Change("add", f"extra_specs.{k}", new=v)
        if k not in have
        else Change("change", f"extra_specs.{k}", have[k], v)
        for k, v in sorted(to_set.items())
        if have.get(k) != v
    ]
    out += [Change("remove", f"extra_specs.{k}", old=have[k]) for k in to_unset if k in have]
    return tuple(out)


def _immutable(flavor: DerivedFlavor) -> dict[str, Any]:
    return {k: getattr(flavor, k) for k in IMMUTABLE}


def _observed_immutable(flavor: ObservedFlavor) -> dict[str, Any]:
    return {k: getattr(flavor, k) for k in IMMUTABLE}


def half_made(want: DerivedFlavor, have: ObservedFlavor) -> bool:
    """Whether ``have`` is ``want`` as a sync interrupted between its steps left it: not
    marked (the marker is written with the last extra specs), the catalog's id, name and
    every property Nova cannot change (vcpus, ram, disk, swap, ephemeral, is_public), and
    nothing but some of the catalog's own extra specs (with the catalog's values) and
    projects. Nothing foreign on it, so completing it is what the catalog asks for anyway."""
    specs = desired_specs(want)
    return (
        not have.managed
        and have.id == want.id
        and have.name == want.name
        and _immutable(want) == _observed_immutable(have)
        and all(specs.get(k) == v for k, v in have.extra_specs.items())
        and set(have.projects) <= set(want.projects)
    )


def _repair(want: DerivedFlavor, have: ObservedFlavor) -> Action:
    """Complete a half-made flavor in place: its missing extra specs (the marker among
    them), its description, its missing projects."""
    specs = desired_specs(want)
    to_set = {k: v for k, v in specs.items() if have.extra_specs.get(k) != v}
    add = tuple(sorted(set(want.projects) - set(have.projects))) if not want.is_public else ()
    described = want.description != have.description
    todo = ["set its extra specs"]
    if described:
        todo.append("change its description")
    if add:
        todo.append("give it its projects")
    return Action(
        "repair",
        want.id,
        f"half-made: the catalog's name and properties without the marker {MARKER}="
        f"{MARKER_VALUE} (a sync interrupted between its steps); {'; '.join(todo)}",
        want,
        set_specs=to_set,
        description=want.description,
        change_description=described,
        add_projects=add,
        observed=have,
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
        if half_made(want, have):
            actions.append(_repair(want, have))
            continue
        if not have.managed:
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
                    observed=have,
                )
            )
            continue
        actions += _in_place(want, have)
    for have in sorted(observed.values(), key=lambda o: o.id):
        if have.id in wanted_ids:
            continue
        if not have.managed:
            actions.append(
                Action(
                    "unmanaged", have.id, "not created by Flavorsmith; left alone", observed=have
                )
            )
        elif prune:
            actions.append(
                Action(
                    "delete",
                    have.id,
                    "managed by Flavorsmith and no longer in the catalog",
                    observed=have,
                )
            )
        else:
            actions.append(
                Action("keep", have.id, "managed but no longer in the catalog; --prune deletes it")
            )
    return actions


def _in_place(want: DerivedFlavor, have: ObservedFlavor) -> list[Action]:
    """The update and access actions that make a managed ``have`` ``want``."""
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
                observed=have,
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
                    observed=have,
                )
            )
    if not actions:
        actions.append(Action("noop", want.id, "up to date", want))
    return actions


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
    def check_projects(self, flavor: str, projects: tuple[str, ...]) -> None: ...
    def servers_using(self, flavor_id: str) -> Servers: ...


@runtime_checkable
class WholeFlavors(Protocol):
    """A target that writes a whole flavor (with its extra specs and its access) in one
    transaction: the service's own database. A real Nova cannot; it gets one call a piece."""

    def put(self, flavor: DerivedFlavor, *, replace: bool) -> None: ...


def count_servers(actions: Sequence[Action], target: FlavorTarget) -> list[Action]:
    """``actions``, each delete and replace with the servers that use its flavor."""
    return [
        replace(a, servers=target.servers_using(a.flavor)) if a.kind in ("delete", "replace") else a
        for a in actions
    ]


def desired(catalog: Catalog) -> list[DerivedFlavor]:
    """The Nova flavors of every catalog flavor whose resource class resolves."""
    return derive(catalog)[0]


def steps(action: Action, target: FlavorTarget) -> list[Step]:
    """The target calls that carry out one action."""
    flavor_id = action.flavor
    want = action.desired
    out: list[Step] = []
    # Every project checked before the first write: a mistyped id leaves nothing half-made.
    shared = want.projects if want is not None and not want.is_public else ()
    if action.kind in ("create", "replace") and shared:
        assert want is not None
        out.append(partial(target.check_projects, want.name, shared))
    elif action.kind in ("access", "repair") and action.add_projects:
        name = want.name if want is not None else flavor_id
        out.append(partial(target.check_projects, name, action.add_projects))
    if action.kind in ("create", "replace", "repair") and isinstance(target, WholeFlavors):
        assert want is not None
        # The flavor, its extra specs and its access at once: a crash leaves none of it (a
        # half-made flavor is replaced by the whole one, in the same transaction).
        out.append(partial(target.put, want, replace=action.kind != "create"))
    elif action.kind in ("create", "replace"):
        assert want is not None
        if action.kind == "replace":
            out.append(partial(target.delete, flavor_id))
        # A real Nova takes a flavor in pieces. The extra specs come right after the create
        # (the scheduling rule, the managed marker in the last call), access last: a private
        # flavor is visible to no project until then. A crash in between leaves a flavor the
        # next plan repairs (``half_made``: recognised by its name and properties).
        out.append(partial(target.create, want))
        out.append(partial(target.set_specs, flavor_id, desired_specs(want)))
        if not want.is_public:
            out += [partial(target.add_project, flavor_id, p) for p in want.projects]
    elif action.kind in ("update", "repair"):
        if action.change_description:
            out.append(partial(target.set_description, flavor_id, action.description))
        if action.set_specs:
            out.append(partial(target.set_specs, flavor_id, action.set_specs))
        out += [partial(target.unset_spec, flavor_id, k) for k in action.unset_specs]
        out += [partial(target.add_project, flavor_id, p) for p in action.add_projects]
    elif action.kind == "access":
        out += [partial(target.add_project, flavor_id, p) for p in action.add_projects]
        out += [partial(target.remove_project, flavor_id, p) for p in action.remove_projects]
    elif action.kind == "delete":
        out.append(partial(target.delete, flavor_id))
    return out


def _values(flavor: DerivedFlavor) -> dict[str, Any]:
    """A derived flavor's row, as the store takes it."""
    return {
        "flavorid": flavor.id,
        "name": flavor.name,
        "memory_mb": flavor.ram,
        "vcpus": flavor.vcpus,
        "root_gb": flavor.disk,
        "swap": flavor.swap,
        "ephemeral_gb": flavor.ephemeral,
        "is_public": flavor.is_public,
        "description": flavor.description,
    }


class StoreFlavors(StoreTarget):
    """The service's own compute API flavors."""

    transient_conflicts = True

    def servers_using(self, flavor_id: str) -> Servers:
        """None: the service's compute API holds flavors, never servers."""
        return Servers(0, ALL_PROJECTS)

    def observe(self) -> dict[str, ObservedFlavor]:
        def work(connection: Any) -> dict[str, ObservedFlavor]:
            rows = flavor_store.list_flavors(
                connection, flavor_store.FlavorQuery(is_public=None, limit=10**9), OPERATOR
            )
            specs = flavor_store.extra_specs(connection, [r["id"] for r in rows])
            out = {}
            for row in rows:
                projects = () if row["is_public"] else tuple(flavor_store.projects(connection, row))
                out[row["flavorid"]] = ObservedFlavor(
                    id=row["flavorid"],
                    name=row["name"],
                    vcpus=row["vcpus"],
                    ram=row["memory_mb"],
                    disk=row["root_gb"],
                    swap=row["swap"],
                    ephemeral=row["ephemeral_gb"],
                    is_public=row["is_public"],
                    description=row["description"],
                    extra_specs=specs[row["id"]],
                    projects=projects,
                )
            return out

        result: dict[str, ObservedFlavor] = self._run(work, write=False)
        return result

    def create(self, flavor: DerivedFlavor) -> None:
        self._run(lambda c: flavor_store.create(c, _values(flavor)))

    def put(self, flavor: DerivedFlavor, *, replace: bool) -> None:
        """The flavor with its extra specs and its access, in one transaction (after the
        one it replaces is deleted, in the same one): no one ever sees a flavor without its
        scheduling rule, its managed marker or its access, and a crash leaves the old one."""
        specs = desired_specs(flavor)
        refusals = [why for k, v in specs.items() if (why := self.spec_check(k, v)) is not None]
        if refusals:  # what the compute API answers for the same request, and nothing stored
            raise TargetError("Validation failed; " + "; ".join(refusals), status=400)

        def work(connection: Any) -> None:
            if replace:
                flavor_store.remove(connection, self._locked(connection, flavor.id))
            row = flavor_store.create(connection, _values(flavor), specs)
            for project in () if flavor.is_public else flavor.projects:
                flavor_store.add_project(connection, row, project)

        self._run(work)

    def _locked(self, connection: Any, flavor_id: str) -> dict[str, Any]:
        return flavor_store.get(connection, flavor_id, lock=True)

    def delete(self, flavor_id: str) -> None:
        self._run(lambda c: flavor_store.remove(c, self._locked(c, flavor_id)))

    def set_description(self, flavor_id: str, description: str | None) -> None:
        self._run(
            lambda c: flavor_store.set_description(c, self._locked(c, flavor_id), description)
        )

    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None:
        refusals = [why for k, v in specs.items() if (why := self.spec_check(k, v)) is not None]
        if refusals:  # what the compute API answers for the same request, and nothing stored
            raise TargetError("Validation failed; " + "; ".join(refusals), status=400)
        self._run(lambda c: flavor_store.merge_extra_specs(c, self._locked(c, flavor_id), specs))

    def unset_spec(self, flavor_id: str, key: str) -> None:
        self._run(lambda c: flavor_store.delete_extra_spec(c, self._locked(c, flavor_id), key))

    def add_project(self, flavor_id: str, project: str) -> None:
        self._run(lambda c: flavor_store.add_project(c, self._locked(c, flavor_id), project))

    def remove_project(self, flavor_id: str, project: str) -> None:
        self._run(lambda c: flavor_store.remove_project(c, self._locked(c, flavor_id), project))

    def check_projects(self, flavor: str, projects: tuple[str, ...]) -> None:
        """Under Keystone: every project id is one Keystone knows (one it cannot tell about
        passes, as in Nova)."""
        if self.project_check is None:
            return
        unknown = [p for p in projects if self.project_check(p) is False]
        if unknown:
            ids = ", ".join(repr(p) for p in unknown)
            what = "is not a Keystone project" if len(unknown) == 1 else "are not Keystone projects"
            raise TargetError(
                f"flavor {flavor!r}: projects: {ids} {what} (give project ids, as "
                "`openstack project show NAME -f value -c id` prints them)",
                status=400,
            )


class SdkFlavors(NovaTarget):
    """Any Nova compute API, through an openstacksdk connection (clouds.yaml or overrides).

    Flavors are created at microversion 2.55 (to carry the description); extra specs are
    written at 2.86 so Nova validates them too, except keys stock Nova refuses (Ironic's
    capabilities), which go at 2.85, where Nova stores extra specs without validating.

    Nova has no transaction over a flavor, its extra specs and its access, and cannot make a
    flavor public after its creation (is_public, like vcpus, ram and disk, is fixed; only the
    description changes), nor take extra specs in ``POST /flavors``. So a create is: the
    flavor (``POST /flavors``), its extra specs with the marker in the last call, then each
    project's access. What a process killed after each call leaves, until the next plan
    repairs it (``repair``):

    - after ``POST /flavors`` of a public flavor: a public flavor without extra specs, which
      every project sees and may boot with — its Placement request asks for VCPU, MEMORY_MB
      and DISK_GB, which no Ironic node offers (NoValidHost), but a hypervisor of the same
      cloud might; the only window a real Nova leaves open, one call long;
    - after ``POST /flavors`` of a private flavor: a private flavor with no specs and no
      access, which only admins see;
    - between the extra-spec calls (2.86, then 2.85 for the keys stock Nova refuses): some of
      the specs, no marker;
    - between two access grants: a complete flavor that some of its projects see yet;
    - a replace killed after its ``DELETE``: no flavor with that id (servers keep their copy
      of it), created by the next round.
    """

    def __init__(self, connection: Any, spec_check: SpecCheck) -> None:
        super().__init__(connection)
        self.spec_check = spec_check

    def observe(self) -> dict[str, ObservedFlavor]:
        out: dict[str, ObservedFlavor] = {}
        params: dict[str, Any] | None = {"is_public": "None", "limit": 1000}
        path = "/flavors/detail"
        while True:
            body = self.request("GET", path, (2, 61), params=params)
            for item in body["flavors"]:
                swap = item.get("swap") or 0
                out[item["id"]] = ObservedFlavor(
                    id=item["id"],
                    name=item["name"],
                    vcpus=item["vcpus"],
                    ram=item["ram"],
                    disk=item["disk"],
                    swap=int(swap),
                    ephemeral=item.get("OS-FLV-EXT-DATA:ephemeral", 0),
                    is_public=item["os-flavor-access:is_public"],
                    description=item.get("description"),
                    extra_specs=item.get("extra_specs") or {},
                )
            links = body.get("flavors_links") or []
            if not links or not body["flavors"]:
                break
            params = {"is_public": "None", "limit": 1000, "marker": body["flavors"][-1]["id"]}
        for flavor_id, flavor in list(out.items()):
            # A private flavor of ours: managed, or half-made (its id is its name, as every
            # catalog flavor's; Nova's own ids are UUIDs).
            if not flavor.is_public and (flavor.managed or flavor.id == flavor.name):
                access = self.request(
                    "GET", f"/flavors/{quote(flavor_id, safe='')}/os-flavor-access", (2, 1)
                )
                projects = tuple(sorted(a["tenant_id"] for a in access["flavor_access"]))
                out[flavor_id] = ObservedFlavor(**{**flavor.__dict__, "projects": projects})
        return out

    def create(self, flavor: DerivedFlavor) -> None:
        body: dict[str, Any] = {
            "id": flavor.id,
            "name": flavor.name,
            "ram": flavor.ram,
            "vcpus": flavor.vcpus,
            "disk": flavor.disk,
            "swap": flavor.swap,
            "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral,
            "os-flavor-access:is_public": flavor.is_public,
        }
        if flavor.description is not None:
            body["description"] = flavor.description
        self.request("POST", "/flavors", (2, 55), body={"flavor": body})

    def delete(self, flavor_id: str) -> None:
        self.request("DELETE", f"/flavors/{quote(flavor_id, safe='')}", (2, 1))

    def set_description(self, flavor_id: str, description: str | None) -> None:
        self.request(
            "PUT",
            f"/flavors/{quote(flavor_id, safe='')}",
            (2, 55),
            body={"flavor": {"description": description}},
        )

    def set_specs(self, flavor_id: str, specs: Mapping[str, str]) -> None:
        """At most two calls, the marker in the last: a flavor with the marker has them all."""
        refused = {k: v for k, v in specs.items() if self.spec_check(k, v) is not None}
        accepted = {k: v for k, v in specs.items() if k not in refused}
        if refused and MARKER in accepted:
            refused[MARKER] = accepted.pop(MARKER)
        path = f"/flavors/{quote(flavor_id, safe='')}/os-extra_specs"
        if accepted:
            self.request("POST", path, (2, 86), body={"extra_specs": accepted})
        if refused:
            self.request("POST", path, (2, 85), body={"extra_specs": refused})

    def unset_spec(self, flavor_id: str, key: str) -> None:
        self.request(
            "DELETE",
            f"/flavors/{quote(flavor_id, safe='')}/os-extra_specs/{quote(key, safe=':')}",
            (2, 1),
        )

    def add_project(self, flavor_id: str, project: str) -> None:
        self.request(
            "POST",
            f"/flavors/{quote(flavor_id, safe='')}/action",
            (2, 1),
            body={"addTenantAccess": {"tenant": project}},
        )

    def remove_project(self, flavor_id: str, project: str) -> None:
        self.request(
            "POST",
            f"/flavors/{quote(flavor_id, safe='')}/action",
            (2, 1),
            body={"removeTenantAccess": {"tenant": project}},
        )

    def check_projects(self, flavor: str, projects: tuple[str, ...]) -> None:
        """Nothing: a real Nova checks them against its Keystone when access is added."""


KIND: Kind[list[DerivedFlavor], ObservedFlavor, Action, FlavorTarget] = Kind(
    name="flavors",
    noun="flavors",
    subject="flavor",
    service="compute",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=StoreFlavors,
    sdk_target=SdkFlavors,
    count_servers=count_servers,
)
