"""Enabled provider drivers: discovered through entry points, enabled by configuration.

``--providers name:description,...`` (default :data:`DEFAULT`) names the providers the
service offers; each is loaded from the entry point of the same name in
:data:`GROUP`. A provider whose driver is missing or fails to load is reported in
:attr:`DriverRegistry.failures` (and logged) and left disabled; the API keeps running.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from flavorsmith.entry_points import entry_points
from flavorsmith.errors import Invalid
from flavorsmith.providers.driver import ProviderContext

GROUP = "flavorsmith.provider_drivers"
LOG = logging.getLogger("flavorsmith.providers")


@dataclass(frozen=True)
class Provider:
    name: str
    description: str
    driver: Any


@dataclass
class DriverRegistry:
    providers: dict[str, Provider] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> Provider:
        found = self.providers.get(name)
        if found is None:
            raise Invalid(f"Provider '{name}' is not enabled.")
        return found


def parse_enabled(text: str) -> list[tuple[str, str]]:
    """``name:description,...`` as pairs; a description may not contain commas."""
    out: list[tuple[str, str]] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, description = item.partition(":")
        if not name.strip():
            raise ValueError(f"provider {item!r} has no name; write name:description")
        if any(seen == name.strip() for seen, _ in out):
            raise ValueError(f"provider {name.strip()!r} is listed twice")
        out.append((name.strip(), description.strip()))
    return out


def load(enabled: str, context: ProviderContext, group: str = GROUP) -> DriverRegistry:
    registry = DriverRegistry()
    available = {e.name: e for e in entry_points(group=group)}
    for name, description in parse_enabled(enabled):
        entry = available.get(name)
        if entry is None:
            reason = f"no driver named {name!r} is installed (entry point group {group})"
            registry.failures[name] = reason
            LOG.error("provider %s disabled: %s", name, reason)
            continue
        try:
            factory = entry.load()
            driver = factory(context)
            for method in ("get_supported_flavor_metadata", "validate_flavor"):
                if not callable(getattr(driver, method, None)):
                    raise TypeError(f"the driver has no {method}()")
        except Exception as exc:  # a broken driver must not take the service down
            reason = f"failed to load: {type(exc).__name__}: {exc}"
            registry.failures[name] = reason
            LOG.error("provider %s disabled: %s", name, reason)
            continue
        registry.providers[name] = Provider(name, description, driver)
    return registry
