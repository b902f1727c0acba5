"""``flavorsmith provider``, ``flavor-profile`` and ``service-flavor``: the provider flavor
framework on the service's database, as the Octavia-style API offers it."""

from __future__ import annotations

import typer

from flavorsmith.cli.providers import flavors, profiles, provider


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
    app.command("create")(flavors.create)
    app.command("list")(flavors.list_flavors)
    app.command("show")(flavors.show)
    app.command("set")(flavors.set_flavor)
    app.command("delete")(flavors.delete)
    app.command("resolve")(flavors.resolve)
    return app
