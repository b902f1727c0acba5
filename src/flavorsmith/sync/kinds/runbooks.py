"""The runbook kind: the catalog's runbooks kept equal in an Ironic (the service's own bare
metal API or a real Ironic 39, at API 1.112), their traits included.

Identity is the runbook's name; ownership is ``extra["flavorsmith:managed"]`` set to "true",
written in the call that creates the runbook. Steps are compared in their ``order`` (Ironic
lists a runbook's steps in no fixed order), traits as a set. An update is one JSON patch of
what changed (steps, extra, description, public, owner) and, when the traits differ, one PUT
of them all; a create is a POST and that PUT (Ironic takes no traits in a runbook's body; a
runbook between the two has none, so no node may run it).

Ironic 39 refuses one patch on account of a runbook's state
(:func:`flavorsmith.ironic.runbooks.patch_refusal`): an owner set while the runbook is, or
becomes, public. There the plan replaces the runbook (delete, then create) and says why. A
patch that sets ``public`` clears the owner in Ironic, so such a patch sets the owner again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from flavorsmith.catalog.model import Catalog
from flavorsmith.clients.ironic import IronicRunbooks
from flavorsmith.ironic.runbooks import (
    apply_patch,
    checked_create,
    masked,
    patch_refusal,
    resets_owner,
)
from flavorsmith.store import runbooks as runbook_store
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change, key_changes, position_changes
from flavorsmith.sync.store_target import StoreTarget

MARKER = "flavorsmith:managed"
MARKER_VALUE = "true"
# The fields whose change Ironic may refuse in place (then the runbook is replaced).
STATEFUL = ("public", "owner")


def ordered(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Steps as Ironic runs them (ascending ``order``), each as a plain dict."""
    return [dict(s) for s in sorted(steps, key=lambda s: int(s["order"]))]


def shown(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Steps as Ironic shows them: an argument whose key names a secret is ``******``. The
    plan compares and prints these, so a secret is never shown and an unchanged runbook with
    a secret argument is not an update on every run (a changed secret alone is not seen)."""
    return [{**s, "args": masked(s.get("args") or {})} if "args" in s else dict(s) for s in steps]


@dataclass(frozen=True)
class ObservedRunbook:
    uuid: str
    name: str
    steps: list[dict[str, Any]]  # in their order
    traits: list[str]  # sorted
    extra: dict[str, Any]
    description: str | None = None
    public: bool = False
    owner: str | None = None

    @property
    def managed(self) -> bool:
        return self.extra.get(MARKER) == MARKER_VALUE

    @classmethod
    def of(cls, item: Mapping[str, Any]) -> ObservedRunbook:
        """A runbook as Ironic's API (1.112) shows it (secret arguments masked; the service's
        own store keeps them, and they are masked here as its API masks them)."""
        return cls(
            uuid=str(item["uuid"]),
            name=str(item["name"]),
            steps=shown(ordered(item.get("steps") or [])),
            traits=sorted(item.get("traits") or []),
            extra=dict(item.get("extra") or {}),
            description=item.get("description"),
            public=bool(item.get("public")),
            owner=item.get("owner"),
        )


@dataclass(frozen=True)
class RunbookAction:
    """One step. ``kind``: create, update, replace (delete and create again: Ironic refuses
    the change in place), delete, keep, unmanaged, conflict, noop."""

    kind: str
    name: str
    reason: str
    body: dict[str, Any] | None = None  # create, replace and update: the runbook wanted
    traits: tuple[str, ...] | None = None  # the traits to set (None: they stay as they are)
    uuid: str | None = None  # update, replace and delete
    patch: tuple[dict[str, Any], ...] = ()  # update: a JSON patch
    observed: ObservedRunbook | None = field(default=None, compare=False)  # as it is now

    @property
    def subject(self) -> str:
        return self.name

    @property
    def changes(self) -> tuple[Change, ...]:
        """Every field a create sets; what an update or a replace changes, old and new
        (steps by position in their order, ``extra`` key by key, traits one each); a replace
        marks the fields that force it."""
        body = self.body
        if body is None:
            return ()
        if self.kind == "create":
            out = [
                Change("add", f"steps[{i}]", new=st) for i, st in enumerate(shown(body["steps"]))
            ]
            out += [Change("add", "traits", new=t) for t in self.traits or ()]
            out += [Change("add", f"extra.{k}", new=v) for k, v in sorted(body["extra"].items())]
            for name in ("description", "owner"):
                if body.get(name) is not None:
                    out.append(Change("add", name, new=body[name]))
            if body["public"]:
                out.append(Change("add", "public", new=True))
            return tuple(out)
        have = self.observed
        if self.kind not in ("update", "replace") or have is None:
            return ()
        found = position_changes("steps", have.steps, shown(body["steps"]))
        traits = self.traits if self.traits is not None else tuple(have.traits)
        found += [Change("add", "traits", new=t) for t in traits if t not in have.traits]
        found += [Change("remove", "traits", old=t) for t in have.traits if t not in traits]
        found += key_changes("extra", have.extra, body["extra"], _keys(have.extra, body["extra"]))
        forces = self.kind == "replace"
        for name in ("description", *STATEFUL):
            old, new = getattr(have, name), body.get(name)
            if old == new:
                continue
            hard = forces and name in STATEFUL
            if old is None:
                found.append(Change("add", name, new=new, forces=hard))
            elif new is None:
                found.append(Change("remove", name, old=old, forces=hard))
            else:
                found.append(Change("change", name, old, new, forces=hard))
        return tuple(found)

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "replace", "delete")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind, "runbook": self.name, "reason": self.reason}
        if self.patch:
            out["patch"] = list(self.patch)
        if self.traits is not None:
            out["traits"] = list(self.traits)
        return out


def _keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return sorted(set(old) | set(new))


def desired_body(runbook: Mapping[str, Any]) -> dict[str, Any]:
    """The runbook as we create it (without its traits, which Ironic takes apart): the
    catalog's, steps in their order, our marker in ``extra``; ``owner`` only when it has one."""
    body: dict[str, Any] = {
        "name": runbook["name"],
        "steps": ordered(runbook["steps"]),
        "extra": {**(runbook.get("extra") or {}), MARKER: MARKER_VALUE},
        "public": bool(runbook.get("public")),
    }
    if runbook.get("description") is not None:
        body["description"] = runbook["description"]
    if runbook.get("owner") is not None:
        body["owner"] = runbook["owner"]
    return body


