"""The load-balancer flavor kind: the catalog's flavor profiles and the flavors on them kept
equal in an Octavia (the service's own /load-balancer or a real one).

Identity: a profile by its name, a flavor by its name (Octavia keeps one flavor per name).
Ownership: Octavia's profiles have no description nor extra field, so a profile is the
catalog's when its name is ``flavorsmith:`` + the catalog's name (``PROFILE_PREFIX``), and a
flavor is the catalog's when its profile is. Octavia refuses to change a profile's provider or
flavor data while a flavor uses it, and a flavor's profile ever: such a change is a replace,
a new profile made first, each of its flavors deleted and made again on it, the old profile
deleted last. A flavor that load balancers use is not deleted or replaced unless forced (Octavia
itself refuses to delete it: 409 "in use"); the plan counts them.
"""

from __future__ import annotations

import json
import uuid as uuidlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from flavorsmith.catalog.model import PROFILE_PREFIX, Catalog, LoadBalancerProfileDef
from flavorsmith.clients.octavia import OctaviaTarget
from flavorsmith.diagnostics import Diagnostic
from flavorsmith.did_you_mean import did_you_mean
from flavorsmith.errors import TargetError
from flavorsmith.servers_in_use import Servers
from flavorsmith.store import service_flavors as lb_store
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change
from flavorsmith.sync.store_target import StoreTarget

USERS = "load balancer"  # what uses a flavor, in the plan's counts and the in-use refusal
IN_USE_HINT = "Move those load balancers to another flavor or delete them first"


@dataclass(frozen=True)
class ObservedProfile:
    id: str
    name: str  # as Octavia holds it, the marker included
    provider: str
    flavor_data: str  # Octavia's JSON text

    @property
    def managed(self) -> bool:
        return self.name.startswith(PROFILE_PREFIX)

    @property
    def catalog_name(self) -> str:
        return self.name[len(PROFILE_PREFIX) :]

    def data(self) -> Any:
        try:
            return json.loads(self.flavor_data)
        except ValueError:
            return self.flavor_data


@dataclass(frozen=True)
class ObservedFlavor:
    id: str
    name: str
    description: str | None
    enabled: bool
    profile_id: str
    profile_managed: bool  # whether its profile is the catalog's: then so is the flavor

    @property
    def managed(self) -> bool:
        return self.profile_managed


@dataclass(frozen=True)
class ObservedProvider:
    """A provider the target has enabled, with its flavor capabilities (None: it would not
    say); never the catalog's to write."""

    name: str
    capabilities: tuple[str, ...] | None

    @property
    def managed(self) -> bool:
        return False


Observed = ObservedProfile | ObservedFlavor | ObservedProvider


def profile_key(ident: str) -> str:
    return f"profile:{ident}"


def flavor_key(name: str) -> str:
    return f"flavor:{name}"


def provider_key(name: str) -> str:
    return f"provider:{name}"


def check(
    desired: Sequence[LoadBalancerProfileDef], observed: Mapping[str, Observed]
) -> list[Diagnostic]:
    """The catalog's profiles against the providers the target says it has (a target that
    lists none, as the service's own, is not asked): a provider it has not enabled, a flavor
    data key none of its capabilities names; each at its file and line."""
    providers = {o.name: o for o in observed.values() if isinstance(o, ObservedProvider)}
    if not providers:
        return []
    names = sorted(providers)
    out: list[Diagnostic] = []
    for profile in desired:
        doc = profile.doc
        if doc is None:
            continue
        found = providers.get(profile.provider)
        if found is None:
            out.append(
                doc.diagnostic(
                    ["provider"],
                    f"provider {profile.provider!r} is not enabled in the target Octavia "
                    f"(GET /v2/lbaas/providers): enabled: {', '.join(names)}"
                    f"{did_you_mean(profile.provider, names)}",
                    code="load-balancer-provider-not-enabled",
                )
            )
            continue
        allowed = found.capabilities
        if allowed is None:
            continue
        for key in profile.flavor_data:
            if key not in allowed:
                out.append(
                    doc.diagnostic(
                        ["flavor_data", key],
                        f"{key!r} is not a flavor capability of provider {found.name} in the "
                        f"target Octavia (GET /v2/lbaas/providers/{found.name}/"
                        f"flavor_capabilities); allowed: {', '.join(allowed) or 'none'}"
                        f"{did_you_mean(key, allowed)}",
                        code="load-balancer-unknown-capability",
                        at_key=True,
                    )
                )
    return out


