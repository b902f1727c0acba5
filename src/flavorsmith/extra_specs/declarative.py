"""Validators declared in the catalog (``hardware/extra-specs/*.yaml``) for operators who do
not ship Python: one namespace per file, value rules from a small safe vocabulary. Their
patterns (parameters and values) are RE2's, run in linear time (``safety.py``)."""

from __future__ import annotations

import re
from typing import Any

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.safety import compile_linear, pattern_problem
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
        compiled = compile_linear(spec["pattern"])
        return PATTERN(
            spec["pattern"], description, check=lambda value: compiled.fullmatch(value) is not None
        )
    return STRING(description)


def problems(data: dict[str, Any]) -> list[tuple[list[str | int], str]]:
    """What a schema-valid definition file still gets wrong: patterns RE2 cannot run, undeclared or
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
            pattern = parameter["pattern"]
            problem = pattern_problem(pattern)
            if problem:
                out.append(
                    ([*at, "parameters", position, "pattern"], f"the pattern {pattern!r} {problem}")
                )
        if spec["value"]["type"] == "pattern":
            pattern = spec["value"]["pattern"]
            problem = pattern_problem(pattern)
            if problem:
                out.append(([*at, "value", "pattern"], f"the pattern {pattern!r} {problem}"))
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
            linear=True,
        )
        for spec in data["validators"]
        if _runnable(spec)
    ]
    return namespace, validators


def _runnable(spec: dict[str, Any]) -> bool:
    """Whether RE2 compiles every pattern of ``spec``; one it refuses is left out of the
    registry (``problems`` reports it against the file)."""
    patterns = [p["pattern"] for p in spec.get("parameters", [])]
    if spec["value"]["type"] == "pattern":
        patterns.append(spec["value"]["pattern"])
    return all(pattern_problem(pattern) is None for pattern in patterns)
