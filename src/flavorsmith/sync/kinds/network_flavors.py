"""The network flavor kind: the catalog's Neutron flavors and the service profiles behind them
kept equal in a real Neutron (``--cloud``, or ``--endpoint`` of one without auth). Flavorsmith
serves no Neutron API of its own, so the kind has no store target.

Identity: a flavor by its name. Neutron keeps names unique for neither flavors nor profiles,
and a flavor has no field of its own to hold a marker, so ownership is marked where only admins
look: a service profile is the catalog's when its description starts with ``flavorsmith:`` +
its flavor's name (``PROFILE_PREFIX``), and a flavor is the catalog's when a profile marked for
it is associated with it (or, left by an interrupted round, when it has no profile at all and
a loose profile is marked for it). A catalog flavor whose name another flavor holds is a
conflict, never taken over.

What Neutron changes in place: a flavor's description and ``enabled``. Its ``service_type``
never (a new type replaces the flavor: deleted, then made again), and a service profile not
while a flavor uses it: a changed profile is a new one made and associated first, the old one
removed after. A flavor that routers use is not deleted or replaced unless forced (Neutron
itself refuses to delete it: 409 FlavorInUse); the plan counts the routers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from flavorsmith.catalog.model import PROFILE_PREFIX, Catalog, NetworkFlavorDef
from flavorsmith.clients.neutron import NeutronTarget
from flavorsmith.errors import TargetError
from flavorsmith.servers_in_use import Servers
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change

USERS = "router"  # what uses a flavor, in the plan's counts and the in-use refusal
IN_USE_HINT = "Delete those routers first (Neutron moves no router to another flavor)"
PROFILE_FIELDS = ("driver", "metainfo", "description", "enabled")


def marker(flavor: str, description: str | None) -> str:
    """A catalog profile's description as Neutron holds it: the marker naming its flavor,
    then the catalog's description."""
    return f"{PROFILE_PREFIX}{flavor}" + (f": {description}" if description else "")


@dataclass(frozen=True)
class ObservedProfile:
    id: str
    driver: str
    metainfo: str
    description: str  # as Neutron holds it, the marker included
    enabled: bool

    @property
    def marked_for(self) -> str | None:
        """The flavor the catalog made this profile for (None: not the catalog's)."""
        if not self.description.startswith(PROFILE_PREFIX):
            return None
        return self.description[len(PROFILE_PREFIX) :].partition(": ")[0]

    @property
    def managed(self) -> bool:
        return self.marked_for is not None

    def as_catalog(self) -> dict[str, Any]:
        """The profile as a catalog file writes it (the marker taken off its description)."""
        text = self.description
        if self.managed:
            text = text[len(PROFILE_PREFIX) :].partition(": ")[2]
        return {
            "driver": self.driver,
            "metainfo": self.metainfo,
            "description": text,
            "enabled": self.enabled,
        }


@dataclass(frozen=True)
class ObservedFlavor:
    id: str
    name: str
    description: str
    service_type: str
    enabled: bool
    profiles: tuple[ObservedProfile, ...]  # those associated with it
    managed: bool

    def mine(self) -> tuple[ObservedProfile, ...]:
        """Its associated profiles the catalog made for it (others are left alone)."""
        return tuple(p for p in self.profiles if p.marked_for == self.name)


@dataclass(frozen=True)
class LooseProfile:
    """A profile marked as the catalog's that no flavor uses (a round was interrupted between
    making it and associating it, or between deleting a flavor and it). The flavor it is
    marked for takes it back, or removes it; it is no object of its own, so ``managed`` is
    False and the all-gone guard counts the flavors only."""

    profile: ObservedProfile

    @property
    def managed(self) -> bool:
        return False


Observed = ObservedFlavor | LooseProfile


def flavor_key(ident: str) -> str:
    return f"flavor:{ident}"


def profile_key(ident: str) -> str:
    return f"profile:{ident}"


@dataclass(frozen=True)
class NetAction:
    """One step on one flavor. ``kind``: create, update, replace, delete, keep, unmanaged,
    conflict, noop. A flavor's service profiles go with it: ``make`` (profile bodies to create
    and associate), ``reuse`` (loose profiles to associate), ``drop`` (its associated profiles
    to disassociate and delete), ``discard`` (loose profiles to delete)."""

    kind: str
    key: str  # the flavor's name
    reason: str
    ident: str | None = None  # update, replace, delete: the flavor's id in Neutron
    body: dict[str, Any] | None = None  # create, replace: the flavor made; update: its changes
    make: tuple[dict[str, Any], ...] = ()
    reuse: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()
    servers: Servers | None = field(default=None, compare=False)

    @property
    def subject(self) -> str:
        return f"flavor {self.key}"

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "replace", "delete")

    def as_dict(self) -> dict[str, Any]:
        return {"flavor": self.key, "reason": self.reason}