@dataclass(frozen=True)
class LbAction:
    """One step. ``kind``: create, update, replace, delete, keep, unmanaged, conflict, noop;
    ``what``: profile or flavor."""

    kind: str
    what: str
    key: str  # the catalog's name (a profile's without the marker)
    reason: str
    ident: str | None = None  # update, replace, delete: the object's id in Octavia
    body: dict[str, Any] | None = None  # create, replace: what is made; update: the changes
    profile: str | None = None  # a flavor's profile, by the catalog's name
    profile_id: str | None = None  # that profile's id when it exists and is kept
    changes: tuple[Change, ...] = ()
    servers: Servers | None = field(default=None, compare=False)

    @property
    def subject(self) -> str:
        return f"{self.what} {self.key}"

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "replace", "delete")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {self.what: self.key, "reason": self.reason}
        if self.profile is not None and self.what == "flavor":
            out["profile"] = self.profile
        return out


def _profile_body(profile: LoadBalancerProfileDef) -> dict[str, Any]:
    return {
        "name": profile.octavia_name,
        "provider_name": profile.provider,
        "flavor_data": json.dumps(profile.flavor_data, sort_keys=True),
    }


def _flavor_body(name: str, description: str | None, enabled: bool) -> dict[str, Any]:
    return {"name": name, "description": description or "", "enabled": enabled}


def _creates(body: Mapping[str, Any]) -> tuple[Change, ...]:
    return tuple(Change("add", k, new=v) for k, v in body.items() if k != "name")


