"""Validators from installed packages: entry points in ``flavorsmith.extra_spec_validators``.

An entry point names a list of Validator objects, or a callable returning one (Namespace
objects in the list register their namespace). Built-ins always win: a plugin that defines
a key Flavorsmith already has is reported in the registry's clashes, never applied; a plugin
that fails to load is reported the same way and skipped.
"""

from __future__ import annotations

from typing import Any

from flavorsmith.entry_points import entry_points
from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Namespace, Registry

GROUP = "flavorsmith.extra_spec_validators"


def load_plugins(registry: Registry, group: str = GROUP) -> list[str]:
    """Add every plugin's validators; returns the names of the plugins that loaded."""
    loaded = []
    for entry_point in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            found: Any = entry_point.load()
            items = found() if callable(found) else found
            items = list(items)
        except Exception as exc:  # a broken plugin must not take the service down
            registry.clashes.append(
                f"plugin {entry_point.name}: failed to load: {type(exc).__name__}: {exc}"
            )
            continue
        for item in items:
            if isinstance(item, Namespace):
                registry.add_namespace(item)
            elif isinstance(item, Validator):
                registry.add(_sourced(item, f"plugin {entry_point.name}"))
            else:
                registry.clashes.append(
                    f"plugin {entry_point.name}: ignored {type(item).__name__}; "
                    "expected Validator or Namespace"
                )
        loaded.append(entry_point.name)
    return loaded


def _sourced(validator: Validator, source: str) -> Validator:
    return Validator(
        validator.name,
        validator.description,
        validator.value,
        validator.parameters,
        validator.deprecated,
        validator.replacement,
        validator.drivers,
        validator.depends_on,
        validator.extension,
        source,
    )
