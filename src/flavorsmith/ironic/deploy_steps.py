"""Ordering a deploy's steps (pure): the driver's default steps plus those of every deploy template
the instance traits request, checked and ordered as Ironic orders them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flavorsmith.catalog.model import Flavor
from flavorsmith.ironic.deploy_templates import Template
from flavorsmith.ironic.driver_steps import SKIPS_UNKNOWN_STEPS, DriverStep, catalogue
from flavorsmith.resource_classes import placement_name

# When priorities tie, Ironic runs the step of the higher-ranked interface first.
INTERFACE_RANK = {
    "vendor": 7,
    "power": 6,
    "management": 5,
    "firmware": 4,
    "deploy": 3,
    "bios": 2,
    "raid": 1,
}


@dataclass(frozen=True)
class OrderedStep:
    interface: str
    step: str
    priority: int
    args: dict[str, Any]
    source: str  # "default" or the template name

    def as_dict(self) -> dict[str, Any]:
        return {
            "interface": self.interface,
            "step": self.step,
            "priority": self.priority,
            "args": self.args,
            "source": self.source,
        }


@dataclass(frozen=True)
class TemplateDecision:
    template: str
    applied: bool
    reason: str


@dataclass
class StepOrder:
    steps: list[OrderedStep] = field(default_factory=list)
    templates: list[TemplateDecision] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # template steps Ironic leaves out

    @property
    def valid(self) -> bool:
        return not self.errors


def order_steps(
    driver: str,
    driver_steps: Sequence[DriverStep],
    templates: Sequence[Template],
    instance_traits: Sequence[str],
) -> StepOrder:
    result = StepOrder()
    wanted = set(instance_traits)
    matching = []
    for template in sorted(templates, key=lambda t: t.name):
        if template.name in wanted:
            matching.append(template)
            result.templates.append(
                TemplateDecision(template.name, True, "its trait is in the instance traits")
            )
        else:
            result.templates.append(
                TemplateDecision(
                    template.name, False, f"{template.name} is not among the instance traits"
                )
            )
    named = {t.name for t in templates}
    for trait in sorted(wanted - named):
        result.templates.append(
            TemplateDecision(
                trait, False, "no deploy template has this name: the trait only steers scheduling"
            )
        )
    by_key = {s.key: s for s in driver_steps}
    chosen: dict[tuple[str, str], OrderedStep] = {
        s.key: OrderedStep(s.interface, s.step, s.priority, {}, "default") for s in driver_steps
    }
    requested_by: dict[tuple[str, str], str] = {}
    for template in matching:
        for step in template.steps:
            label = f"{step.interface}.{step.step}"
            if step.key in requested_by:
                result.errors.append(
                    "deploy steps from all deploy templates matching this node's instance "
                    "traits cannot have the same interface and step. Duplicate deploy steps "
                    f"for {label} ({requested_by[step.key]} and {template.name})"
                )
                continue
            requested_by[step.key] = template.name
            driver_step = by_key.get(step.key)
            if driver_step is None and not driver_steps:
                # A driver we ship no catalogue for: nothing to check the step against.
                chosen[step.key] = OrderedStep(
                    step.interface, step.step, step.priority, step.args, template.name
                )
                continue
            if driver_step is None and driver in SKIPS_UNKNOWN_STEPS:
                result.skipped.append(
                    f"deploy step {label} requested by deploy template {template.name} is "
                    f"skipped: driver {driver} has no such deploy step, and its deploy (no "
                    "agent) never checks the templates' steps in full"
                )
                continue
            if driver_step is None:
                result.errors.append(
                    f"deploy step {label} requested by deploy template {template.name} is not a "
                    f"deploy step of driver {driver}"
                )
                continue
            unexpected = sorted(set(step.args) - set(driver_step.args))
            if unexpected:
                result.errors.append(
                    f"deploy step {label} of deploy template {template.name} has these unexpected "
                    f"arguments: {', '.join(unexpected)}"
                )
            if step.priority > 0:
                missing = sorted(
                    a for a, required in driver_step.args.items() if required and a not in step.args
                )
                if missing:
                    result.errors.append(
                        f"deploy step {label} of deploy template {template.name} is missing these "
                        f"required arguments: {', '.join(missing)}"
                    )
                if driver_step.core:
                    result.errors.append(
                        f"deploy step {step.step} on interface {step.interface} is a core step and "
                        "cannot be overridden by user steps. It may be disabled by setting "
                        "the priority to 0"
                    )
            chosen[step.key] = OrderedStep(
                step.interface, step.step, step.priority, step.args, template.name
            )
    result.steps = sorted(
        (s for s in chosen.values() if s.priority > 0),
        key=lambda s: (s.priority, INTERFACE_RANK.get(s.interface, 0)),
        reverse=True,
    )
    return result


def order_for_driver(
    driver: str, templates: Sequence[Template], instance_traits: Sequence[str]
) -> StepOrder:
    """:func:`order_steps` with the shipped step catalogue of ``driver``."""
    return order_steps(driver, catalogue(driver), templates, instance_traits)


def deploy_problem(
    driver: str, templates: Sequence[Template], instance_traits: Sequence[str]
) -> str:
    """Why the matching deploy templates cannot run on this driver, or '' when they can
    (Ironic's wording)."""
    result = order_for_driver(driver, templates, instance_traits)
    if result.valid:
        return ""
    matching = ",".join(d.template for d in result.templates if d.applied)
    return (
        "Validation of deploy steps from deploy templates matching this node's instance "
        f"traits failed. Matching deploy templates: {matching}. Errors: " + "; ".join(result.errors)
    )


def deploy_plan(
    node: dict[str, Any],
    node_traits: Sequence[str],
    templates: Sequence[Template],
    flavor: Flavor | None = None,
) -> dict[str, Any]:
    """What provisioning ``node`` (its uuid, name, driver, resource_class, instance_info)
    would run: the ordered steps and where each comes from, why each deploy template was or
    was not applied, what Ironic (or Nova) would refuse (``errors``; empty when it would
    deploy) and the template steps Ironic would leave out (``skipped``). With ``flavor``, its
    required traits are the instance traits, as Nova's ironic driver sets them; otherwise the
    node's ``instance_info.traits``.
    ``flavorsmith deploy plan`` prints it; the dashboard's flavor page shows it."""
    if flavor is not None:
        instance_traits = sorted(flavor.required_traits)
    else:
        raw = (node.get("instance_info") or {}).get("traits", [])
        instance_traits = [t for t in raw if isinstance(t, str)] if isinstance(raw, list) else []
    result = order_for_driver(node["driver"], templates, instance_traits)
    missing = sorted(set(instance_traits) - set(node_traits))
    errors = list(result.errors)
    if missing:
        errors.insert(
            0,
            "Cannot specify instance traits that are not also set on the node. "
            f"Node {node['uuid']} is missing traits {', '.join(missing)}",
        )
    if flavor is not None:
        has = node.get("resource_class")
        needs = flavor.resource_class
        if not has or placement_name(has) != placement_name(needs):
            held = f"resource class {has}" if has else "no resource class"
            errors.insert(
                0,
                f"node {node['name'] or node['uuid']} has {held}; flavor {flavor.name} "
                f"needs {needs}: Nova would never place it there",
            )
    return {
        "node": node["name"] or node["uuid"],
        "driver": node["driver"],
        "instance_traits": instance_traits,
        "steps": [s.as_dict() for s in result.steps],
        "templates": [
            {"template": d.template, "applied": d.applied, "reason": d.reason}
            for d in result.templates
        ],
        "errors": errors,
        "skipped": list(result.skipped),
    }
