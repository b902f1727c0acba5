"""``flavorsmith service-flavor create|list|show|set|delete|resolve``: service flavors (a name
over a flavor profile) in the service's database; list, show and delete are :mod:`records`'."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    ColumnOption,
    DatabaseOption,
    FormatOption,
    RepoOption,
    shows,
    table_options,
)
from flavorsmith.cli.output import Format, Row, print_document, print_show
from flavorsmith.cli.providers import records
from flavorsmith.cli.providers.common import (
    DEFAULT,
    ProvidersOption,
    find,
    load_registry,
    reported,
)
from flavorsmith.db.engine import writer
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

COLUMNS = ("id", "name", "description", "enabled", "flavor_profile_id")
IDENT = typer.Argument(metavar="FLAVOR", help="Service flavor id or name.")
Ident = Annotated[str, IDENT]
FLAVORS = records.Kind(
    "service flavor", COLUMNS, store.flavors, service.delete_flavor, IDENT, "c2.large"
)


@shows
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Option("--name", metavar="NAME", help="Flavor name (unique).")],
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            metavar="PROFILE",
            help="Flavor profile id, or its name when only one profile has it.",
        ),
    ],
    description: Annotated[
        str | None,
        typer.Option("--description", metavar="DESCRIPTION", help="What the flavor offers."),
    ] = None,
    disable: Annotated[
        bool, typer.Option("--disable", help="Create it disabled: resolving it is refused.")
    ] = False,
    database: DatabaseOption = None,
) -> Row:
    """Create a service flavor from a flavor profile.

    \b
    Example:
      flavorsmith service-flavor create --name c2.large --profile c2-large
    """
    engine = open_database(database, ctx)
    with reported(), writer(engine).begin() as connection:
        found = find(store.profiles(connection), profile, "flavor profile")
        values: dict[str, Any] = {
            "name": name,
            "enabled": not disable,
            "flavor_profile_id": found["id"],
        }
        if description is not None:
            values["description"] = description
        return service.create_flavor(connection, values)


@shows
def set_flavor(
    ctx: typer.Context,
    ident: Ident,
    name: Annotated[str | None, typer.Option("--name", metavar="NAME", help="New name.")] = None,
    description: Annotated[
        str | None, typer.Option("--description", metavar="DESCRIPTION", help="New description.")
    ] = None,
    enabled: Annotated[
        bool | None,
        typer.Option(
            "--enable/--disable", help="Allow or refuse resolving it.", show_default=False
        ),
    ] = None,
    database: DatabaseOption = None,
) -> Row:
    """Change a service flavor's name, description or enabled state (its profile is fixed:
    create a new flavor instead).

    \b
    Example:
      flavorsmith service-flavor set c2.large --disable
    """
    values = records.changes(
        (("name", name), ("description", description), ("enabled", enabled)),
        "--name, --description, --enable or --disable",
    )
    return records.change_record(
        FLAVORS,
        ident,
        open_database(database, ctx),
        lambda connection, found: service.update_flavor(connection, found, values),
    )


@table_options(prefix=True)
def resolve(
    ctx: typer.Context,
    ident: Ident,
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            metavar="PROVIDER",
            help="Refuse unless the flavor's profile uses this provider.",
        ),
    ] = None,
    providers: ProvidersOption = DEFAULT,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
    column: ColumnOption = None,
) -> None:
    """Resolve a service flavor as a consuming service does at each use: its provider and the
    metadata the driver expands it to, after the driver validated the profile again. A
    disabled flavor is refused.

    For the baremetal provider the metadata holds the resource class, the instance_info traits
    that select the deploy templates, and the nodes that can take the flavor. It checks against
    the catalog at --repo; when the catalog has errors it warns and uses the definitions that
    loaded. -f json prints the result exactly as POST /v1/service-flavors/{id}/resolve (with -c,
    the fields of the table, flattened).

    \b
    Example:
      flavorsmith service-flavor resolve c2.large -f json
    """
    engine = open_database(database, ctx)
    registry = load_registry(ctx, providers, repo, engine)
    with reported(), engine.connect() as connection:
        found = find(store.flavors(connection), ident, FLAVORS.what)
        result = service.resolve(connection, registry, found["id"], provider)
    if column or not print_document(result, fmt):
        print_show(_flat(result), fmt, column)


def _flat(result: dict[str, Any]) -> dict[str, Any]:
    """The result as one Field/Value table: flavor data as JSON, each metadata key its row."""
    record = {k: v for k, v in result.items() if k not in ("flavor_data", "metadata")}
    record["flavor_data"] = json.dumps(result["flavor_data"], sort_keys=True)
    for key, value in result["metadata"].items():
        if isinstance(value, dict):
            for inner, item in value.items():
                record[f"metadata.{key}.{inner}"] = item
        else:
            record[f"metadata.{key}"] = value
    return record
