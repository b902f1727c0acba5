"""``flavorsmith provider``, ``flavor-profile`` and ``service-flavor``: the provider flavor
framework on the service's database, as the Octavia-style API offers it."""

from __future__ import annotations

import typer

from flavorsmith.cli.providers import profiles, provider, service_flavors


def provider_group() -> typer.Typer:
    app = typer.Typer(
        help="Flavor providers: the enabled drivers and what flavor data each accepts.",
        no_args_is_help=True,
    )
    app.command("list")(provider.list_providers)
    app.command("capabilities")(provider.capabilities)
    return app


def profile_group() -> typer.Typer:
    app = typer.Typer(
        help="Flavor profiles (a provider and its flavor data), in the service's database.",
        no_args_is_help=True,
    )
    app.command("create")(profiles.create)
    app.command("list")(profiles.list_profiles)
    app.command("show")(profiles.show)
    app.command("set")(profiles.set_profile)
    app.command("delete")(profiles.delete)
    return app


def flavor_group() -> typer.Typer:
    app = typer.Typer(
        help="Service flavors (a name over a flavor profile), in the service's database.",
        no_args_is_help=True,
    )
    app.command("create")(service_flavors.create)
    app.command("list")(service_flavors.list_flavors)
    app.command("show")(service_flavors.show)
    app.command("set")(service_flavors.set_flavor)
    app.command("delete")(service_flavors.delete)
    app.command("resolve")(service_flavors.resolve)
    return app