def _flavor_body(flavor: NetworkFlavorDef) -> dict[str, Any]:
    return {
        "name": flavor.name,
        "service_type": flavor.service_type,
        "description": flavor.description or "",
        "enabled": flavor.enabled,
    }


def _profile_body(flavor: str, profile: Mapping[str, Any]) -> dict[str, Any]:
    return {**profile, "description": marker(flavor, profile["description"])}


@dataclass
class _Profiles:
    """How one flavor's catalog profiles meet what Neutron holds for it."""

    make: list[dict[str, Any]] = field(default_factory=list)
    reuse: list[str] = field(default_factory=list)
    drop: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def _match_profiles(
    flavor: NetworkFlavorDef,
    have: Sequence[ObservedProfile],
    loose: Sequence[ObservedProfile],
) -> _Profiles:
    """Each catalog profile kept when an equal one is associated, else associated again when
    an equal loose one is there, else made; the associated ones the catalog no longer lists
    dropped, the loose ones left over discarded."""
    out = _Profiles()
    kept = list(have)
    spare = list(loose)
    for index, profile in enumerate(flavor.service_profiles):
        wanted = profile.as_dict()
        found = next((p for p in kept if p.as_catalog() == wanted), None)
        if found is not None:
            kept.remove(found)
            continue
        field_name = f"service_profiles[{index}]"
        again = next((p for p in spare if p.as_catalog() == wanted), None)
        if again is not None:
            spare.remove(again)
            out.reuse.append(again.id)
            out.changes.append(Change("add", field_name, new={**wanted, "id": again.id}))
            continue
        out.make.append(_profile_body(flavor.name, wanted))
        out.changes.append(Change("add", field_name, new=wanted))
    for old in kept:
        out.drop.append(old.id)
        out.changes.append(Change("remove", "service_profiles", old={**old.as_catalog()}))
    for old in spare:
        out.discard.append(old.id)
        out.changes.append(
            Change("remove", "loose service profile", old={**old.as_catalog(), "id": old.id})
        )
    return out


def _flavor_changes(have: ObservedFlavor, body: Mapping[str, Any]) -> tuple[Change, ...]:
    return tuple(
        Change("change", name, getattr(have, name), body[name])
        for name in ("description", "enabled")
        if getattr(have, name) != body[name]
    )


def plan(
    desired: Sequence[NetworkFlavorDef],
    observed: Mapping[str, Observed],
    prune: bool = False,
) -> list[NetAction]:
    """The pure diff: each catalog flavor (by name), then the flavors not in the catalog."""
    flavors = sorted(
        (o for o in observed.values() if isinstance(o, ObservedFlavor)), key=lambda f: f.id
    )
    loose: dict[str, list[ObservedProfile]] = {}
    for entry in observed.values():
        if isinstance(entry, LooseProfile) and entry.profile.marked_for is not None:
            loose.setdefault(entry.profile.marked_for, []).append(entry.profile)
    for found in loose.values():
        found.sort(key=lambda p: p.id)
    out: list[NetAction] = []
    handled: set[str] = set()  # ids of observed flavors an action below is about
    for flavor in sorted(desired, key=lambda f: f.name):
        body = _flavor_body(flavor)
        same = [f for f in flavors if f.name == flavor.name]
        mine = [f for f in same if f.managed]
        spare = loose.get(flavor.name, [])
        if not mine:
            if same:
                handled.update(f.id for f in same)
                out.append(
                    NetAction(
                        "conflict",
                        flavor.name,
                        f"a network flavor named {flavor.name} exists that is not synced from "
                        f"the catalog (no service profile of its is marked {PROFILE_PREFIX}"
                        f"{flavor.name}); Neutron would hold two of that name and a router "
                        "created with it could not say which: delete it, or rename it, to let "
                        "the catalog's in",
                        ident=same[0].id,
                    )
                )
                continue
            profiles = _match_profiles(flavor, (), spare)
            out.append(
                NetAction(
                    "create",
                    flavor.name,
                    "in the catalog, not in Neutron",
                    body=body,
                    make=tuple(profiles.make),
                    reuse=tuple(profiles.reuse),
                    discard=tuple(profiles.discard),
                    changes=(
                        *(Change("add", k, new=v) for k, v in body.items() if k != "name"),
                        *profiles.changes,
                    ),
                )
            )
            continue
        have = mine[0]
        handled.add(have.id)
        if have.service_type != flavor.service_type:
            fresh = _match_profiles(flavor, (), ())
            out.append(
                NetAction(
                    "replace",
                    flavor.name,
                    "its service_type changed, which Neutron never changes in place: the "
                    "flavor is deleted and made again",
                    ident=have.id,
                    body=body,
                    make=tuple(fresh.make),
                    drop=tuple(p.id for p in have.mine()),
                    discard=tuple(p.id for p in spare),
                    changes=(
                        Change(
                            "change", "service_type", have.service_type, body["service_type"], True
                        ),
                        *_flavor_changes(have, body),
                    ),
                )
            )
            continue
        changed = _flavor_changes(have, body)
        profiles = _match_profiles(flavor, have.mine(), spare)
        if not changed and not profiles.changes:
            out.append(NetAction("noop", flavor.name, "up to date", ident=have.id))
            continue
        why = [f"{c.field} changed" for c in changed]
        if profiles.make or profiles.reuse or profiles.drop:
            why.append(
                "service profiles changed (Neutron changes no profile a flavor uses: a new one "
                "is associated, the old one removed)"
            )
        elif profiles.discard:
            why.append("loose service profiles marked for it removed")
        out.append(
            NetAction(
                "update",
                flavor.name,
                "; ".join(why),
                ident=have.id,
                body={c.field: c.new for c in changed},
                make=tuple(profiles.make),
                reuse=tuple(profiles.reuse),
                drop=tuple(profiles.drop),
                discard=tuple(profiles.discard),
                changes=(*changed, *profiles.changes),
            )
        )
    for have in flavors:
        if have.id in handled:
            continue
        if not have.managed:
            out.append(NetAction("unmanaged", have.name, "not synced from the catalog; left alone"))
        elif prune:
            gone = (
                "another flavor of this name synced from the catalog"
                if any(f.name == have.name for f in desired)
                else "synced from the catalog and no longer in it"
            )
            out.append(
                NetAction(
                    "delete",
                    have.name,
                    gone,
                    ident=have.id,
                    drop=tuple(p.id for p in have.mine()),
                    discard=tuple(p.id for p in loose.get(have.name, [])),
                )
            )
        else:
            out.append(
                NetAction(
                    "keep",
                    have.name,
                    "synced from the catalog but no longer in it; --prune deletes it",
                )
            )
    return out


