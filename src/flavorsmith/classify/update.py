"""What a classification changes on a node, and why (pure): the resource class only when
exactly one device type matched and Ironic allows the change in the node's provision state,
and only the traits that trait rule files own. The one decision every writer of a
classification applies: the service's own nodes (``nodes.service.classify``), a real Ironic
(the classification sync kind) and Ironic's own inspection (the inspection hook)."""

from __future__ import annotations

from dataclasses import dataclass

from flavorsmith.classify.classification import Classification
from flavorsmith.ironic.nodes import resource_class_refusal


@dataclass(frozen=True)
class NodeUpdate:
    resource_class: str | None  # the new resource class; None leaves the node's as it is
    add: tuple[str, ...]
    remove: tuple[str, ...]
    reasons: tuple[str, ...]  # one line each, for the log
    # Ironic's refusal of the new resource class in the node's provision state: a refused
    # update is applied not at all (neither the resource class nor the traits).
    refused: str | None = None

    @property
    def changes(self) -> bool:
        return self.resource_class is not None or bool(self.add or self.remove)


def node_update(
    result: Classification,
    resource_class: str | None,
    *,
    node: str,
    provision_state: str | None,
) -> NodeUpdate:
    """The update of the node ``node`` (its UUID) whose resource class is ``resource_class``
    in ``provision_state``; the traits it has were given to the classification."""
    device = result.device
    reasons: list[str] = []
    new_class = None
    if device.outcome == "matched" and device.resource_class is not None:
        matched = next(c for c in device.candidates if c.ok)
        why = "; ".join(f"{c.field}: {c.detail}" for c in matched.checks)
        if device.resource_class == resource_class:
            reasons.append(f"resource class {resource_class} stays: {device.summary} ({why})")
        else:
            new_class = device.resource_class
            was = resource_class or "none"
            reasons.append(f"resource class {was} -> {new_class}: {device.summary} ({why})")
    else:
        reasons.append(f"resource class {resource_class or 'none'} left as it is: {device.summary}")
        if device.outcome == "no-match":
            reasons += [
                f"  {c.resource_class} ({c.device_type}): "
                + "; ".join(f"{k.field}: {k.detail}" for k in c.failed)
                for c in device.candidates
            ]
    traits = result.traits
    reasons += [
        f"trait {d.trait}: {d.reason} (rules {d.rule_set}: {d.rule})" for d in traits.decisions
    ]
    reasons += [
        f"trait {t} removed: the rules that own it no longer set it" for t in sorted(traits.removed)
    ]
    if traits.kept:
        reasons.append(f"traits no rule owns, kept: {', '.join(sorted(traits.kept))}")
    refused = (
        resource_class_refusal(node, resource_class, provision_state)
        if new_class is not None
        else None
    )
    return NodeUpdate(
        resource_class=new_class,
        add=tuple(sorted(traits.added)),
        remove=tuple(sorted(traits.removed)),
        reasons=tuple(reasons),
        refused=refused,
    )