def _patch(
    have: ObservedRunbook, body: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The JSON patch that makes ``have`` the runbook ``body`` (traits aside), and why."""
    patch: list[dict[str, Any]] = []
    reasons = []
    if have.steps != shown(body["steps"]):
        patch.append({"op": "replace", "path": "/steps", "value": body["steps"]})
        reasons.append("steps changed")
    if have.extra != body["extra"]:
        patch.append({"op": "replace", "path": "/extra", "value": body["extra"]})
        reasons.append("extra changed")
    description = body.get("description")
    if have.description != description:
        if description is None:
            patch.append({"op": "remove", "path": "/description"})
        else:
            op = "add" if have.description is None else "replace"
            patch.append({"op": op, "path": "/description", "value": description})
        reasons.append("description changed")
    if have.public != body["public"]:
        patch.append({"op": "replace", "path": "/public", "value": body["public"]})
        reasons.append(f"public {str(have.public).lower()} -> {str(body['public']).lower()}")
    owner = body.get("owner")
    # A patch that sets public clears the owner first: set it again to keep it.
    if have.owner != owner or (owner is not None and resets_owner(patch)):
        if owner is None:
            patch.append({"op": "remove", "path": "/owner"})
        else:
            patch.append({"op": "replace", "path": "/owner", "value": owner})
        if have.owner != owner:
            reasons.append(f"owner {have.owner or 'none'} -> {owner or 'none'}")
    return patch, reasons


def plan(
    desired: Sequence[Mapping[str, Any]],
    observed: Mapping[str, ObservedRunbook],
    prune: bool = False,
) -> list[RunbookAction]:
    """The pure diff. ``desired``: catalog runbooks as Ironic API bodies (traits included);
    ``observed``: by name; ``prune`` deletes managed runbooks gone from the catalog."""
    actions: list[RunbookAction] = []
    wanted = {r["name"] for r in desired}
    for runbook in sorted(desired, key=lambda r: str(r["name"])):
        body = desired_body(runbook)
        name = body["name"]
        traits = tuple(sorted(set(runbook["traits"])))
        have = observed.get(name)
        if have is None:
            reason = "in the catalog, not in Ironic"
            actions.append(RunbookAction("create", name, reason, body, traits))
            continue
        if not have.managed:
            actions.append(
                RunbookAction(
                    "conflict",
                    name,
                    f"a runbook named {name} exists but is not managed by Flavorsmith (no "
                    f"extra {MARKER}={MARKER_VALUE}); set that to adopt it, or delete it",
                )
            )
            continue
        patch, reasons = _patch(have, body)
        new_traits = traits if list(traits) != have.traits else None
        if new_traits is not None:
            reasons.append("traits changed")
        refused = patch_refusal(have.public, patch)
        if refused is not None:
            reason = (
                f"{'; '.join(reasons)}: Ironic refuses that change in place ({refused!r}), so "
                "the runbook is deleted and created again"
            )
            actions.append(
                RunbookAction("replace", name, reason, body, traits, have.uuid, observed=have)
            )
        elif patch or new_traits is not None:
            actions.append(
                RunbookAction(
                    "update",
                    name,
                    "; ".join(reasons),
                    body,
                    new_traits,
                    have.uuid,
                    tuple(patch),
                    observed=have,
                )
            )
        else:
            actions.append(RunbookAction("noop", name, "up to date"))
    for have in sorted(observed.values(), key=lambda o: o.name):
        if have.name in wanted:
            continue
        if not have.managed:
            actions.append(
                RunbookAction("unmanaged", have.name, "not created by Flavorsmith; left alone")
            )
        elif prune:
            actions.append(
                RunbookAction(
                    "delete",
                    have.name,
                    "managed by Flavorsmith and no longer in the catalog",
                    uuid=have.uuid,
                    observed=have,
                )
            )
        else:
            actions.append(
                RunbookAction(
                    "keep", have.name, "managed but no longer in the catalog; --prune deletes it"
                )
            )
    return actions


class RunbookTarget(Protocol):
    """An Ironic's runbooks, as the steps of this kind call them (``ident``: a UUID or a
    name)."""

    calls: int

    def observe(self) -> dict[str, ObservedRunbook]: ...
    def create(self, body: dict[str, Any]) -> None: ...
    def update(self, ident: str, patch: Sequence[dict[str, Any]]) -> None: ...
    def set_traits(self, ident: str, traits: Sequence[str]) -> None: ...
    def delete(self, ident: str) -> None: ...


def desired(catalog: Catalog) -> list[dict[str, Any]]:
    """The catalog's runbooks as Ironic API bodies (traits included)."""
    return [r.as_api() for r in catalog.runbooks]