def plan(
    desired: Sequence[LoadBalancerProfileDef],
    observed: Mapping[str, Observed],
    prune: bool = False,
) -> list[LbAction]:
    """The pure diff, in the order it is carried out: profiles made or changed, flavors, then
    the profiles deleted (a profile is deleted only once no flavor is left on it)."""
    profiles = sorted(
        (o for o in observed.values() if isinstance(o, ObservedProfile)), key=lambda p: p.id
    )
    flavors = {o.name: o for o in observed.values() if isinstance(o, ObservedFlavor)}
    managed: dict[str, ObservedProfile] = {}
    for seen in profiles:
        if seen.managed:
            managed.setdefault(seen.catalog_name, seen)
    first: list[LbAction] = []
    middle: list[LbAction] = []
    last: list[LbAction] = []
    gone: set[str] = set()  # ids of observed flavors this plan deletes or replaces
    current: dict[str, str | None] = {}  # catalog profile -> its id (None: made by this plan)
    retired: set[str] = set()  # ids of observed managed profiles this plan replaces
    wanted_flavors = {f.name for p in desired for f in p.flavors}
    for profile in sorted(desired, key=lambda p: p.name):
        body = _profile_body(profile)
        have = managed.get(profile.name)
        if have is None:
            first.append(
                LbAction(
                    "create",
                    "profile",
                    profile.name,
                    "in the catalog, not in Octavia",
                    body=body,
                    changes=(Change("add", "name", new=body["name"]), *_creates(body)),
                )
            )
            current[profile.name] = None
            continue
        changes = []
        if have.provider != profile.provider:
            changes.append(Change("change", "provider_name", have.provider, profile.provider))
        if have.data() != profile.flavor_data:
            changes += _data_changes(have.data(), profile.flavor_data)
        on_it = [f for f in flavors.values() if f.profile_id == have.id]
        if not changes:
            first.append(LbAction("noop", "profile", profile.name, "up to date", ident=have.id))
            current[profile.name] = have.id
        elif not on_it:
            first.append(
                LbAction(
                    "update",
                    "profile",
                    profile.name,
                    "flavor data changed"
                    if have.provider == profile.provider
                    else "provider changed",
                    ident=have.id,
                    body={k: body[k] for k in ("provider_name", "flavor_data")},
                    changes=tuple(changes),
                )
            )
            current[profile.name] = have.id
        else:
            forced = tuple(replace(c, forces=True) for c in changes)
            first.append(
                LbAction(
                    "replace",
                    "profile",
                    profile.name,
                    f"{'; '.join(c.field for c in changes)} changed, and Octavia changes no "
                    f"profile a flavor uses: a new profile, its {len(on_it)} "
                    f"flavor{'s' if len(on_it) != 1 else ''} made again on it",
                    ident=have.id,
                    body=body,
                    changes=forced,
                )
            )
            current[profile.name] = None
            retired.add(have.id)
    for profile in sorted(desired, key=lambda p: p.name):
        kept_id = current[profile.name]
        for flavor in profile.flavors:
            body = _flavor_body(flavor.name, flavor.description, flavor.enabled)
            have_flavor = flavors.get(flavor.name)
            if have_flavor is None:
                middle.append(
                    LbAction(
                        "create",
                        "flavor",
                        flavor.name,
                        "in the catalog, not in Octavia",
                        body=body,
                        changes=(*_creates(body), Change("add", "profile", new=profile.name)),
                        profile=profile.name,
                        profile_id=kept_id,
                    )
                )
            elif not have_flavor.managed:
                middle.append(
                    LbAction(
                        "conflict",
                        "flavor",
                        flavor.name,
                        f"a load-balancer flavor named {flavor.name} exists on a profile not "
                        f"synced from the catalog (its name does not start with "
                        f"{PROFILE_PREFIX}); delete it, or rename it, to let the catalog's in",
                        ident=have_flavor.id,
                    )
                )
            elif kept_id is None or have_flavor.profile_id != kept_id:
                gone.add(have_flavor.id)
                was = _profile_name(profiles, have_flavor.profile_id)
                middle.append(
                    LbAction(
                        "replace",
                        "flavor",
                        flavor.name,
                        "its profile is new"
                        if was == profile.name
                        else f"moves from profile {was} to {profile.name}",
                        ident=have_flavor.id,
                        body=body,
                        changes=(
                            Change(
                                "change",
                                "flavor_profile_id",
                                have_flavor.profile_id,
                                "the new profile's" if kept_id is None else kept_id,
                                forces=True,
                            )
                            if was == profile.name
                            else Change("change", "profile", was, profile.name, forces=True),
                            *_flavor_changes(have_flavor, body),
                        ),
                        profile=profile.name,
                        profile_id=kept_id,
                    )
                )
            else:
                changed = _flavor_changes(have_flavor, body)
                if changed:
                    middle.append(
                        LbAction(
                            "update",
                            "flavor",
                            flavor.name,
                            "; ".join(f"{c.field} changed" for c in changed),
                            ident=have_flavor.id,
                            body={c.field: c.new for c in changed},
                            changes=changed,
                            profile=profile.name,
                            profile_id=kept_id,
                        )
                    )
                else:
                    middle.append(
                        LbAction(
                            "noop",
                            "flavor",
                            flavor.name,
                            "up to date",
                            profile=profile.name,
                            profile_id=kept_id,
                        )
                    )
    for have_flavor in sorted(flavors.values(), key=lambda f: f.name):
        if have_flavor.name in wanted_flavors:
            continue
        if not have_flavor.managed:
            middle.append(
                LbAction(
                    "unmanaged",
                    "flavor",
                    have_flavor.name,
                    "not synced from the catalog; left alone",
                )
            )
        elif prune:
            gone.add(have_flavor.id)
            middle.append(
                LbAction(
                    "delete",
                    "flavor",
                    have_flavor.name,
                    "synced from the catalog and no longer in it",
                    ident=have_flavor.id,
                )
            )
        else:
            middle.append(
                LbAction(
                    "keep",
                    "flavor",
                    have_flavor.name,
                    "synced from the catalog but no longer in it; --prune deletes it",
                )
            )
    wanted_profiles = {p.name for p in desired}
    for old in profiles:
        if not old.managed:
            last.append(
                LbAction(
                    "unmanaged", "profile", old.name, "not synced from the catalog; left alone"
                )
            )
            continue
        stays = [f for f in flavors.values() if f.profile_id == old.id and f.id not in gone]
        if old.id in retired:
            why = "replaced by the new profile"
        elif old.catalog_name in wanted_profiles and managed[old.catalog_name] is old:
            continue
        elif prune:
            why = "synced from the catalog and no longer in it"
        else:
            last.append(
                LbAction(
                    "keep",
                    "profile",
                    old.catalog_name,
                    "synced from the catalog but no longer in it; --prune deletes it",
                )
            )
            continue
        if stays:
            last.append(
                LbAction(
                    "keep",
                    "profile",
                    old.catalog_name,
                    f"{why}, but flavors still use it: {', '.join(sorted(f.name for f in stays))}",
                )
            )
        else:
            last.append(LbAction("delete", "profile", old.catalog_name, why, ident=old.id))
    return [*first, *middle, *last]


