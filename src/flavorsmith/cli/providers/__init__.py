"""``flavorsmith provider``, ``flavor-profile`` and ``service-flavor``: the provider flavor
framework on the service's database, as the Octavia-style API offers it."""

from __future__ import annotations

import typer

from flavorsmith.cli.groups import command_group
from flavorsmith.cli.providers import profiles, provider, records, service_flavors


def provider_group() -> typer.Typer:
    return command_group(
        "List the flavor providers (the enabled drivers) and what flavor data each accepts.",
        {"list": provider.list_providers, "capabilities": provider.capabilities},
    )


def profile_group() -> typer.Typer:
    return records.group(
        "Manage flavor profiles (a provider and its flavor data) in the service's database.",
        profiles.PROFILES,
        profiles.create,
        profiles.set_profile,
        "Delete a flavor profile that no service flavor uses.",
    )


def flavor_group() -> typer.Typer:
    return records.group(
        "Manage service flavors (a name over a flavor profile) in the service's database.",
        service_flavors.FLAVORS,
        service_flavors.create,
        service_flavors.set_flavor,
        "Delete a service flavor.",
        resolve=service_flavors.resolve,
    )
