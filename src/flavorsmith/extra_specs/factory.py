"""Building what a deployment checks with, where the application is composed (the CLI, the
API's app factory): the base registry (built-ins, then plugins: entry points are scanned
here, once per composition), the registry a catalog completes with its own definition files
(again on every catalog load, from the same base). The rules a catalog is loaded with
are composed in :mod:`flavorsmith.catalog_rules`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.declarative import definitions
from flavorsmith.extra_specs.plugins import load_plugins
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.extra_specs.validation import Problem, validate

if TYPE_CHECKING:  # the catalog's model (and its YAML) is not loaded to check pairs alone
    from flavorsmith.catalog.model import ExtraSpecSet


def base_registry(*, plugins: bool = True) -> Registry:
    """The built-in validators, then every installed plugin's."""
    registry = build()
    if plugins:
        load_plugins(registry)
    return registry


def completed(
    base: Registry, catalog_sets: Sequence[ExtraSpecSet] = ()
) -> tuple[Registry, dict[str, list[str]]]:
    """A copy of ``base`` completed by the catalog's definition files, and per file the
    definitions that clashed and were refused (``base`` itself is not changed)."""
    registry = base.copy()
    refused: dict[str, list[str]] = {}
    for definition_set in catalog_sets:
        source = definition_set.doc.display if definition_set.doc else definition_set.namespace
        namespace, validators = definitions(definition_set.data, source)
        registry.add_namespace(namespace)
        for validator in validators:
            if not registry.add(validator):
                refused.setdefault(source, []).append(validator.name)
    return registry, refused


@dataclass(frozen=True)
class CatalogExtraSpecs:
    """The registry one catalog completed, as the catalog's checks ask it (strict mode)."""

    registry: Registry
    refused: Mapping[str, list[str]]

    def refused_definitions(self, source: str) -> Sequence[str]:
        return self.refused.get(source, [])

    def problems(self, specs: Sequence[tuple[str, str]]) -> list[Problem]:
        return validate(specs, self.registry, "strict")