def _profile_name(profiles: Sequence[ObservedProfile], ident: str) -> str:
    found = next((p for p in profiles if p.id == ident), None)
    if found is None:
        return ident
    return found.catalog_name if found.managed else found.name


def _data_changes(old: Any, new: Mapping[str, Any]) -> list[Change]:
    if not isinstance(old, dict):
        return [Change("change", "flavor_data", old, dict(new))]
    out = []
    for key in [*old, *(k for k in new if k not in old)]:
        if key not in old:
            out.append(Change("add", f"flavor_data.{key}", new=new[key]))
        elif key not in new:
            out.append(Change("remove", f"flavor_data.{key}", old=old[key]))
        elif old[key] != new[key]:
            out.append(Change("change", f"flavor_data.{key}", old[key], new[key]))
    return out


def _flavor_changes(have: ObservedFlavor, body: Mapping[str, Any]) -> tuple[Change, ...]:
    out = []
    if (have.description or "") != body["description"]:
        out.append(Change("change", "description", have.description, body["description"]))
    if have.enabled != body["enabled"]:
        out.append(Change("change", "enabled", have.enabled, body["enabled"]))
    return tuple(out)


class LbTarget(Protocol):
    """An Octavia's flavor profiles and flavors, as the steps of this kind call them."""

    calls: int
    made: dict[str, str]  # catalog profile name -> the id of the profile made this round

    def observe(self) -> dict[str, Observed]: ...
    def create_profile(self, body: dict[str, Any]) -> str: ...
    def update_profile(self, ident: str, changes: dict[str, Any]) -> None: ...
    def delete_profile(self, ident: str) -> None: ...
    def make_flavor(self, body: dict[str, Any]) -> None: ...
    def change_flavor(self, ident: str, changes: dict[str, Any]) -> None: ...
    def delete_flavor(self, ident: str) -> None: ...
    def load_balancers(self, flavor_id: str) -> Servers: ...


def desired(catalog: Catalog) -> list[LoadBalancerProfileDef]:
    return list(catalog.load_balancer_profiles)


