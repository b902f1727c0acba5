"""The deploy-template kind: the catalog's deploy templates kept equal in an Ironic (the
service's own bare metal API or a real one).

Identity is the template name (its trait); ownership is ``extra["flavorsmith:managed"]`` set
to "true" on the template, written in the same call that creates it. Everything about a
template can change in place (one JSON patch), so there is no replace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol
from urllib.parse import quote

from flavorsmith.catalog.model import Catalog
from flavorsmith.clients.ironic import IronicTarget
from flavorsmith.ironic.deploy_templates import apply_patch, checked
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.sync.engine import Kind, SpecCheck, Step
from flavorsmith.sync.report import Change, key_changes, position_changes
from flavorsmith.sync.store_target import StoreTarget

MARKER = "flavorsmith:managed"
MARKER_VALUE = "true"
MICROVERSION = (1, 55)  # deploy templates arrived in Ironic's API 1.55


@dataclass(frozen=True)
class ObservedTemplate:
    uuid: str
    name: str
    steps: list[dict[str, Any]]
    extra: dict[str, Any]
    description: str | None = None
    keeps_description: bool = True  # a real Ironic drops descriptions: never compare them

    @property
    def managed(self) -> bool:
        return self.extra.get(MARKER) == MARKER_VALUE


@dataclass(frozen=True)
class TemplateAction:
    """One step. ``kind``: create, update, delete, keep, unmanaged, conflict, noop."""

    kind: str
    name: str
    reason: str
    body: dict[str, Any] | None = None  # create: the whole template
    uuid: str | None = None  # update and delete
    patch: tuple[dict[str, Any], ...] = ()  # update: a JSON patch
    observed: ObservedTemplate | None = field(default=None, compare=False)  # as it is now

    @property
    def subject(self) -> str:
        return self.name

    @property
    def changes(self) -> tuple[Change, ...]:
        """Every field a create sets; what an update changes, old and new (extra key by key,
        steps by position)."""
        if self.kind == "create" and self.body is not None:
            out = [Change("add", f"steps[{i}]", new=st) for i, st in enumerate(self.body["steps"])]
            out += [
                Change("add", f"extra.{k}", new=v) for k, v in sorted(self.body["extra"].items())
            ]
            if "description" in self.body:
                out.append(Change("add", "description", new=self.body["description"]))
            return tuple(out)
        if self.kind != "update" or self.observed is None:
            return ()
        have, found = self.observed, []
        for op in self.patch:
            path = op["path"].lstrip("/")
            if path == "extra":
                old, new = have.extra, op["value"]
                found += key_changes("extra", old, new, sorted(set(old) | set(new)))
            elif path == "steps":
                found += position_changes("steps", have.steps, op["value"])
            elif op["op"] == "remove":
                found.append(Change("remove", path, old=getattr(have, path)))
            else:
                found.append(Change("change", path, getattr(have, path), op["value"]))
        return tuple(found)

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "delete")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind, "template": self.name, "reason": self.reason}
        if self.patch:
            out["patch"] = list(self.patch)
        return out


def desired_body(template: Mapping[str, Any]) -> dict[str, Any]:
    """The template as we create it: the catalog's, with our marker in ``extra``."""
    body = {
        "name": template["name"],
        "steps": [dict(s) for s in template["steps"]],
        "extra": {**(template.get("extra") or {}), MARKER: MARKER_VALUE},
    }
    if template.get("description") is not None:
        body["description"] = template["description"]
    return body


def plan(
    desired: Sequence[Mapping[str, Any]],
    observed: Mapping[str, ObservedTemplate],
    prune: bool = False,
) -> list[TemplateAction]:
    """The pure diff. ``desired``: catalog templates as Ironic API bodies; ``observed``: by
    name; ``prune`` deletes managed templates gone from the catalog."""
    actions: list[TemplateAction] = []
    wanted = {t["name"] for t in desired}
    for template in sorted(desired, key=lambda t: str(t["name"])):
        body = desired_body(template)
        name = body["name"]
        have = observed.get(name)
        if have is None:
            actions.append(TemplateAction("create", name, "in the catalog, not in Ironic", body))
            continue
        if not have.managed:
            actions.append(
                TemplateAction(
                    "conflict",
                    name,
                    f"a deploy template named {name} exists but is not managed by Flavorsmith "
                    f"(no extra {MARKER}={MARKER_VALUE}); set that to adopt it, or delete it",
                )
            )
            continue
        patch: list[dict[str, Any]] = []
        reasons = []
        if have.steps != body["steps"]:
            patch.append({"op": "replace", "path": "/steps", "value": body["steps"]})
            reasons.append("steps changed")
        if have.extra != body["extra"]:
            patch.append({"op": "replace", "path": "/extra", "value": body["extra"]})
            reasons.append("extra changed")
        want_description = body.get("description")
        if have.keeps_description and have.description != want_description:
            if want_description is None:
                patch.append({"op": "remove", "path": "/description"})
            else:
                op = "add" if have.description is None else "replace"
                patch.append({"op": op, "path": "/description", "value": want_description})
            reasons.append("description changed")
        if patch:
            actions.append(
                TemplateAction(
                    "update",
                    name,
                    "; ".join(reasons),
                    uuid=have.uuid,
                    patch=tuple(patch),
                    observed=have,
                )
            )
        else:
            actions.append(TemplateAction("noop", name, "up to date"))
    for have in sorted(observed.values(), key=lambda o: o.name):
        if have.name in wanted:
            continue
        if not have.managed:
            actions.append(
                TemplateAction("unmanaged", have.name, "not created by Flavorsmith; left alone")
            )
        elif prune:
            actions.append(
                TemplateAction(
                    "delete",
                    have.name,
                    "managed by Flavorsmith and no longer in the catalog",
                    uuid=have.uuid,
                )
            )
        else:
            actions.append(
                TemplateAction(
                    "keep", have.name, "managed but no longer in the catalog; --prune deletes it"
                )
            )
    return actions


