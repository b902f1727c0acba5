"""Glance metadata-definition namespaces (the format ``POST /v2/metadefs/namespaces`` takes),
one per extra-spec namespace, so Horizon and Glance show the same keys."""

from __future__ import annotations

from typing import Any

from flavorsmith.extra_specs.docs import by_namespace
from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Registry


def _property(validator: Validator) -> dict[str, Any]:
    rule = validator.value
    out: dict[str, Any] = {
        "title": validator.name.split(":", 1)[-1],
        "description": validator.description,
    }
    if rule.kind == "int":
        out["type"] = "integer"
        if rule.minimum is not None:
            out["minimum"] = rule.minimum
        if rule.maximum is not None:
            out["maximum"] = rule.maximum
    elif rule.kind == "bool":
        out["type"] = "boolean"
    elif rule.kind == "enum":
        out["type"] = "string"
        out["enum"] = list(rule.choices)
    else:
        out["type"] = "string"
        if rule.pattern:
            out["pattern"] = f"^{rule.pattern}$"
    return out


def namespaces(registry: Registry) -> list[dict[str, Any]]:
    """Keys with parameters other than a request group cannot be listed by name in a metadef;
    each namespace's description says which were left out."""
    out = []
    descriptions = {n.template: n.description for n in registry.namespaces}
    for namespace, validators in by_namespace(registry).items():
        prefix = namespace.replace("{group}", "")
        title = "Bare" if namespace == "(no namespace)" else prefix.title().replace("_", "")
        properties: dict[str, Any] = {}
        skipped = []
        for validator in validators:
            rest = validator.name.split(":", 1)[-1]
            if "{" in rest:
                skipped.append(validator.name)
                continue
            properties[rest] = _property(validator)
        description = descriptions.get(namespace, "")
        if skipped:
            description += " Not listed (they take parameters): " + ", ".join(skipped) + "."
        out.append(
            {
                "namespace": f"OS::Compute::Flavorsmith::{title}",
                "display_name": f"Flavor extra specs: {namespace}",
                "description": description.strip(),
                "visibility": "public",
                "protected": True,
                "resource_type_associations": [
                    {
                        "name": "OS::Nova::Flavor",
                        "prefix": f"{prefix}:" if namespace != "(no namespace)" else "",
                    }
                ],
                "properties": properties,
            }
        )
    return out


def file_name(document: dict[str, Any]) -> str:
    """The file a namespace document is written to: its namespace's last part, lowercased."""
    return (str(document["namespace"]).split("::")[-1].lower() or "bare") + ".json"
