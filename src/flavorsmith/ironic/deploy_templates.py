"""Deploy templates as Ironic validates them (pure): a trait name and a list of steps.

One rule set for every way a template arrives: :func:`problems` holds the rules, located in
the template, and both the catalog (through the rules passed to it) and the baremetal API
(:func:`checked`, in Ironic's words) refuse what it reports as an error. The API also checks
the shape of a request body (:func:`check_steps`), which a catalog file's JSON Schema checks.

The one intended difference: the catalog checks each step against the driver step
catalogues (``catalogues``: a step no known driver offers, arguments no driver accepts or
a required one missing, a core step moved). Ironic's API accepts any step and checks it
against the node's driver when the node deploys; the baremetal API does the same
(``ironic.deploy_steps``, node validation), so a template a catalog refuses for its
arguments is accepted by POST /baremetal/v1/deploy_templates and refused per node."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from flavorsmith import jsonsafe, traits
from flavorsmith.errors import Invalid
from flavorsmith.ironic import idents
from flavorsmith.ironic.driver_steps import DriverStep
from flavorsmith.ironic.patch import patched
from flavorsmith.query_values import ascii_int, shown_repr

INTERFACES = ("deploy", "bios", "raid", "management", "power", "firmware", "vendor")
STEP_KEYS = {"interface", "step", "args", "priority"}
PATCHABLE = ("description", "extra", "name", "steps")


@dataclass(frozen=True)
class Step:
    interface: str
    step: str
    args: dict[str, Any]
    priority: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.interface, self.step)

    def as_dict(self) -> dict[str, Any]:
        return {
            "interface": self.interface,
            "step": self.step,
            "args": self.args,
            "priority": self.priority,
        }


@dataclass(frozen=True)
class Template:
    name: str
    steps: tuple[Step, ...]
    description: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TemplateProblem:
    """One thing wrong with a template: where (a path into the template), what, a stable
    code; a warning does not refuse the template."""

    path: tuple[str | int, ...]
    message: str
    code: str
    warning: bool = False


def valid_name(name: Any) -> TypeGuard[str]:
    """A deploy template is named by a trait Ironic accepts on a node."""
    return isinstance(name, str) and traits.is_valid_node_trait(name)


# Ironic's logical names (URL-unreserved characters): what a template identifier may be
# besides a UUID.
def check_ident(ident: str) -> str:
    """A deploy template identifier in a path: a UUID or a name, else Ironic's 400."""
    return idents.check_ident(ident, "template")


def check_name(name: Any) -> str:
    if not valid_name(name):
        raise Invalid(
            f"Invalid deploy template name {name!r}: it must be a trait, a standard os-traits name "
            "or CUSTOM_ followed by A-Z, 0-9 and _ (at most 255 characters)"
        )
    return name


PRIORITY_PROBLEM = "steps-priority"


def check_steps(steps: Any) -> tuple[Step, ...]:
    """The steps of a request body in the shape Ironic's schema asks (see :func:`shaped`);
    the first problem refuses them (a bad priority in Ironic's words)."""
    out, found = shaped(steps)
    if found:
        first = found[0]
        if first.code == PRIORITY_PROBLEM and isinstance(first.path[1], int):
            raise Invalid(_priority_in_ironic_words(steps[first.path[1]]["priority"]))
        raise Invalid(first.message)
    return out


def _priority_in_ironic_words(value: Any) -> str:
    """Ironic 39's schema error for a step priority that is not one (clients show it)."""
    if isinstance(value, str):
        if value.isascii() and value.isdigit():  # beyond 64 bits: this service's own limit
            largest = 2**63 - 1
            return f"Schema error for template: {value!r} is more than {largest}, the largest"
        return f"Schema error for template: {value!r} does not match '^[0-9]+$'"
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        return f"Schema error for template: {value!r} is less than the minimum of 0"
    return (
        f"Schema error for template: {value!r} is not valid under any of the given schemas. "
        f"Possible root cause: {value!r} is not of type 'integer'"
    )