def steps(action: LbAction, target: LbTarget) -> list[Step]:
    """The target calls that carry out one action; a flavor's profile id is looked up when
    the step runs (the profile may have been made earlier in the same round)."""
    if action.what == "profile":
        if action.kind in ("create", "replace"):
            assert action.body is not None
            profile_body: dict[str, Any] = action.body
            name = action.key

            def make() -> None:
                target.made[name] = target.create_profile(profile_body)

            return [make]
        assert action.ident is not None
        ident = action.ident
        if action.kind == "update":
            assert action.body is not None
            changes = action.body
            return [lambda: target.update_profile(ident, changes)]
        if action.kind == "delete":
            return [lambda: target.delete_profile(ident)]
        return []
    out: list[Step] = []
    if action.kind in ("delete", "replace"):
        assert action.ident is not None
        old = action.ident
        out.append(lambda: target.delete_flavor(old))
    if action.kind in ("create", "replace"):
        assert action.body is not None and action.profile is not None
        body, profile, kept = action.body, action.profile, action.profile_id

        def make_flavor() -> None:
            found = target.made.get(profile, kept)
            if found is None:
                raise TargetError(f"profile {profile} was not made, so flavor cannot be")
            target.make_flavor({**body, "flavor_profile_id": found})

        out.append(make_flavor)
    if action.kind == "update":
        assert action.ident is not None and action.body is not None
        ident, changes = action.ident, action.body
        out.append(lambda: target.change_flavor(ident, changes))
    return out


def count_load_balancers(actions: Sequence[LbAction], target: LbTarget) -> list[LbAction]:
    """Each flavor a plan deletes or replaces with the load balancers that use it."""
    return [
        replace(a, servers=target.load_balancers(a.ident))
        if a.what == "flavor" and a.kind in ("delete", "replace") and a.ident is not None
        else a
        for a in actions
    ]


