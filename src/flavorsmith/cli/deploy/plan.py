"""``flavorsmith deploy plan NODE [--flavor F] [--catalog]``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.ironic_source import fail, ironic_nodes, reading
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
from flavorsmith.ironic.deploy_steps import deploy_plan
from flavorsmith.ironic.deploy_templates import Template
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.store import nodes as store


@table_options()
@node_source()
def plan(
    ctx: typer.Context,
    node: Annotated[str, typer.Argument(metavar="NODE", help="Node name or UUID.")],
    flavor: Annotated[
        str | None,
        typer.Option(
            "--flavor",
            metavar="FLAVOR",
            help="Use this catalog flavor's required traits as the instance traits, as Nova's "
            "ironic driver does (default: the node's instance_info.traits).",
        ),
    ] = None,
    catalog: Annotated[
        bool,
        typer.Option(
            "--catalog",
            help="Use the repository's deploy templates instead of the service's (or the "
            "real Ironic's).",
        ),
    ] = False,
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    output_format: ReportFormatOption = ReportFormat.TABLE,
) -> None:
    """Show the ordered deploy steps provisioning NODE would run, where each comes from, and
    why each deploy template was or was not applied. Exits 1 when Ironic would refuse, or
    when Nova would never place the --flavor on NODE (another resource class).

    \b
    Example:
      flavorsmith deploy plan dl360-c01-u01 --flavor c2.large.vmx-mirror --catalog
    """
    fmt = Format(output_format.value)

    wanted_flavor = None
    repo_templates: list[Template] = []
    if flavor is not None or catalog:
        view = _catalog(repo)
        if flavor is not None:
            wanted_flavor = view.flavor(flavor)
            if wanted_flavor is None:
                names = ", ".join(sorted(f.name for f in view.flavors)) or "none"
                typer.echo(
                    f"error: no flavor {flavor!r} in the catalog; flavors: {names}", err=True
                )
                raise typer.Exit(ExitCode.FAILURE)
        repo_templates = [template_store.as_template(t.as_api()) for t in view.deploy_templates]
    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    if source is not None:
        row, node_traits, templates = _from_ironic(source, node)
        templates = repo_templates if catalog else templates
    else:
        engine = open_database(nodes.database, ctx)
        try:
            with engine.connect() as connection:
                row = store.find(connection, node, by_name=True)
                node_traits = store.traits_of(connection, [row["id"]])[row["id"]]
                templates = repo_templates if catalog else template_store.all_templates(connection)
        except FlavorsmithError as exc:
            typer.echo(f"error: {exc.message}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
    report = deploy_plan(row, node_traits, templates, wanted_flavor)
    _print(report, fmt)
    if report["errors"]:
        raise typer.Exit(ExitCode.FAILURE)


def _from_ironic(source: Any, node: str) -> tuple[dict[str, Any], list[str], list[Any]]:
    """The node (driver, traits, instance_info) and the deploy templates of a real Ironic."""
    fields = ("uuid", "name", "driver", "resource_class", "traits", "instance_info")
    try:
        row = source.node(node, fields)
    except TargetError as exc:
        fail(f"no node {node!r} in that Ironic" if exc.status == 404 else str(exc))
    templates = reading(source.deploy_templates)
    row["instance_info"] = row.get("instance_info") or {}
    return row, list(row.get("traits") or []), [template_store.as_template(t) for t in templates]


def _catalog(repo: str | None) -> Any:
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    return view.catalog


def _print(report: dict[str, Any], fmt: Format) -> None:
    if print_document(report, fmt):
        return
    typer.echo(
        f"node {report['node']} (driver {report['driver']}); instance traits: "
        f"{', '.join(report['instance_traits']) or 'none'}"
    )
    rows = [
        {
            "order": index,
            "interface": step["interface"],
            "step": step["step"],
            "priority": step["priority"],
            "from": step["source"],
            "args": json.dumps(step["args"], sort_keys=True) if step["args"] else "",
        }
        for index, step in enumerate(report["steps"], start=1)
    ]
    columns = ["order", "interface", "step", "priority", "from", "args"]
    typer.echo(render_list(rows, columns, fmt), nl=False)
    if report["templates"]:
        typer.echo(
            render_list(
                [
                    {
                        "template": t["template"],
                        "applied": "yes" if t["applied"] else "no",
                        "reason": t["reason"],
                    }
                    for t in report["templates"]
                ],
                ["template", "applied", "reason"],
                fmt,
            ),
            nl=False,
        )
    for skipped in report["skipped"]:
        typer.echo(f"note: {skipped}", err=True)
    for error in report["errors"]:
        typer.echo(f"error: {error}", err=True)
