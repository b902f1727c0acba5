"""Catalog flavor -> Nova flavor: the pure derivation of properties and scheduling extra specs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from flavorsmith.catalog.model import Catalog, DeployTemplateDef, Flavor, ResourceClass


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


def selected_templates(flavor: Flavor, templates: Iterable[DeployTemplateDef]) -> tuple[str, ...]:
    """The deploy templates a flavor selects: Nova's ironic driver passes the flavor's required
    traits to Ironic as the instance's traits, and Ironic applies every deploy template named
    by one of them."""
    wanted = flavor.required_traits
    return tuple(sorted(t.name for t in templates if t.name in wanted))


def description(flavor: Flavor, templates: tuple[str, ...]) -> str | None:
    """The Nova flavor's description: the catalog's, then the deploy templates the flavor
    selects, so that users see its deploy customisation (the catalog's text is kept as
    written, with a full stop added before the list when it ends without one)."""
    if not templates:
        return flavor.description
    note = f"Deploy templates: {', '.join(templates)}."
    text = (flavor.description or "").rstrip()
    if not text:
        return note
    return f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {note}"


def derive_flavor(
    flavor: Flavor,
    resource_class: ResourceClass,
    templates: Iterable[DeployTemplateDef] = (),
) -> DerivedFlavor:
    """The Nova flavor of a catalog flavor; ``templates`` are the catalog's deploy templates."""
    return DerivedFlavor(
        id=flavor.name,
        name=flavor.name,
        description=description(flavor, selected_templates(flavor, templates)),
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
            derived.append(derive_flavor(flavor, found[1], catalog.deploy_templates))
    return derived, unresolved
