"""The inspection-rule kind: the catalog's trait rules that Ironic can run itself, kept as
Ironic's own inspection rules (``/v1/inspection_rules``, API 1.96), so that Ironic's built-in
inspection sets those traits where the Flavorsmith hook cannot be installed. The translation
and what it cannot express are :mod:`flavorsmith.ironic.inspection_rules`; each trait rule that
needs the hook is a ``needs-hook`` line of the plan (it writes nothing).

Identity is the rule's description, which names the trait rule; ownership is the description's
``flavorsmith: `` prefix: every other rule is the operator's and left alone. A managed rule
changes in place (one JSON patch of conditions, actions, priority and phase). A rule Ironic
hides (``sensitive``) cannot be compared and Ironic refuses to unset the flag: a conflict.

The service's own database has no inspection rules (no store target), and the watcher does
not keep them: ``sync plan|apply --only inspection-rules --cloud|--endpoint`` runs it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol
from urllib.parse import quote

from flavorsmith.catalog.model import Catalog
from flavorsmith.clients.ironic import PAGE, IronicTarget
from flavorsmith.errors import TargetError
from flavorsmith.ironic.inspection_rules import MARKER, Translation, is_managed, translate
from flavorsmith.sync.engine import Kind, SpecCheck, Step

MICROVERSION = (1, 96)  # inspection rules arrived in Ironic's API 1.96
COMPARED = ("conditions", "actions", "priority", "phase")


@dataclass(frozen=True)
class ObservedRule:
    uuid: str
    description: str | None
    conditions: list[dict[str, Any]] | None  # None: a sensitive rule, hidden by Ironic
    actions: list[dict[str, Any]] | None
    priority: int = 0
    phase: str | None = "main"
    sensitive: bool = False

    @property
    def managed(self) -> bool:
        return is_managed(self.description)

    @property
    def label(self) -> str:
        if self.description and self.managed:
            return self.description[len(MARKER) :]
        return f"{self.uuid} ({self.description})" if self.description else self.uuid

    def field(self, name: str) -> Any:
        return getattr(self, name)


@dataclass(frozen=True)
class RuleAction:
    """One step. ``kind``: create, update, delete, keep, noop, unmanaged, conflict, or
    needs-hook (a trait rule Ironic cannot run; nothing is written)."""

    kind: str
    rule: str  # the description without the marker, or a trait rule / trait for needs-hook
    reason: str
    body: dict[str, Any] | None = None  # create: the whole rule
    uuid: str | None = None  # update and delete
    patch: tuple[dict[str, Any], ...] = ()  # update: a JSON patch

    @property
    def subject(self) -> str:
        return self.rule

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "delete")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind, "rule": self.rule, "reason": self.reason}
        if self.uuid:
            out["uuid"] = self.uuid
        if self.body is not None:
            out["body"] = self.body
        if self.patch:
            out["patch"] = list(self.patch)
        return out


def desired(catalog: Catalog) -> Translation:
    """The catalog's trait rules as Ironic inspection rules, and what needs the hook."""
    return translate(catalog.trait_rules)


def plan(
    wanted: Translation, observed: Mapping[str, ObservedRule], prune: bool = False
) -> list[RuleAction]:
    """The pure diff. ``observed``: Ironic's rules by :func:`key`; ``prune`` deletes managed
    rules gone from the catalog."""
    actions: list[RuleAction] = []
    bodies = wanted.by_description()
    have_by_description: dict[str, ObservedRule] = {}
    extra: list[ObservedRule] = []
    for rule in sorted(observed.values(), key=lambda r: (r.description or "", r.uuid)):
        if rule.managed and rule.description is not None:
            if rule.description in have_by_description:
                extra.append(rule)  # a second rule with one description: a leftover
                continue
            have_by_description[rule.description] = rule
        else:
            extra.append(rule)
    for text in sorted(bodies):
        body = bodies[text]
        label = text[len(MARKER) :]
        have = have_by_description.get(text)
        if have is None:
            actions.append(RuleAction("create", label, "in the catalog, not in Ironic", body))
        elif have.sensitive:
            actions.append(
                RuleAction(
                    "conflict",
                    label,
                    "Ironic hides this rule (sensitive) and will not unset the flag; delete "
                    "it and sync again",
                    uuid=have.uuid,
                )
            )
        else:
            patch = [
                {"op": "replace", "path": f"/{name}", "value": body[name]}
                for name in COMPARED
                if have.field(name) != body[name]
            ]
            if patch:
                changed = ", ".join(p["path"][1:] for p in patch)
                actions.append(
                    RuleAction(
                        "update", label, f"{changed} changed", uuid=have.uuid, patch=tuple(patch)
                    )
                )
            else:
                actions.append(RuleAction("noop", label, "up to date", uuid=have.uuid))
    gone = [r for r in have_by_description.values() if r.description not in bodies]
    for have in gone + extra:
        if not have.managed:
            actions.append(
                RuleAction(
                    "unmanaged",
                    have.label,
                    f"not created by Flavorsmith (its description does not start with "
                    f"{MARKER.strip()!r}); left alone",
                    uuid=have.uuid,
                )
            )
            continue
        why = (
            "managed by Flavorsmith and no longer in the catalog"
            if have in gone
            else "a second managed rule with the same description"
        )
        if prune:
            actions.append(RuleAction("delete", have.label, why, uuid=have.uuid))
        else:
            actions.append(
                RuleAction("keep", have.label, f"{why}; --prune deletes it", uuid=have.uuid)
            )
    actions += [RuleAction("needs-hook", n.subject, n.reason) for n in wanted.needs_hook]
    return actions