def shaped(steps: Any) -> tuple[tuple[Step, ...], list[TemplateProblem]]:
    """The steps that have the shape Ironic's schema asks, and a problem for each that has
    not: a non-empty list; each step has exactly interface (one of :data:`INTERFACES`), step
    (a non-empty string), args (an object) and priority (an integer of at least 0, or a
    string of digits within 64 bits). The rules on well-shaped steps, such as no (interface,
    step) twice, are :func:`problems`."""
    if not isinstance(steps, list | tuple) or not steps:
        return (), [
            TemplateProblem(
                ("steps",), "A deploy template needs a non-empty list of steps", "steps-shape"
            )
        ]
    out: list[Step] = []
    found: list[TemplateProblem] = []
    for index, step in enumerate(steps):
        parsed = _shaped_step(index, step)
        if isinstance(parsed, Step):
            out.append(parsed)
        else:
            found.append(parsed)
    return tuple(out), found


def _shaped_step(index: int, step: Any) -> Step | TemplateProblem:
    where = f"steps[{index}]"

    def problem(field: str | None, message: str) -> TemplateProblem:
        path: tuple[str | int, ...] = ("steps", index) if field is None else ("steps", index, field)
        return TemplateProblem(path, message, "steps-shape")

    if not isinstance(step, dict):
        return problem(None, f"{where} must be an object with interface, step, args and priority")
    missing = sorted(STEP_KEYS - set(step))
    if missing:
        return problem(None, f"{where}: {missing[0]!r} is a required property")
    extra = sorted(set(step) - STEP_KEYS)
    if extra:
        return problem(
            None, f"{where}: additional properties are not allowed ({extra[0]!r} was unexpected)"
        )
    if step["interface"] not in INTERFACES:
        return problem(
            "interface",
            f"{where}.interface: {step['interface']!r} is not one of {', '.join(INTERFACES)}",
        )
    if not isinstance(step["step"], str) or not step["step"]:
        return problem("step", f"{where}.step: must be a non-empty string")
    if not isinstance(step["args"], dict):
        return problem("args", f"{where}.args: must be an object")
    priority = step["priority"]
    if isinstance(priority, str) and priority.isascii() and priority.isdigit():
        # Ironic's schema takes a string of digits too (within 64 bits here).
        priority = ascii_int(priority) if ascii_int(priority) is not None else priority
    if isinstance(priority, float) and priority.is_integer():
        priority = int(priority)  # JSON Schema's integer, as Ironic's: 10.0 is 10
    if isinstance(priority, bool) or not isinstance(priority, int) or priority < 0:
        return TemplateProblem(
            ("steps", index, "priority"),
            f"{where}.priority: {shown_repr(priority)} must be an integer of at least 0 "
            "(or a string of digits)",
            PRIORITY_PROBLEM,
        )
    return Step(step["interface"], step["step"], dict(step["args"]), int(priority))


def check_description(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or len(value) > 255):
        raise Invalid("'description' must be a string of at most 255 characters")
    return value


