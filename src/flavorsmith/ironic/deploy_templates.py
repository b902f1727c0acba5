"""Deploy templates as Ironic validates them (pure): a trait name and a list of steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from flavorsmith import jsonsafe, traits
from flavorsmith.errors import Invalid
from flavorsmith.params import ascii_int, shown_repr

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


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not traits.is_valid_node_trait(name):
        raise Invalid(
            f"Invalid deploy template name {name!r}: it must be a trait, a standard os-traits name "
            "or CUSTOM_ followed by A-Z, 0-9 and _ (at most 255 characters)"
        )
    return name


def check_steps(steps: Any) -> tuple[Step, ...]:
    """Ironic's rules: a non-empty list; each step has exactly interface, step, args and
    priority; no (interface, step) twice in one template."""
    if not isinstance(steps, list) or not steps:
        raise Invalid("A deploy template needs a non-empty list of steps")
    out: list[Step] = []
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            raise Invalid(f"{where} must be an object with interface, step, args and priority")
        missing = sorted(STEP_KEYS - set(step))
        if missing:
            raise Invalid(f"{where}: {missing[0]!r} is a required property")
        extra = sorted(set(step) - STEP_KEYS)
        if extra:
            raise Invalid(
                f"{where}: additional properties are not allowed ({extra[0]!r} was unexpected)"
            )
        if step["interface"] not in INTERFACES:
            raise Invalid(
                f"{where}.interface: {step['interface']!r} is not one of {', '.join(INTERFACES)}"
            )
        if not isinstance(step["step"], str) or not step["step"]:
            raise Invalid(f"{where}.step: must be a non-empty string")
        if not isinstance(step["args"], dict):
            raise Invalid(f"{where}.args: must be an object")
        priority = step["priority"]
        if isinstance(priority, str) and priority.isascii() and priority.isdigit():
            # Ironic's schema takes a string of digits too (within 64 bits here).
            priority = ascii_int(priority) if ascii_int(priority) is not None else priority
        if isinstance(priority, bool) or not isinstance(priority, int) or priority < 0:
            raise Invalid(
                f"{where}.priority: {shown_repr(priority)} must be an integer of at least 0 "
                "(or a string of digits)"
            )
        out.append(Step(step["interface"], step["step"], dict(step["args"]), priority))
    seen: set[tuple[str, str]] = set()
    duplicates = []
    for item in out:
        if item.key in seen:
            duplicates.append(f"interface: {item.interface}, step: {item.step}")
        seen.add(item.key)
    if duplicates:
        raise Invalid(
            "Duplicate deploy steps. A template cannot have multiple deploy steps with the same "
            f"interface and step. Duplicates: {'; '.join(duplicates)}."
        )
    return tuple(out)


def check_description(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or len(value) > 255):
        raise Invalid("'description' must be a string of at most 255 characters")
    return value


def check_extra(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid("'extra' must be an object")
    return value


def checked(values: dict[str, Any]) -> dict[str, Any]:
    """The whole template, validated: name, steps, description, extra; every value one that
    each database can store (see jsonsafe), also after a JSON patch."""
    out = {
        "name": check_name(values.get("name")),
        "steps": [s.as_dict() for s in check_steps(values.get("steps"))],
        "description": check_description(values.get("description")),
        "extra": check_extra(values.get("extra", {}) if values.get("extra") is not None else {}),
    }
    for name, value in out.items():
        jsonsafe.check_value(name, value)
    return out


def apply_patch(row: dict[str, Any], patch: Any) -> dict[str, Any]:
    """Changed fields after a JSON patch of /name, /steps, /extra, /description (pure)."""
    if not isinstance(patch, list) or not patch or not all(isinstance(op, dict) for op in patch):
        raise Invalid("A deploy template update is a JSON patch: a non-empty list of operations")
    for op in patch:
        path = op.get("path")
        if op.get("op") not in ("add", "replace", "remove"):
            raise Invalid(
                f"Unsupported patch operation {op.get('op')!r}: use add, replace or remove"
            )
        top = path.split("/")[1] if isinstance(path, str) and path.startswith("/") else None
        if top not in PATCHABLE:
            raise Invalid(
                f"Cannot patch {path}. Only the following can be updated: {', '.join(PATCHABLE)}"
            )
        if path in ("/name", "/steps") and op["op"] == "remove":
            raise Invalid(f"Cannot remove {path}: a deploy template always has one")
    document = {name: row[name] for name in PATCHABLE}
    try:
        patched = jsonpatch.JsonPatch(patch).apply(document)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        raise Invalid(f"Couldn't apply patch: {exc}") from None
    result = checked(patched)
    return {k: v for k, v in result.items() if row[k] != v}