class StoreLbFlavors(StoreTarget):
    """The service's own /load-balancer: its flavor profiles and flavors. It builds no load
    balancers, so nothing uses a flavor there (the count is 0)."""

    def __init__(self, engine: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(engine)
        self.made: dict[str, str] = {}

    def observe(self) -> dict[str, Observed]:
        def read(connection: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            return lb_store.profiles(connection), lb_store.flavors(connection)

        profile_rows, flavor_rows = self._run(read, write=False)
        return _observed(profile_rows, flavor_rows)

    def create_profile(self, body: dict[str, Any]) -> str:
        row = {"id": str(uuidlib.uuid4()), **body}
        if not self._run(lambda c: lb_store.insert_profile(c, row)):
            raise TargetError(f"flavor profile {row['id']} already exists", status=409)
        return str(row["id"])

    def update_profile(self, ident: str, changes: dict[str, Any]) -> None:
        def work(connection: Any) -> None:
            lb_store.profile(connection, ident, lock=True)
            if lb_store.profile_in_use(connection, ident):
                raise TargetError(f"Flavor profile {ident} is in use and cannot be modified.")
            lb_store.update_profile(connection, ident, changes)

        self._run(work)

    def delete_profile(self, ident: str) -> None:
        def work(connection: Any) -> None:
            lb_store.profile(connection, ident, lock=True)
            if not lb_store.delete_profile(connection, ident):
                raise TargetError(f"Flavor profile {ident} is in use and cannot be modified.")

        self._run(work)

    def make_flavor(self, body: dict[str, Any]) -> None:
        row = {"id": str(uuidlib.uuid4()), **body}
        if not self._run(lambda c: lb_store.insert_flavor(c, row)):
            raise TargetError(f"A flavor of {body['name']} already exists.", status=409)

    def change_flavor(self, ident: str, changes: dict[str, Any]) -> None:
        def work(connection: Any) -> None:
            lb_store.flavor(connection, ident, lock=True)
            if not lb_store.update_flavor(connection, ident, changes):
                raise TargetError(f"A flavor of {changes.get('name')} already exists.")

        self._run(work)

    def delete_flavor(self, ident: str) -> None:
        def work(connection: Any) -> None:
            lb_store.flavor(connection, ident, lock=True)
            lb_store.delete_flavor(connection, ident)

        self._run(work)

    def load_balancers(self, flavor_id: str) -> Servers:
        return Servers(0, noun=USERS)


def _observed(
    profile_rows: Sequence[Mapping[str, Any]], flavor_rows: Sequence[Mapping[str, Any]]
) -> dict[str, Observed]:
    out: dict[str, Observed] = {}
    managed: set[str] = set()
    for row in profile_rows:
        profile = ObservedProfile(
            row["id"], row["name"] or "", row["provider_name"], row["flavor_data"]
        )
        out[profile_key(profile.id)] = profile
        if profile.managed:
            managed.add(profile.id)
    for row in flavor_rows:
        if row["id"] == lb_store.NIL or row["name"] is None:
            continue  # Octavia's placeholder; a flavor without a name is no catalog's
        out[flavor_key(row["name"])] = ObservedFlavor(
            row["id"],
            row["name"],
            row["description"],
            bool(row["enabled"]),
            row["flavor_profile_id"],
            row["flavor_profile_id"] in managed,
        )
    return out


class SdkLbFlavors(OctaviaTarget):
    """A real Octavia's v2 API through an openstacksdk connection (its ``load_balancer``
    service): its profiles and flavors, and its providers with their flavor capabilities,
    which the plan checks the catalog against."""

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)
        self.made: dict[str, str] = {}

    def observe(self) -> dict[str, Observed]:
        profiles = [
            {**p, "flavor_data": json.dumps(p["flavor_data"], sort_keys=True)}
            if isinstance(p.get("flavor_data"), dict)
            else p
            for p in self.flavor_profiles()
        ]
        out = _observed(profiles, self.flavors())
        for name in self.provider_names():
            out[provider_key(name)] = ObservedProvider(name, self._capabilities(name))
        return out

    def _capabilities(self, provider: str) -> tuple[str, ...] | None:
        """What the provider takes in flavor data; None when it does not say (Octavia answers
        501 for a driver without the call)."""
        try:
            found = self.flavor_capabilities(provider)
        except TargetError as exc:
            if exc.status == 501:
                return None
            raise
        return tuple(str(c["name"]) for c in found)

    def create_profile(self, body: dict[str, Any]) -> str:
        made = self.create_flavor_profile(
            body["name"], body["provider_name"], json.loads(body["flavor_data"])
        )
        return str(made["id"])

    def update_profile(self, ident: str, changes: dict[str, Any]) -> None:
        self.update_flavor_profile(
            ident,
            provider=changes.get("provider_name"),
            flavor_data=json.loads(changes["flavor_data"]) if "flavor_data" in changes else None,
        )

    def delete_profile(self, ident: str) -> None:
        self.delete_flavor_profile(ident)

    def make_flavor(self, body: dict[str, Any]) -> None:
        self.create_flavor(
            body["name"],
            body["flavor_profile_id"],
            description=body["description"],
            enabled=body["enabled"],
        )

    def change_flavor(self, ident: str, changes: dict[str, Any]) -> None:
        self.update_flavor(
            ident, description=changes.get("description"), enabled=changes.get("enabled")
        )

    def load_balancers(self, flavor_id: str) -> Servers:
        """The load balancers with that flavor, every project's (as an admin sees them);
        unknown, with why, when Octavia will not say. Never raises."""
        try:
            return Servers(self.load_balancers_using(flavor_id), noun=USERS)
        except TargetError as exc:
            return Servers(None, None, f"cannot count the load balancers: {exc}", noun=USERS)


KIND: Kind[list[LoadBalancerProfileDef], Observed, LbAction, LbTarget] = Kind(
    name="load-balancer-flavors",
    noun="load-balancer flavors",
    subject="load-balancer",
    service="load_balancer",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=StoreLbFlavors,
    sdk_target=SdkLbFlavors,
    # Named only: a watcher of a cloud without Octavia would fail every round otherwise.
    watched=False,
    count_servers=count_load_balancers,
    check=check,
    in_use_hint=IN_USE_HINT,
)
