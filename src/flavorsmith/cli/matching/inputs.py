"""Loading what matching needs: a valid catalog and the nodes — of the service's database, or
of a real Ironic (``--cloud`` / ``--ironic-endpoint``)."""

from __future__ import annotations

import typer

from flavorsmith.catalog.model import Catalog
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.ironic_source import ironic_nodes, reading
from flavorsmith.cli.node.database import note_if_empty, open_database
from flavorsmith.cli.options import NodeSource, repository
from flavorsmith.cli.report import emit
from flavorsmith.db.engine import consistent
from flavorsmith.diagnostics import has_errors
from flavorsmith.ironic.nodes import SCHEDULING_FIELDS
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import from_records
from flavorsmith.store import nodes as node_store


def load(ctx: typer.Context, repo: str | None, nodes: NodeSource) -> tuple[Catalog, Index]:
    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    if source is not None:
        records = reading(lambda: source.nodes(SCHEDULING_FIELDS))
        return view.catalog, Index.build(from_records(records))
    engine = open_database(nodes.database, ctx)
    with consistent(engine).begin() as connection:
        snapshot = node_store.snapshot(connection)
    note_if_empty(engine, len(snapshot.nodes))
    return view.catalog, Index.build(snapshot)
