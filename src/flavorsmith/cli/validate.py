"""``flavorsmith validate``: every file of the repository and the checks across them."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Annotated

import typer

from flavorsmith.catalog.kinds import DEPLOY_TEMPLATE, TRAIT, TRAIT_RULE
from flavorsmith.catalog.trait_use import KnownNodes, check_runbooks, check_unprovided
from flavorsmith.cli.options import (
    NodeSource,
    RepoOption,
    node_source,
    repository,
)
from flavorsmith.cli.report import FORMAT_HELP, DiagnosticFormat, emit, exit_for
from flavorsmith.diagnostics import Severity
from flavorsmith.matching import pools
from flavorsmith.matching.index import Index

if TYPE_CHECKING:
    from flavorsmith.catalog.repo import RepoView
    from flavorsmith.diagnostics import Diagnostic
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
        [*view.diagnostics, *_against_nodes(view, index)],
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


def catalog_warnings(view: RepoView) -> list[Diagnostic]:
    """The warnings ``validate`` reports on a catalog without errors and without nodes."""
    found = [*view.diagnostics, *_against_nodes(view, None)]
    return sorted(
        (d for d in found if d.severity is Severity.WARNING),
        key=lambda d: (d.path, d.line, d.column, d.message),
    )


def _against_nodes(view: RepoView, index: Index | None) -> list[Diagnostic]:
    """Pool leaks, required traits nothing provides and runbooks no node may run (skipped
    while a trait-rule, deploy-template or trait file has errors: what it sets is unknown)."""
    catalog = view.catalog
    out = pools.diagnostics(catalog.flavors, pools.leaks(catalog.flavors, index))
    sources = (TRAIT_RULE, DEPLOY_TEMPLATE, TRAIT)
    if all(item.model is not None for item in view.loaded if item.kind in sources):
        known = None
        if index is not None:
            counts = {t: bits.bit_count() for t, bits in index.by_trait.items()}
            known = KnownNodes(len(index.snapshot.nodes), counts)
        out.extend(check_unprovided(catalog, known))
        out.extend(check_runbooks(catalog, known))
    return out
