"""``flavorsmith node import FILE``: create or update nodes from a YAML/JSON inventory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.cli.options import DatabaseOption


def import_nodes(
    file: Annotated[
        Path, typer.Argument(help="A YAML or JSON list of nodes.", exists=True, dir_okay=False)
    ],
    database: DatabaseOption = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every node by outcome.")
    ] = False,
) -> None:
    """Import nodes (matched by name): created, updated or unchanged; nothing on any error."""
    import logging

    from flavorsmith.catalog.document import parse
    from flavorsmith.catalog.load import display_path
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.report import emit
    from flavorsmith.db.engine import writer
    from flavorsmith.inventory import importer

    logging.getLogger("alembic").setLevel(logging.WARNING)
    doc, diagnostics = parse(file.read_bytes(), display_path(file))
    specs: list[importer.NodeSpec] = []
    if doc is not None:
        specs, diagnostics = importer.parse(doc)
    if diagnostics:
        emit(diagnostics, err=True)
        typer.echo("error: nothing was imported", err=True)
        raise typer.Exit(1)
    engine = open_database(database)
    with writer(engine).begin() as connection:
        report = importer.apply(connection, specs)
    for outcome in ("created", "updated", "unchanged"):
        names = getattr(report, outcome)
        typer.echo(f"{outcome}: {len(names)}")
        if verbose and names:
            typer.echo("".join(f"  {name}\n" for name in names), nl=False)
