"""``flavorsmith classify INSPECTION.json [--node NODE --apply]`` against the service's
database, and ``flavorsmith classify --cloud NAME|--ironic-endpoint URL --node N|--all
[--apply [--yes]]`` against a real Ironic (``cli.classify_ironic``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from flavorsmith.cli.classification_table import cells
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import (
    DatabaseOption,
    FormatOption,
    IronicCloudOption,
    IronicEndpointOption,
    RepoOption,
    table_options,
)
from flavorsmith.cli.output import Format, print_document, render_show


@table_options()
def classify(
    ctx: typer.Context,
    inspection: Annotated[
        Path | None,
        typer.Argument(
            metavar="INSPECTION",
            help="Ironic inspection data (JSON); not with --cloud/--ironic-endpoint, which "
            "read each node's inventory from Ironic.",
            exists=True,
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    node: Annotated[
        str | None, typer.Option("--node", metavar="NODE", help="The node it belongs to.")
    ] = None,
    all_nodes: Annotated[
        bool,
        typer.Option(
            "--all", help="Every node of the Ironic (--cloud/--ironic-endpoint): plan, then apply."
        ),
    ] = False,
    apply: Annotated[
        bool, typer.Option("--apply", help="Update the node: resource class and owned traits.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="With --all --apply: apply without asking.")
    ] = False,
    cloud: IronicCloudOption = None,
    ironic_endpoint: IronicEndpointOption = None,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Classify inspection data: its device type, resource class and traits, with the reason
    for each. Exit 1 when no device type, or more than one, matches.

    With --cloud or --ironic-endpoint the inventory is the one Ironic keeps for the node
    (GET /v1/nodes/{node}/inventory) and --apply writes that Ironic: the resource class, and
    the owned traits one by one. --all plans every node and applies with --apply (--yes when
    not on a terminal).

    \b
    Example:
      flavorsmith classify inspection/r7615-m1-small.json
    """
    if cloud is not None or ironic_endpoint is not None:
        from flavorsmith.cli import classify_ironic

        if inspection is not None:
            raise typer.BadParameter(
                "INSPECTION.json and --cloud/--ironic-endpoint are two sources of inspection "
                "data: give one (Ironic's own inventory is read with --node or --all)",
                param_hint="'INSPECTION'",
            )
        if (node is None) == (not all_nodes):
            raise typer.BadParameter(
                "give --node NODE or --all (one of them) with --cloud/--ironic-endpoint",
                param_hint="'--node' / '--all'",
            )
        if all_nodes and fmt is Format.SHELL:
            raise typer.BadParameter(
                "shell prints one record (--node); --all prints a list: use table, json, yaml "
                "or value",
                param_hint="'-f' / '--format'",
            )
        view = classify_ironic.catalog(repo)
        nodes = classify_ironic.source(cloud, ironic_endpoint)
        if node is not None:
            classify_ironic.one(nodes, view, node, apply=apply, fmt=fmt)
        else:
            classify_ironic.fleet(nodes, view, apply=apply, yes=yes, fmt=fmt)
        return
    if all_nodes:
        raise typer.BadParameter(
            "--all classifies the nodes of a real Ironic: give --cloud or --ironic-endpoint",
            param_hint="'--all'",
        )
    if inspection is None:
        raise typer.BadParameter(
            "give INSPECTION.json, or --cloud/--ironic-endpoint with --node or --all",
            param_hint="'INSPECTION'",
        )
    from flavorsmith import jsonsafe
    from flavorsmith.classify.classification import classify as run
    from flavorsmith.classify.inspection import parse
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.options import repository
    from flavorsmith.cli.report import emit
    from flavorsmith.db.engine import writer
    from flavorsmith.diagnostics import has_errors
    from flavorsmith.errors import FlavorsmithError
    from flavorsmith.jsonsafe import Malformed
    from flavorsmith.nodes.service import classify_node
    from flavorsmith.store import nodes as store

    if apply and node is None:
        raise typer.BadParameter("--apply needs --node", param_hint="'--apply'")
    try:
        data = jsonsafe.loads(inspection.read_bytes(), what="the inspection data")
    except Malformed as exc:
        typer.echo(f"error: {inspection}: not JSON: {exc.detail}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    except FlavorsmithError as exc:
        typer.echo(f"error: {inspection}: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    changes: dict[str, Any] = {}
    try:
        if node is None:
            result = run(parse(data), view.catalog)
        else:
            engine = open_database(database, ctx)
            with writer(engine).begin() as connection:
                row = store.find(connection, node, by_name=True, lock=True)
                result, changes = classify_node(connection, row, data, view.catalog, apply=apply)
    except FlavorsmithError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    body = result.as_dict()
    if apply:
        body["applied"] = changes or "nothing to change"
    if not print_document(body, fmt):
        typer.echo(render_show(cells(body), fmt), nl=False)
    if result.resource_class is None:
        raise typer.Exit(ExitCode.FAILURE)
