"""What a classification changes on an Ironic node, and why (pure): the resource class only
when exactly one device type matched, and only the traits that trait rule files own."""

from __future__ import annotations

from dataclasses import dataclass

from flavorsmith.classify.classification import Classification


@dataclass(frozen=True)
class NodeUpdate:
    resource_class: str | None  # the new resource class; None leaves the node's as it is
    add: tuple[str, ...]
    remove: tuple[str, ...]
    reasons: tuple[str, ...]  # one line each, for the log

    @property
    def changes(self) -> bool:
        return self.resource_class is not None or bool(self.add or self.remove)


def node_update(result: Classification, resource_class: str | None) -> NodeUpdate:
    """The update of a node whose resource class is ``resource_class`` (the traits it has were
    given to the classification)."""
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
    return NodeUpdate(
        resource_class=new_class,
        add=tuple(sorted(traits.added)),
        remove=tuple(sorted(traits.removed)),
        reasons=tuple(reasons),
    )