class NetTarget(Protocol):
    """A Neutron's flavors and service profiles, as the steps of this kind call them."""

    calls: int

    def observe(self) -> dict[str, Observed]: ...
    def create_flavor(
        self, *, name: str, service_type: str, description: str = "", enabled: bool = True
    ) -> dict[str, Any]: ...
    def update_flavor(self, flavor_id: str, changes: Mapping[str, Any]) -> dict[str, Any]: ...
    def delete_flavor(self, flavor_id: str) -> None: ...
    def create_service_profile(
        self, *, driver: str = "", metainfo: str = "", description: str = "", enabled: bool = True
    ) -> dict[str, Any]: ...
    def delete_service_profile(self, profile_id: str) -> None: ...
    def associate(self, flavor_id: str, profile_id: str) -> None: ...
    def disassociate(self, flavor_id: str, profile_id: str) -> None: ...
    def routers_by_flavor(self) -> Counter[str]: ...


def desired(catalog: Catalog) -> list[NetworkFlavorDef]:
    return list(catalog.network_flavors)


def steps(action: NetAction, target: NetTarget) -> list[Step]:
    """The calls that carry out one action. A deleted flavor goes first (its associations go
    with it), then its profiles. A flavor's new profiles are made before the flavor, marked for
    it: a profile Neutron refuses (a driver it has not configured) stops the action before a
    flavor without a profile exists, and the ones made before it are loose profiles the next
    round takes back. Then they are associated, and only then are the old ones disassociated
    and deleted, so a flavor users see never loses the profile it had."""
    out: list[Step] = []
    if action.kind in ("delete", "replace"):
        assert action.ident is not None
        out.append(_removing(target, action.ident))
        out += [_deleting(target, ident) for ident in (*action.drop, *action.discard)]
        if action.kind == "delete":
            return out
    elif action.kind not in ("create", "update"):
        return []
    made: list[str] = []  # the ids of the profiles made by this action, in order
    flavor: dict[str, str] = {}  # "id": the flavor's, once it is known
    out += [_making(target, body, made) for body in action.make]
    if action.kind == "update":
        assert action.ident is not None and action.body is not None
        flavor["id"] = action.ident
        if action.body:
            out.append(_updating(target, action.ident, action.body))
    else:
        assert action.body is not None
        body = action.body

        def make_flavor() -> None:
            flavor["id"] = str(target.create_flavor(**body)["id"])

        out.append(make_flavor)

    def flavor_id() -> str:
        if "id" not in flavor:
            raise TargetError(f"flavor {action.key} was not made, so no profile is associated")
        return flavor["id"]

    out += [_associating(target, flavor_id, _nth(made, i)) for i in range(len(action.make))]
    out += [_associating(target, flavor_id, _given(ident)) for ident in action.reuse]
    if action.kind == "update":
        for ident in action.drop:
            out += [_disassociating(target, flavor_id, ident), _deleting(target, ident)]
    if action.kind != "replace":  # a replace deleted them with the old flavor
        out += [_deleting(target, ident) for ident in action.discard]
    return out


