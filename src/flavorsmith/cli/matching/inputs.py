"""Loading what matching needs: a valid catalog and the nodes of the service's database."""

from __future__ import annotations

import typer

from flavorsmith.catalog.model import Catalog
from flavorsmith.matching.index import Index


def load(ctx: typer.Context, repo: str | None, database: str | None) -> tuple[Catalog, Index]:
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.options import repository
    from flavorsmith.cli.report import emit
    from flavorsmith.db.engine import consistent
    from flavorsmith.diagnostics import has_errors
    from flavorsmith.store import nodes as node_store

    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(1)
    engine = open_database(database, ctx)
    with consistent(engine).begin() as connection:
        snapshot = node_store.snapshot(connection)
    return view.catalog, Index.build(snapshot)
