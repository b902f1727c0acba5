"""``flavorsmith node trait add|remove|list NODE [TRAIT...]``."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import (
    ColumnOption,
    DatabaseOption,
    SortColumnOption,
    table_options,
)
from flavorsmith.cli.output import ListFormat, render_list, select, sort_rows

COLUMNS = ["trait"]

NodeArg = Annotated[str, typer.Argument(metavar="NODE", help="Node name or UUID.")]
TraitsArg = Annotated[
    list[str], typer.Argument(metavar="TRAIT", help="Full trait names, e.g. CUSTOM_NICX.")
]


def group() -> typer.Typer:
    app = typer.Typer(help="List, add and remove a node's traits.", no_args_is_help=True)
    app.command("add")(add)
    app.command("remove")(remove)
    app.command("list")(list_traits)
    return app


def _change(
    ctx: typer.Context,
    node: str,
    traits: list[str],
    database: str | None,
    adding: bool,
    everything: bool = False,
) -> None:
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.db.engine import writer
    from flavorsmith.errors import FlavorsmithError
    from flavorsmith.ironic import nodes as rules
    from flavorsmith.nodes import service as nodes
    from flavorsmith.store import nodes as store

    try:
        for trait in traits:
            rules.check_trait(trait)
    except FlavorsmithError as exc:
        raise typer.BadParameter(exc.message, param_hint="TRAIT") from None
    engine = open_database(database, ctx)
    try:
        with writer(engine).begin() as connection:
            row = store.find(connection, node, by_name=True, lock=True)
            current = store.traits_of(connection, [row["id"]])[row["id"]]
            if adding:
                wanted = list(dict.fromkeys([*current, *traits]))
            elif everything:
                wanted = []
            else:
                missing = [t for t in traits if t not in current]
                if missing:
                    raise FlavorsmithError(f"node {node} does not have {', '.join(missing)}")
                wanted = [t for t in current if t not in traits]
            nodes.set_traits(connection, row, wanted)
    except FlavorsmithError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    typer.echo(" ".join(sorted(wanted)))


def add(
    ctx: typer.Context, node: NodeArg, traits: TraitsArg, database: DatabaseOption = None
) -> None:
    """Add traits to a node (prints the resulting traits).

    \b
    Example:
      flavorsmith node trait add r7615-a01-u02 CUSTOM_NICX
    """
    _change(ctx, node, traits, database, adding=True)


def remove(
    ctx: typer.Context,
    node: NodeArg,
    traits: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TRAIT",
            help="Full trait names, e.g. CUSTOM_NICX (or --all).",
            show_default=False,
        ),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Remove every trait of the node.")
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Remove traits from a node, all of which must be present, or every trait with --all
    (prints the resulting traits).

    \b
    Example:
      flavorsmith node trait remove r7615-a01-u01 CUSTOM_NICX
    """
    if everything and traits:
        raise typer.BadParameter(
            "give trait names or --all, not both", param_hint="'TRAIT' / '--all'"
        )
    if not everything and not traits:
        raise typer.BadParameter(
            "give the traits to remove, or --all", param_hint="'TRAIT' / '--all'"
        )
    _change(ctx, node, traits or [], database, adding=False, everything=everything)


@table_options()
def list_traits(
    ctx: typer.Context,
    node: NodeArg,
    database: DatabaseOption = None,
    fmt: Annotated[
        ListFormat,
        typer.Option(
            "-f",
            "--format",
            help="Output format (value: one trait per line).",
            case_sensitive=False,
        ),
    ] = ListFormat.VALUE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List a node's traits, one per line (or as a table, JSON, YAML or CSV).

    \b
    Example:
      flavorsmith node trait list r7615-a01-u01
    """
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.errors import FlavorsmithError
    from flavorsmith.store import nodes as store

    wanted = column or COLUMNS
    engine = open_database(database, ctx)
    try:
        with engine.connect() as connection:
            row = store.find(connection, node, by_name=True)
            traits = store.traits_of(connection, [row["id"]])[row["id"]]
    except FlavorsmithError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    rows = sort_rows([{"trait": t} for t in traits], sort_column or [], COLUMNS)
    typer.echo(render_list(select(rows, wanted, COLUMNS), wanted, fmt), nl=False)