def key(rule: ObservedRule) -> str:
    """How a target keys what it observes: by UUID (descriptions need not be unique)."""
    return rule.uuid


class RuleTarget(Protocol):
    """An Ironic's inspection rules, as the steps of this kind call them."""

    calls: int

    def observe(self) -> dict[str, ObservedRule]: ...
    def create(self, body: dict[str, Any]) -> None: ...
    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None: ...
    def delete(self, uuid: str) -> None: ...


def steps(action: RuleAction, target: RuleTarget) -> list[Step]:
    """The target calls that carry out one action."""
    if action.kind == "create":
        assert action.body is not None
        return [partial(target.create, action.body)]
    if action.kind == "update":
        assert action.uuid is not None
        return [partial(target.update, action.uuid, action.patch)]
    if action.kind == "delete":
        assert action.uuid is not None
        return [partial(target.delete, action.uuid)]
    return []


def observed_rule(item: Mapping[str, Any]) -> ObservedRule:
    """One rule as ``GET /v1/inspection_rules?detail=True`` prints it."""
    return ObservedRule(
        uuid=str(item["uuid"]),
        description=item.get("description"),
        conditions=item.get("conditions"),
        actions=item.get("actions"),
        priority=int(item.get("priority") or 0),
        phase=item.get("phase"),
        sensitive=bool(item.get("sensitive")),
    )


class SdkInspectionRules(IronicTarget):
    """Any Ironic API (1.96 or later), through an openstacksdk connection."""

    version = MICROVERSION
    needs = "inspection rules need"

    def __init__(self, connection: Any, spec_check: SpecCheck | None = None) -> None:
        super().__init__(connection)  # extra specs are no concern of inspection rules

    def observe(self) -> dict[str, ObservedRule]:
        out: dict[str, ObservedRule] = {}
        params: dict[str, Any] = {"detail": "True", "limit": PAGE}
        while True:
            body = self.request("GET", "/inspection_rules", MICROVERSION, params=params)
            page = body.get("inspection_rules") if isinstance(body, dict) else None
            if not isinstance(page, list):
                raise TargetError(
                    "GET /inspection_rules: the answer has no rule list (is this Ironic?)"
                )
            for item in page:
                rule = observed_rule(item)
                out[key(rule)] = rule
            if not page or not body.get("next"):
                return out
            params = {**params, "marker": page[-1]["uuid"]}

    def create(self, body: dict[str, Any]) -> None:
        self.request("POST", "/inspection_rules", MICROVERSION, body=body)

    def update(self, uuid: str, patch: Sequence[dict[str, Any]]) -> None:
        path = f"/inspection_rules/{quote(uuid, safe='')}"
        self.request("PATCH", path, MICROVERSION, body=list(patch))

    def delete(self, uuid: str) -> None:
        self.request("DELETE", f"/inspection_rules/{quote(uuid, safe='')}", MICROVERSION)


KIND: Kind[Translation, ObservedRule, RuleAction, RuleTarget] = Kind(
    name="inspection-rules",
    noun="inspection rules",
    subject="rule",
    service="baremetal",
    desired=desired,
    plan=plan,
    steps=steps,
    store_target=None,  # the service's own database has no inspection rules
    sdk_target=SdkInspectionRules,
    watched=False,
)
