"""``flavorsmith validate``: every file of the repository and the checks across them."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Annotated

import typer

from flavorsmith.cli.options import (
    NodeSource,
    RepoOption,
    node_source,
    repository,
)
from flavorsmith.cli.report import FORMAT_HELP, DiagnosticFormat, emit, exit_for
from flavorsmith.diagnostics import Severity
from flavorsmith.matching.checks import against_nodes
from flavorsmith.matching.index import Index

if TYPE_CHECKING:
    from flavorsmith.matching.index import Index

CheckDatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        metavar="URL",
        help="Also check against the nodes of this database (SQLAlchemy URL): pool leaks "
        "counted on them, required traits that no node has. Read only when given.",
        show_default=False,
    ),
]


@node_source(CheckDatabaseOption)
def validate(
    ctx: typer.Context,
    repo: RepoOption = None,
    fmt: Annotated[
        DiagnosticFormat,
        typer.Option("-f", "--format", help=FORMAT_HELP),
    ] = DiagnosticFormat.TEXT,
    nodes: NodeSource = NodeSource(),
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Report every warning as an error, and so exit 1 on any (for CI).",
        ),
    ] = False,
) -> None:
    """Validate the whole catalog repository. Exit 0 when clean (warnings allowed), 1 on errors.

    Pool leaks are checked on the nodes when a node source is given, else statically (same
    resource class, no trait conflict: "can reach", without a count).

    \b
    Example:
      flavorsmith validate --database sqlite:///flavorsmith.db
    """
    found = repository(repo)
    view = found.load()
    index = node_index(ctx, nodes)
    diagnostics = sorted(
        [*view.diagnostics, *against_nodes(view, index)],
        key=lambda d: (d.path, d.line, d.column, d.message),
    )
    if strict:
        diagnostics = [dataclasses.replace(d, severity=Severity.ERROR) for d in diagnostics]
    emit(diagnostics, fmt, checked=len(view.loaded))
    exit_for(diagnostics)


def node_index(ctx: typer.Context, nodes: NodeSource) -> Index | None:
    """The nodes to check against: of a database, of a real Ironic, or None (not asked)."""
    if nodes == NodeSource():
        return None

    if nodes.database is not None and (
        nodes.cloud is not None or nodes.ironic_endpoint is not None
    ):
        raise typer.BadParameter(
            "give one node source: --database, or --cloud / --ironic-endpoint",
            param_hint="'--database'",
        )
    # Asked for: the database layer or the OpenStack SDK (a fifth of a second and more) loads
    # only now; a plain validate, what CI runs on every catalog change, never waits for them.
    from flavorsmith.cli.ironic_source import ironic_nodes, reading
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.db.engine import consistent
    from flavorsmith.ironic.nodes import SCHEDULING_FIELDS
    from flavorsmith.matching.snapshot import from_records
    from flavorsmith.store import nodes as node_store

    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    if source is not None:
        return Index.build(from_records(reading(lambda: source.nodes(SCHEDULING_FIELDS))))
    engine = open_database(nodes.database, ctx)
    with consistent(engine).begin() as connection:
        return Index.build(node_store.snapshot(connection))