def steps(action: RunbookAction, target: RunbookTarget) -> list[Step]:
    """The target calls that carry out one action. A create's traits are set by name, as
    the runbook's UUID is Ironic's to choose."""
    out: list[Step] = []
    if action.kind in ("replace", "delete"):
        assert action.uuid is not None
        out.append(partial(target.delete, action.uuid))
    if action.kind in ("create", "replace"):
        assert action.body is not None and action.traits is not None
        out.append(partial(target.create, action.body))
        out.append(partial(target.set_traits, action.name, action.traits))
    if action.kind == "update":
        assert action.uuid is not None
        if action.patch:
            out.append(partial(target.update, action.uuid, action.patch))
        if action.traits is not None:
            out.append(partial(target.set_traits, action.uuid, action.traits))
    return out


class StoreRunbooks(StoreTarget):
    """The service's own runbooks (what its ``/baremetal/v1/runbooks`` serves), checked and
    patched by the rules its API applies (Ironic 39's, at 1.112)."""

    def observe(self) -> dict[str, ObservedRunbook]:
        rows: list[dict[str, Any]] = self._run(runbook_store.list_all, write=False)
        return {r["name"]: ObservedRunbook.of(r) for r in rows}

    def create(self, body: dict[str, Any]) -> None:
        self._run(lambda c: runbook_store.create(c, checked_create(body, traits_api=True)))

    def update(self, ident: str, patch: Sequence[dict[str, Any]]) -> None:
        def work(connection: Any) -> None:
            row = runbook_store.find(connection, ident, lock=True)
            changes = apply_patch(row, list(patch), traits_api=True)
            runbook_store.save(connection, row, changes)

        self._run(work)

    def set_traits(self, ident: str, traits: Sequence[str]) -> None:
        def work(connection: Any) -> None:
            row = runbook_store.find(connection, ident, lock=True)
            runbook_store.set_traits(connection, row, traits)

        self._run(work)

    def delete(self, ident: str) -> None:
        self._run(lambda c: runbook_store.remove(c, runbook_store.find(c, ident, lock=True)))


class SdkRunbooks(IronicRunbooks):
    """Any Ironic API at 1.112 or later (Ironic 39), through an openstacksdk connection."""

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)  # extra specs are no concern of runbooks

    def observe(self) -> dict[str, ObservedRunbook]:
        return {item["name"]: ObservedRunbook.of(item) for item in self.runbooks()}

    def create(self, body: dict[str, Any]) -> None:
        self.create_runbook(body)

    def update(self, ident: str, patch: Sequence[dict[str, Any]]) -> None:
        self.patch_runbook(ident, patch)

    def set_traits(self, ident: str, traits: Sequence[str]) -> None:
        self.set_runbook_traits(ident, traits)

    def delete(self, ident: str) -> None:
        self.delete_runbook(ident)


KIND: Kind[list[dict[str, Any]], ObservedRunbook, RunbookAction, RunbookTarget] = Kind(
    name="runbooks",
    noun="runbooks",
    subject="runbook",
    service="baremetal",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=StoreRunbooks,
    sdk_target=SdkRunbooks,
)
