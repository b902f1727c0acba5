"""Validators declared in the catalog (``hardware/extra-specs/*.yaml``) for operators who do
not ship Python: one namespace per file, value rules from a small safe vocabulary."""

from __future__ import annotations

import re
from typing import Any

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.safety import pattern_problem
from flavorsmith.extra_specs.value_rules import BOOL, ENUM, INT, PATTERN, STRING, ValueRule


def value_rule(spec: dict[str, Any]) -> ValueRule:
    kind = spec["type"]
    description = spec.get("description", "")
    if kind == "int":
        return INT(description, spec.get("min"), spec.get("max"))
    if kind == "bool":
        return BOOL(description)
    if kind == "enum":
        return ENUM(*[str(c) for c in spec["choices"]], description=description)
    if kind == "pattern":
        return PATTERN(spec["pattern"], description)
    return STRING(description)


def problems(data: dict[str, Any]) -> list[tuple[list[str | int], str]]:
    """What a schema-valid definition file still gets wrong: unsafe patterns, undeclared or
    unused parameters, keys outside the file's namespace."""
    out: list[tuple[list[str | int], str]] = []
    namespace = data["namespace"]
    for index, spec in enumerate(data["validators"]):
        at: list[str | int] = ["validators", index]
        name = spec["name"]
        if not name.startswith(namespace + ":"):
            out.append(
                ([*at, "name"], f"{name!r} is outside this file's namespace; write {namespace}:...")
            )
        declared = {p["name"] for p in spec.get("parameters", [])}
        used = set(re.findall(r"\{(\w+)\}", name))
        for missing in sorted(used - declared):
            out.append(
                ([*at, "name"], f"parameter {{{missing}}} is used but not declared in parameters")
            )
        for unused in sorted(declared - used):
            out.append(
                (
                    [*at, "parameters"],
                    f"parameter {unused!r} is declared but {name} does not use it",
                )
            )
        for position, parameter in enumerate(spec.get("parameters", [])):
            problem = pattern_problem(parameter["pattern"])
            if problem:
                out.append(([*at, "parameters", position, "pattern"], f"the pattern {problem}"))
        if spec["value"]["type"] == "pattern":
            problem = pattern_problem(spec["value"]["pattern"])
            if problem:
                out.append(([*at, "value", "pattern"], f"the pattern {problem}"))
    return out


def definitions(data: dict[str, Any], source: str) -> tuple[Namespace, list[Validator]]:
    namespace = Namespace(
        data["namespace"], re.escape(data["namespace"]), data.get("description", ""), nova=False
    )
    validators = [
        Validator(
            spec["name"],
            spec["description"],
            value_rule(spec["value"]),
            parameters=tuple(
                Parameter(p["name"], p["pattern"], p.get("description", ""))
                for p in spec.get("parameters", [])
            ),
            deprecated=spec.get("deprecated", False),
            replacement=spec.get("replacement"),
            drivers=tuple(spec.get("drivers", [])),
            source=source,
        )
        for spec in data["validators"]
    ]
    return namespace, validators
