"""Building the registry a deployment uses: built-ins, then plugins, then the catalog's own."""

from __future__ import annotations

from collections.abc import Sequence

from flavorsmith.catalog.model import ExtraSpecSet
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.declarative import definitions
from flavorsmith.extra_specs.plugins import load_plugins
from flavorsmith.extra_specs.registry import Registry


def registry_for(
    catalog_sets: Sequence[ExtraSpecSet] = (), *, plugins: bool = True
) -> tuple[Registry, dict[str, list[str]]]:
    """The registry, and per catalog file the definitions that clashed and were refused."""
    registry = build()
    if plugins:
        load_plugins(registry)
    refused: dict[str, list[str]] = {}
    for definition_set in catalog_sets:
        source = definition_set.doc.display if definition_set.doc else definition_set.namespace
        namespace, validators = definitions(definition_set.data, source)
        registry.add_namespace(namespace)
        for validator in validators:
            if not registry.add(validator):
                refused.setdefault(source, []).append(validator.name)
    return registry, refused
