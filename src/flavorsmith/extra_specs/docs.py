"""A Markdown reference of every validator, grouped by namespace."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.nova_differences import FIXES
from flavorsmith.extra_specs.registry import Registry


def by_namespace(registry: Registry) -> dict[str, list[Validator]]:
    groups: dict[str, list[Validator]] = {}
    for validator in registry.validators:
        groups.setdefault(validator.namespace or "(no namespace)", []).append(validator)
    return groups


def markdown(registry: Registry) -> str:
    lines = [
        "# Flavor extra specs",
        "",
        f"{len(registry)} validators. Modes of the `validation=` parameter: `nova` (default: what "
        "Nova >= 2.86 accepts), `strict` (registered keys with valid values only), `permissive` "
        "(rejects only bad values of registered keys), `off`.",
        "",
    ]
    descriptions = {n.template: n.description for n in registry.namespaces}
    for namespace, validators in by_namespace(registry).items():
        lines += [f"## {namespace}", ""]
        if descriptions.get(namespace):
            lines += [descriptions[namespace], ""]
        lines += ["| key | value | description | notes |", "| --- | --- | --- | --- |"]
        for validator in validators:
            notes = []
            if validator.deprecated:
                notes.append(f"deprecated: use {validator.replacement or 'nothing'}")
            if validator.extension:
                notes.append(f"{validator.extension} extension")
            if validator.drivers:
                notes.append("read by " + ", ".join(validator.drivers))
            if validator.depends_on:
                notes.append("with " + ", ".join(validator.depends_on))
            for parameter in validator.parameters:
                notes.append(f"`{{{parameter.name}}}`: {parameter.description}")
            if validator.source != "built-in":
                notes.append(f"from {validator.source}")
            cells = [
                f"`{validator.name}`",
                _escape(validator.value.summary()),
                _escape(validator.description),
                _escape("; ".join(notes)),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Where this registry differs from Nova", ""]
    for fix in FIXES:
        lines.append(f"- **{fix.name}**: Nova: {fix.nova}. Here: {fix.ours}.")
    if registry.clashes:
        lines += ["", "## Refused definitions", ""] + [f"- {c}" for c in registry.clashes]
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
