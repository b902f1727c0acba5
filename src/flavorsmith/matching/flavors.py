"""The matcher's view of a flavor: a Placement resource class and full-name trait sets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from flavorsmith.catalog.model import Flavor
from flavorsmith.resource_classes import placement_name


@dataclass(frozen=True)
class FlavorRule:
    name: str
    resource_class: str  # as written in the catalog
    required: frozenset[str]
    forbidden: frozenset[str]

    @cached_property
    def placement_class(self) -> str:
        return placement_name(self.resource_class)

    @classmethod
    def of(cls, flavor: Flavor) -> FlavorRule:
        return cls(
            flavor.name, flavor.resource_class, flavor.required_traits, flavor.forbidden_traits
        )
