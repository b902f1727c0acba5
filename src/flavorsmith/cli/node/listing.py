"""``flavorsmith node list``: nodes with their resource class and traits, filtered."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from flavorsmith.cli.options import (
    ColumnOption,
    DatabaseOption,
    FormatOption,
    IronicCloudOption,
    IronicEndpointOption,
)
from flavorsmith.cli.output import Format, render_list, select

COLUMNS = ("name", "uuid", "resource_class", "provision_state", "maintenance", "traits")


def list_nodes(
    ctx: typer.Context,
    trait: Annotated[
        list[str] | None, typer.Option("--trait", help="Has this trait (repeatable: all).")
    ] = None,
    not_trait: Annotated[
        list[str] | None,
        typer.Option("--not-trait", help="Lacks this trait (repeatable: lacks all)."),
    ] = None,
    resource_class: Annotated[
        str | None, typer.Option("--resource-class", help="Only this resource class.")
    ] = None,
    database: DatabaseOption = None,
    cloud: IronicCloudOption = None,
    ironic_endpoint: IronicEndpointOption = None,
    fmt: FormatOption = Format.TABLE,
    column: ColumnOption = None,
) -> None:
    """List nodes (of the service's database, or of a real Ironic), sorted by name."""
    from flavorsmith.cli.ironic_source import ironic_nodes
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.errors import Invalid
    from flavorsmith.ironic import nodes as rules
    from flavorsmith.params import MAX_LIMIT
    from flavorsmith.store import nodes as store
    from flavorsmith.store.nodes import NodeQuery

    try:
        for value in [*(trait or []), *(not_trait or [])]:
            rules.check_trait(value)
    except Invalid as exc:
        raise typer.BadParameter(exc.message, param_hint="'--trait' / '--not-trait'") from None
    source = ironic_nodes(cloud, ironic_endpoint)
    if source is not None:
        found = _from_ironic(source, resource_class, trait or [], not_trait or [])
        wanted = column or list(COLUMNS)
        typer.echo(render_list(select(found, wanted, COLUMNS), wanted, fmt), nl=False)
        return
    engine = open_database(database, ctx)
    rows: list[dict[str, Any]] = []
    marker: str | None = None
    with engine.connect() as connection:
        while True:
            query = NodeQuery(
                resource_class=resource_class,
                traits=tuple(trait or ()),
                not_traits_any=tuple(not_trait or ()),
                sort_key="name",
                marker=marker,
                limit=MAX_LIMIT,
            )
            page = store.list_nodes(connection, query)
            traits = store.traits_of(connection, [r["id"] for r in page])
            rows += [
                {
                    "name": r["name"],
                    "uuid": r["uuid"],
                    "resource_class": r["resource_class"],
                    "provision_state": r["provision_state"],
                    "maintenance": r["maintenance"],
                    "traits": traits[r["id"]],
                }
                for r in page
            ]
            if len(page) < MAX_LIMIT:
                break
            marker = page[-1]["uuid"]
    wanted = column or list(COLUMNS)
    typer.echo(render_list(select(rows, wanted, COLUMNS), wanted, fmt), nl=False)


def _from_ironic(
    source: Any, resource_class: str | None, traits: list[str], not_traits: list[str]
) -> list[dict[str, Any]]:
    """The nodes of a real Ironic, filtered as the database's are: the resource class by
    Ironic, the traits here (Ironic's list has no trait filter)."""
    from flavorsmith.cli.ironic_source import reading

    query = {"resource_class": resource_class} if resource_class is not None else None
    found = reading(lambda: source.nodes(("uuid", *COLUMNS[:1], *COLUMNS[2:]), query=query))
    rows = [
        {c: node.get(c) for c in COLUMNS} | {"traits": sorted(node.get("traits") or [])}
        for node in found
        if set(traits) <= set(node.get("traits") or ())
        and not set(not_traits) & set(node.get("traits") or ())
    ]
    return sorted(rows, key=lambda r: (r["name"] is None, r["name"] or "", r["uuid"]))
