"""``flavorsmith flavor-profile create|list|show|set|delete``: flavor profiles (a provider and
its flavor data) in the service's database; list, show and delete are :mod:`records`'."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    DatabaseOption,
    RepoOption,
    shows,
)
from flavorsmith.cli.output import Row
from flavorsmith.cli.providers import records
from flavorsmith.cli.providers.common import DEFAULT, ProvidersOption, load_registry, reported
from flavorsmith.db.engine import writer
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

COLUMNS = ("id", "name", "provider_name", "flavor_data")
IDENT = typer.Argument(
    metavar="PROFILE", help="Flavor profile id, or its name when only one profile has it."
)
Ident = Annotated[str, IDENT]
PROFILES = records.Kind(
    "flavor profile", COLUMNS, store.profiles, service.delete_profile, IDENT, "c2-large"
)
FlavorData = Annotated[
    str,
    typer.Option(
        "--flavor-data",
        metavar="JSON",
        help="The provider's flavor data as a JSON object, e.g. '{\"resource_class\": "
        '"c2.large", "deploy_templates": ["CUSTOM_BM_CONFIG_BIOS_VMX_ON"]}\'.',
    ),
]


@shows
def create(
    ctx: typer.Context,
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="Profile name (need not be unique).")
    ],
    provider: Annotated[
        str, typer.Option("--provider", metavar="PROVIDER", help="An enabled provider's name.")
    ],
    flavor_data: FlavorData,
    providers: ProvidersOption = DEFAULT,
    repo: RepoOption = None,
    database: DatabaseOption = None,
) -> Row:
    """Create a flavor profile; the provider's driver validates the flavor data.

    The baremetal provider checks the resource class and deploy templates against the catalog
    at --repo; when the catalog has errors it warns and uses the definitions that loaded.

    \b
    Example:
      flavorsmith flavor-profile create --name c2-large --provider baremetal \\
        --flavor-data '{"resource_class": "c2.large"}'
    """
    engine = open_database(database, ctx)
    registry = load_registry(ctx, providers, repo, engine)
    values = {"name": name, "provider_name": provider, "flavor_data": flavor_data}
    with reported(), writer(engine).begin() as connection:
        return service.create_profile(connection, registry, values)


@shows
def set_profile(
    ctx: typer.Context,
    ident: Ident,
    name: Annotated[str | None, typer.Option("--name", metavar="NAME", help="New name.")] = None,
    provider: Annotated[
        str | None,
        typer.Option("--provider", metavar="PROVIDER", help="Move to this enabled provider."),
    ] = None,
    flavor_data: Annotated[
        str | None,
        typer.Option("--flavor-data", metavar="JSON", help="New flavor data (a JSON object)."),
    ] = None,
    providers: ProvidersOption = DEFAULT,
    repo: RepoOption = None,
    database: DatabaseOption = None,
) -> Row:
    """Change a flavor profile. Its provider and flavor data cannot change while a service
    flavor uses it; a new provider or new data is validated by the driver again.

    The baremetal provider checks against the catalog at --repo; when the catalog has errors it
    warns and uses the definitions that loaded.

    \b
    Example:
      flavorsmith flavor-profile set c2-large --flavor-data '{"resource_class": "c2.diskless"}'
    """
    values = records.changes(
        (("name", name), ("provider_name", provider), ("flavor_data", flavor_data)),
        "--name, --provider or --flavor-data",
    )
    engine = open_database(database, ctx)
    registry = load_registry(ctx, providers, repo, engine)
    return records.change_record(
        PROFILES,
        ident,
        engine,
        lambda connection, found: service.update_profile(connection, registry, found, values),
    )
