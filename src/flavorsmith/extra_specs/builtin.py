"""The built-in registry: Nova 34's in-tree validators, then Flavorsmith's and Ironic's own."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.namespaces import capabilities, flavorsmith, hw, misc, placement, quota
from flavorsmith.extra_specs.registry import Namespace, Registry


def nova_namespaces() -> list[Namespace]:
    return [
        *misc.NAMESPACES[:2],
        *capabilities.NAMESPACES,
        *hw.NAMESPACES,
        *misc.NAMESPACES[2:],
        *quota.NAMESPACES,
        *placement.NAMESPACES,
    ]


def nova_validators() -> list[Validator]:
    """Exactly the keys Nova 34 validates (525 with os-traits 3.9 / os-resource-classes 1.1)."""
    return [
        *misc.VALIDATORS,
        *capabilities.VALIDATORS,
        *hw.VALIDATORS,
        *quota.VALIDATORS,
        *placement.validators(),
    ]


def build() -> Registry:
    """A fresh registry (registries are objects, built and passed in, never global)."""
    registry = Registry(nova_namespaces(), nova_validators())
    for namespace in flavorsmith.NAMESPACES:
        registry.add_namespace(namespace)
    for validator in [*flavorsmith.VALIDATORS, *capabilities.IRONIC]:
        registry.add(validator)
    return registry