def check_extra(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid("'extra' must be an object")
    return value


def checked(values: dict[str, Any]) -> dict[str, Any]:
    """The whole template, validated: its shape, then :func:`problems` (name, duplicate steps,
    every value one that each database can store, see jsonsafe), also after a JSON patch;
    refused in Ironic's words."""
    out = {
        "name": check_name(values.get("name")),
        "steps": [s.as_dict() for s in check_steps(values.get("steps"))],
        "description": check_description(values.get("description")),
        "extra": check_extra(values.get("extra", {}) if values.get("extra") is not None else {}),
    }
    errors = [p for p in problems(out) if not p.warning]
    if errors:
        raise Invalid(_in_ironic_words(out, errors))
    return out


def problems(
    values: Mapping[str, Any], catalogues: Mapping[str, Sequence[DriverStep]] | None = None
) -> list[TemplateProblem]:
    """What is wrong with a well-shaped template (name, steps of interface, step, args and
    priority; description, extra): the rules every template obeys and, with ``catalogues``,
    its steps against the driver step catalogues (see the module's docstring)."""
    out: list[TemplateProblem] = []
    name = values["name"]
    if not valid_name(name):
        custom = traits.full_name(name) if isinstance(name, str) else ""
        hint = (
            f" (did you mean {custom!r}?)"
            if custom
            and not name.startswith(traits.CUSTOM_PREFIX)
            and traits.is_valid_node_trait(custom)
            else ""
        )
        out.append(
            TemplateProblem(
                ("name",),
                f"{name!r} is not a trait Ironic accepts as a deploy template name: a "
                f"standard os-traits name or CUSTOM_ followed by A-Z, 0-9 and _{hint}",
                "deploy-template-name",
            )
        )
    steps, found = shaped(values["steps"])
    out.extend(found)
    if found:  # the rules below are for well-shaped steps
        return out
    seen: dict[tuple[str, str], int] = {}
    for index, step in enumerate(steps):
        if step.key in seen:
            out.append(
                TemplateProblem(
                    ("steps", index, "step"),
                    f"{step.interface}.{step.step} is already steps[{seen[step.key]}]: Ironic "
                    "rejects a template with the same interface and step twice",
                    "deploy-template-duplicate-step",
                )
            )
            continue
        seen[step.key] = index
        if catalogues is not None:
            out.extend(_against_catalogues(index, step, catalogues))
    for field_name in ("name", "steps", "description", "extra"):
        try:
            jsonsafe.check_value(field_name, values.get(field_name))
        except Invalid as exc:
            out.append(TemplateProblem((field_name,), exc.message, "value-not-storable"))
    return out


def _against_catalogues(
    index: int, step: Step, catalogues: Mapping[str, Sequence[DriverStep]]
) -> list[TemplateProblem]:
    key = step.key
    offered = [found for steps in catalogues.values() for found in steps if found.key == key]
    label = f"{step.interface}.{step.step}"
    if not offered:
        known = sorted(
            {s.step for steps in catalogues.values() for s in steps if s.interface == key[0]}
        )
        return [
            TemplateProblem(
                ("steps", index, "step"),
                f"{label} is not a deploy step of any known driver "
                f"({', '.join(catalogues)}); Ironic skips unknown template steps silently. "
                f"Deploy steps on {key[0]}: {', '.join(known) or 'none'}",
                "deploy-step-unknown",
                warning=True,
            )
        ]
    out: list[TemplateProblem] = []
    core = next((f for f in offered if f.core), None)
    if core is not None and step.priority != 0:
        out.append(
            TemplateProblem(
                ("steps", index, "priority"),
                f"{label} is a core step: a template may only disable it (priority 0), "
                f"not set its priority (it runs at {core.priority})",
                "deploy-step-core",
            )
        )
    accepted: set[str] = set().union(*(set(f.args) for f in offered))
    unexpected = sorted(set(step.args) - accepted)
    if unexpected:
        out.append(
            TemplateProblem(
                ("steps", index, "args"),
                f"{label} does not accept {', '.join(unexpected)}: it takes "
                f"{', '.join(sorted(accepted)) or 'no arguments'}",
                "deploy-step-args",
            )
        )
    required = set.intersection(*({a for a, r in f.args.items() if r} for f in offered))
    missing = sorted(required - set(step.args))
    if missing and step.priority > 0:
        out.append(
            TemplateProblem(
                ("steps", index, "args"),
                f"{label} needs the argument(s) {', '.join(missing)}",
                "deploy-step-args",
            )
        )
    return out


def _in_ironic_words(values: Mapping[str, Any], errors: Sequence[TemplateProblem]) -> str:
    """The API's message for the problems of a template: Ironic's wording where Ironic has
    one (duplicate steps are listed together)."""
    duplicates = [p for p in errors if p.code == "deploy-template-duplicate-step"]
    if duplicates:
        steps = values["steps"]
        listed = "; ".join(
            f"interface: {steps[p.path[1]]['interface']}, step: {steps[p.path[1]]['step']}"
            for p in duplicates
            if isinstance(p.path[1], int)
        )
        return (
            "Duplicate deploy steps. A template cannot have multiple deploy steps with the same "
            f"interface and step. Duplicates: {listed}."
        )
    return errors[0].message


def apply_patch(row: dict[str, Any], patch: Any) -> dict[str, Any]:
    """Changed fields after a JSON patch of /name, /steps, /extra, /description (pure)."""
    result = checked(
        patched(
            row,
            patch,
            noun="deploy template",
            patchable=PATCHABLE,
            required={
                "/name": "a deploy template always has one",
                "/steps": "a deploy template always has one",
            },
            allow_empty=True,  # as Ironic: an empty patch changes nothing (200)
        )
    )
    return {k: v for k, v in result.items() if row[k] != v}
