"""``flavorsmith provider``, ``flavor-profile`` and ``service-flavor``: the provider flavor
framework on the service's database, as the Octavia-style API offers it."""

from __future__ import annotations

import typer

from flavorsmith.cli.groups import command_group
from flavorsmith.cli.providers import profiles, provider, service_flavors


def provider_group() -> typer.Typer:
    return command_group(
        "Flavor providers: the enabled drivers and what flavor data each accepts.",
        {"list": provider.list_providers, "capabilities": provider.capabilities},
    )


def profile_group() -> typer.Typer:
    return command_group(
        "Flavor profiles (a provider and its flavor data), in the service's database.",
        {
            "create": profiles.create,
            "list": profiles.list_profiles,
            "show": profiles.show,
            "set": profiles.set_profile,
            "delete": profiles.delete,
        },
    )


def flavor_group() -> typer.Typer:
    return command_group(
        "Service flavors (a name over a flavor profile), in the service's database.",
        {
            "create": service_flavors.create,
            "list": service_flavors.list_flavors,
            "show": service_flavors.show,
            "set": service_flavors.set_flavor,
            "delete": service_flavors.delete,
            "resolve": service_flavors.resolve,
        },
    )
