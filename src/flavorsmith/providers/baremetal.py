"""The standalone-Ironic provider: a service flavor is a resource class plus deploy templates,
chosen from the catalog. Resolving it yields what a standalone-Ironic client sets before
deploying: the resource class, the instance traits that select the templates, and the nodes
that can take them."""

from __future__ import annotations

from typing import Any

from flavorsmith.providers.driver import ProviderContext, UnsupportedOption


class BaremetalDriver:
    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def get_supported_flavor_metadata(self) -> dict[str, Any]:
        catalog = self.context.catalog()
        templates = sorted(t.name for t in catalog.deploy_templates)
        classes = sorted({rc.name for d in catalog.device_types for rc in d.resource_classes})
        return {
            "type": "object",
            "properties": {
                "resource_class": {
                    "type": "string",
                    "enum": classes,
                    "description": "The node resource class to deploy on; one of: "
                    + (", ".join(classes) or "none defined"),
                },
                "deploy_templates": {
                    "type": "array",
                    "items": {"type": "string", "enum": templates},
                    "uniqueItems": True,
                    "description": "Deploy templates to apply at deploy time; from: "
                    + (", ".join(templates) or "none defined"),
                },
            },
            "additionalProperties": False,
        }

    def validate_flavor(self, metadata: dict[str, Any]) -> None:
        catalog = self.context.catalog()
        unknown = sorted(set(metadata) - {"resource_class", "deploy_templates"})
        if unknown:
            raise UnsupportedOption(
                f"unknown flavor data key {unknown[0]!r}: the baremetal provider takes "
                "resource_class and deploy_templates"
            )
        if "resource_class" not in metadata:
            raise UnsupportedOption("'resource_class' is required by the baremetal provider")
        rc = metadata["resource_class"]
        if not isinstance(rc, str) or catalog.resource_class(rc) is None:
            classes = sorted({r.name for d in catalog.device_types for r in d.resource_classes})
            raise UnsupportedOption(
                f"resource_class {rc!r} is not defined by any device type; defined: "
                f"{', '.join(classes) or 'none'}"
            )
        wanted = metadata.get("deploy_templates", [])
        if not isinstance(wanted, list) or not all(isinstance(t, str) for t in wanted):
            raise UnsupportedOption("'deploy_templates' must be a list of deploy template names")
        if len(set(wanted)) != len(wanted):
            raise UnsupportedOption("'deploy_templates' lists a template twice")
        known = {t.name: t for t in catalog.deploy_templates}
        for name in wanted:
            if name not in known:
                raise UnsupportedOption(
                    f"deploy_templates: {name!r} is not a deploy template in the catalog; "
                    f"defined: {', '.join(sorted(known)) or 'none'}"
                )
        owners: dict[tuple[str, str], str] = {}
        for name in wanted:
            for step in known[name].steps:
                key = (step["interface"], step["step"])
                if key in owners:
                    raise UnsupportedOption(
                        f"deploy_templates: {owners[key]} and {name} both request "
                        f"{key[0]}.{key[1]}; Ironic refuses two templates with one step"
                    )
                owners[key] = name

    def expand_flavor(self, metadata: dict[str, Any]) -> dict[str, Any]:
        catalog = self.context.catalog()
        found = catalog.resource_class(metadata["resource_class"])
        name = found[1].name if found else metadata["resource_class"]  # the catalog's spelling
        placement = found[1].placement_name if found else metadata["resource_class"]
        traits = sorted(metadata.get("deploy_templates", []))
        return {
            "resource_class": name,
            "placement_resource_class": placement,
            "deploy_templates": traits,
            "instance_info": {"traits": traits},
            "nodes": self.context.nodes(name, frozenset(traits)),
        }
