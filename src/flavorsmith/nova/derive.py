"""Catalog flavor -> Nova flavor: the pure derivation of properties and scheduling extra specs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flavorsmith.catalog.model import Catalog, Flavor, ResourceClass


@dataclass(frozen=True)
class DerivedFlavor:
    """A catalog flavor derived into what Nova stores (not ``db.models.NovaFlavor``, the
    stored row). For bare metal, vcpus/ram/disk are informational only."""

    id: str
    name: str
    description: str | None
    is_public: bool
    projects: tuple[str, ...]
    vcpus: int
    ram: int
    disk: int
    extra_specs: dict[str, str] = field(default_factory=dict)
    swap: int = 0
    ephemeral: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "is_public": self.is_public,
            "projects": list(self.projects),
            "vcpus": self.vcpus,
            "ram": self.ram,
            "disk": self.disk,
            "swap": self.swap,
            "ephemeral": self.ephemeral,
            "extra_specs": dict(self.extra_specs),
        }


def extra_specs(flavor: Flavor, resource_class: ResourceClass) -> dict[str, str]:
    """The scheduling extra specs: one node of the class, no virtual resources, the traits."""
    specs = {
        f"resources:{resource_class.placement_name}": "1",
        "resources:VCPU": "0",
        "resources:MEMORY_MB": "0",
        "resources:DISK_GB": "0",
    }
    for requirement in sorted(flavor.traits, key=lambda t: t.full_name):
        state = "required" if requirement.state == "required" else "forbidden"
        specs[f"trait:{requirement.full_name}"] = state
    # The catalog's own extra specs come last and never replace a derived key.
    for key, value in flavor.extra_specs:
        specs.setdefault(key, value)
    return specs


def derive_flavor(flavor: Flavor, resource_class: ResourceClass) -> DerivedFlavor:
    return DerivedFlavor(
        id=flavor.name,
        name=flavor.name,
        description=flavor.description,
        is_public=flavor.is_public,
        projects=tuple(sorted(flavor.projects)) if not flavor.is_public else (),
        vcpus=resource_class.cpu_cores,
        ram=resource_class.memory_mb,
        disk=resource_class.drives_gb[0] if resource_class.drives_gb else 0,
        extra_specs=extra_specs(flavor, resource_class),
    )


def derive(catalog: Catalog) -> tuple[list[DerivedFlavor], list[Flavor]]:
    """Derived flavors for every flavor whose resource class resolves, and the ones that do not."""
    derived: list[DerivedFlavor] = []
    unresolved: list[Flavor] = []
    for flavor in sorted(catalog.flavors, key=lambda f: f.name):
        found = catalog.resource_class(flavor.resource_class)
        if found is None:
            unresolved.append(flavor)
        else:
            derived.append(derive_flavor(flavor, found[1]))
    return derived, unresolved
