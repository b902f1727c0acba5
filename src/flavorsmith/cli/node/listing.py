"""``flavorsmith node list``: nodes with their resource class and traits, filtered."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from flavorsmith.cli.options import ColumnOption, DatabaseOption, FormatOption
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
    fmt: FormatOption = Format.TABLE,
    column: ColumnOption = None,
) -> None:
    """List nodes."""
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
