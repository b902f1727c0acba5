"""``flavorsmith trait list``: every trait the catalog mentions, who sets it, who asks for it."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.catalog.trait_use import KnownNodes, uses
from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    NodeSource,
    RepoOption,
    SortColumnOption,
    node_source,
    repository,
    table_options,
)
from flavorsmith.cli.output import ListFormat, print_list
from flavorsmith.cli.report import emit
from flavorsmith.cli.validate import node_index
from flavorsmith.diagnostics import Severity, has_errors

COLUMNS = ["trait", "set_by", "nodes", "required_by", "forbidden_by", "description", "notes"]
# Shown by default only when the catalog declares its traits (hardware/traits/).
DECLARED_COLUMNS = ("description", "notes")

NodesDatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        metavar="URL",
        help="Also count the nodes of this database (SQLAlchemy URL) that have each trait; "
        "a trait nodes have and nothing sets shows as set 'by hand'. Read only when given.",
        show_default=False,
    ),
]


def group() -> typer.Typer:
    app = typer.Typer(
        help="List the traits the catalog uses.", no_args_is_help=True, rich_markup_mode=None
    )
    app.command("list")(list_traits)
    return app


@table_options(after="fmt")
@node_source(NodesDatabaseOption)
def list_traits(
    ctx: typer.Context,
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List every trait the catalog mentions: who sets it (a trait-rule file, a deploy template,
    Nova, or by hand) and which flavors require or forbid it.

    \b
    Example:
      flavorsmith trait list --database sqlite:///flavorsmith.db
    """
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("skipped files with errors (run flavorsmith validate):", err=True)
        emit([d for d in view.diagnostics if d.severity is Severity.ERROR], err=True)
    index = node_index(ctx, nodes)
    known = None
    if index is not None:
        counts = {t: bits.bit_count() for t, bits in index.by_trait.items()}
        known = KnownNodes(len(index.snapshot.nodes), counts)
    rows = [use.as_dict() for use in uses(view.catalog, known)]
    declares = bool(view.catalog.trait_sets)
    wanted = column or [
        c
        for c in COLUMNS
        if (c != "nodes" or known is not None) and (c not in DECLARED_COLUMNS or declares)
    ]
    print_list(rows, COLUMNS, fmt, wanted, sort_column)
