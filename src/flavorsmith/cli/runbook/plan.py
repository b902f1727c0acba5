"""``flavorsmith runbook plan NODE``: the catalog's runbooks a node may run, and their steps."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.ironic_source import fail, ironic_nodes
from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    NodeSource,
    RepoOption,
    ReportFormatOption,
    node_source,
    repository,
    table_options,
)
from flavorsmith.cli.output import Format, ReportFormat, print_document, render_list
from flavorsmith.cli.report import emit
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import FlavorsmithError, TargetError
from flavorsmith.ironic.runbooks import runbook_plan
from flavorsmith.store import nodes as store


@table_options()
@node_source()
def plan(
    ctx: typer.Context,
    node: Annotated[str, typer.Argument(metavar="NODE", help="Node name or UUID.")],
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    output_format: ReportFormatOption = ReportFormat.TABLE,
) -> None:
    """Show which of the catalog's runbooks NODE may run, because of which of its traits, and
    the ordered steps each would run. Ironic lets a node run a runbook when the node has at
    least one of the runbook's traits. Exits 1 when a runbook NODE may run has a step its
    driver does not offer.

    \b
    Example:
      flavorsmith runbook plan r7615-a01-u03 --database sqlite:///flavorsmith.db
    """
    fmt = Format(output_format.value)
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    runbooks = [r.as_api() for r in view.catalog.runbooks]
    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    if source is not None:
        try:
            row = source.node(node, ("uuid", "name", "driver", "traits"))
        except TargetError as exc:
            fail(f"no node {node!r} in that Ironic" if exc.status == 404 else str(exc))
        node_traits = list(row.get("traits") or [])
    else:
        engine = open_database(nodes.database, ctx)
        try:
            with engine.connect() as connection:
                row = store.find(connection, node, by_name=True)
                node_traits = store.traits_of(connection, [row["id"]])[row["id"]]
        except FlavorsmithError as exc:
            typer.echo(f"error: {exc.message}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
    report = runbook_plan(row, node_traits, runbooks)
    _print(report, fmt)
    if report["problems"]:
        raise typer.Exit(ExitCode.FAILURE)


def _print(report: dict[str, Any], fmt: Format) -> None:
    if print_document(report, fmt):
        for problem in report["problems"]:
            typer.echo(f"error: {problem}", err=True)
        return
    typer.echo(
        f"node {report['node']} (driver {report['driver']}); traits: "
        f"{', '.join(report['traits']) or 'none'}"
    )
    rows = [
        {"runbook": r["runbook"], "may run": "yes" if r["allowed"] else "no", "why": r["reason"]}
        for r in report["runbooks"]
    ]
    if not rows:
        typer.echo("the catalog has no runbooks (hardware/runbooks/)")
    else:
        typer.echo(render_list(rows, ["runbook", "may run", "why"], fmt), nl=False)
    steps = [
        {
            "runbook": r["runbook"],
            "order": step["order"],
            "interface": step["interface"],
            "step": step["step"],
            "args": json.dumps(step["args"], sort_keys=True) if step["args"] else "",
        }
        for r in report["runbooks"]
        for step in r["steps"]
    ]
    if steps:
        columns = ["runbook", "order", "interface", "step", "args"]
        typer.echo(render_list(steps, columns, fmt), nl=False)
    for problem in report["problems"]:
        typer.echo(f"error: {problem}", err=True)