class TemplateTarget(Protocol):
    """An Ironic's deploy templates, as the steps of this kind call them."""

    calls: int

    def observe(self) -> dict[str, ObservedTemplate]: ...
    def create(self, body: dict[str, Any]) -> None: ...
    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None: ...
    def delete(self, uuid: str) -> None: ...


def desired(catalog: Catalog) -> list[dict[str, Any]]:
    """The catalog's deploy templates as Ironic API bodies."""
    return [t.as_api() for t in catalog.deploy_templates]


def steps(action: TemplateAction, target: TemplateTarget) -> list[Step]:
    """The target calls that carry out one action."""
    if action.kind == "create":
        assert action.body is not None
        return [partial(target.create, action.body)]
    assert action.uuid is not None
    if action.kind == "update":
        return [partial(target.update, action.uuid, action.patch)]
    if action.kind == "delete":
        return [partial(target.delete, action.uuid)]
    return []


class StoreTemplates(StoreTarget):
    """The service's own deploy templates."""

    def observe(self) -> dict[str, ObservedTemplate]:
        rows: list[dict[str, Any]] = self._run(template_store.list_all, write=False)
        return {
            r["name"]: ObservedTemplate(
                r["uuid"], r["name"], r["steps"], r["extra"], r["description"]
            )
            for r in rows
        }

    def create(self, body: dict[str, Any]) -> None:
        self._run(lambda c: template_store.create(c, checked(body)))

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        def work(connection: Any) -> None:
            row = template_store.find(connection, uuid, lock=True)
            template_store.save(connection, row, apply_patch(row, list(patch)))

        self._run(work)

    def delete(self, uuid: str) -> None:
        self._run(lambda c: template_store.remove(c, template_store.find(c, uuid, lock=True)))


class SdkTemplates(IronicTarget):
    """Any Ironic API (1.55 or later), through an openstacksdk connection.

    A real Ironic drops a template's description, so descriptions are sent on create but
    never compared (Flavorsmith's own API keeps them)."""

    version = MICROVERSION
    needs = "deploy templates need"

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)  # extra specs are no concern of deploy templates

    def observe(self) -> dict[str, ObservedTemplate]:
        out: dict[str, ObservedTemplate] = {}
        params: dict[str, Any] = {"detail": "True", "limit": 1000}
        while True:
            body = self.request("GET", "/deploy_templates", MICROVERSION, params=params)
            for item in body["deploy_templates"]:
                out[item["name"]] = ObservedTemplate(
                    item["uuid"],
                    item["name"],
                    item["steps"],
                    item.get("extra") or {},
                    item.get("description"),
                    keeps_description="description" in item,
                )
            if not body.get("next") or not body["deploy_templates"]:
                return out
            params = {**params, "marker": body["deploy_templates"][-1]["uuid"]}

    def create(self, body: dict[str, Any]) -> None:
        self.request("POST", "/deploy_templates", MICROVERSION, body=body)

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        path = f"/deploy_templates/{quote(uuid, safe='')}"
        self.request("PATCH", path, MICROVERSION, body=list(patch))

    def delete(self, uuid: str) -> None:
        self.request("DELETE", f"/deploy_templates/{quote(uuid, safe='')}", MICROVERSION)


KIND: Kind[list[dict[str, Any]], ObservedTemplate, TemplateAction, TemplateTarget] = Kind(
    name="deploy-templates",
    noun="deploy templates",
    subject="template",
    service="baremetal",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=StoreTemplates,
    sdk_target=SdkTemplates,
)