def _nth(made: list[str], index: int) -> Callable[[], str]:
    """The id of the ``index``-th profile made, read when the step runs."""
    return lambda: made[index]


def _given(ident: str) -> Callable[[], str]:
    return lambda: ident


def _making(target: NetTarget, body: Mapping[str, Any], made: list[str]) -> Step:
    def make() -> None:
        made.append(str(target.create_service_profile(**body)["id"]))

    return make


def _updating(target: NetTarget, ident: str, changes: Mapping[str, Any]) -> Step:
    def update() -> None:
        target.update_flavor(ident, changes)

    return update


def _removing(target: NetTarget, flavor_id: str) -> Step:
    return lambda: target.delete_flavor(flavor_id)


def _deleting(target: NetTarget, ident: str) -> Step:
    return lambda: target.delete_service_profile(ident)


def _associating(
    target: NetTarget, flavor_id: Callable[[], str], profile_id: Callable[[], str]
) -> Step:
    return lambda: target.associate(flavor_id(), profile_id())


def _disassociating(target: NetTarget, flavor_id: Callable[[], str], ident: str) -> Step:
    return lambda: target.disassociate(flavor_id(), ident)


def count_routers(actions: Sequence[NetAction], target: NetTarget) -> list[NetAction]:
    """Each flavor a plan deletes or replaces with the routers that use it (one listing of the
    routers for the whole plan); unknown, with why, when Neutron will not list them."""
    removing = [a for a in actions if a.kind in ("delete", "replace") and a.ident is not None]
    if not removing:
        return list(actions)
    try:
        counts = target.routers_by_flavor()
    except TargetError as exc:
        unknown = Servers(None, None, f"cannot count the routers: {exc}", noun=USERS)
        return [replace(a, servers=unknown) if a in removing else a for a in actions]
    return [
        replace(a, servers=Servers(counts[a.ident], noun=USERS))
        if a in removing and a.ident is not None
        else a
        for a in actions
    ]


def observed_of(
    flavors: Sequence[Mapping[str, Any]], profiles: Sequence[Mapping[str, Any]]
) -> dict[str, Observed]:
    """Neutron's flavors and service profiles (as it lists them) as this kind observes them."""
    by_id = {
        str(p["id"]): ObservedProfile(
            str(p["id"]),
            p.get("driver") or "",
            p.get("metainfo") or "",
            p.get("description") or "",
            bool(p.get("enabled", True)),
        )
        for p in profiles
    }
    associated: set[str] = set()
    out: dict[str, Observed] = {}
    seen: list[tuple[Mapping[str, Any], tuple[ObservedProfile, ...]]] = []
    for flavor in flavors:
        ids = [str(i) for i in flavor.get("service_profiles") or ()]
        associated.update(ids)
        seen.append((flavor, tuple(by_id[i] for i in ids if i in by_id)))
    loose = [p for i, p in by_id.items() if i not in associated and p.managed]
    for flavor, on_it in seen:
        name = str(flavor.get("name") or "")
        managed = any(p.marked_for == name for p in on_it) or (
            not flavor.get("service_profiles") and any(p.marked_for == name for p in loose)
        )
        out[flavor_key(str(flavor["id"]))] = ObservedFlavor(
            str(flavor["id"]),
            name,
            flavor.get("description") or "",
            str(flavor.get("service_type") or ""),
            bool(flavor.get("enabled", True)),
            on_it,
            managed,
        )
    for profile in loose:
        out[profile_key(profile.id)] = LooseProfile(profile)
    return out


class SdkNetFlavors(NeutronTarget):
    """A real Neutron's flavors and service profiles through an openstacksdk connection (its
    ``network`` service)."""

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)

    def observe(self) -> dict[str, Observed]:
        return observed_of(self.flavors(), self.service_profiles())


KIND: Kind[list[NetworkFlavorDef], Observed, NetAction, NetTarget] = Kind(
    name="network-flavors",
    noun="network flavors",
    subject="network",
    service="network",
    desired=desired,
    plan=plan,
    steps=steps,
    # Flavorsmith serves no Neutron API: a real Neutron is the only target.
    store_target=None,
    sdk_target=SdkNetFlavors,
    # Named only: a watcher of a cloud without Neutron's flavors would fail every round.
    watched=False,
    count_servers=count_routers,
    in_use_hint=IN_USE_HINT,
)
