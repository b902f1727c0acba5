"""``flavorsmith classify INSPECTION.json [--node NODE --apply]``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from flavorsmith.cli.options import DatabaseOption, FormatOption, RepoOption
from flavorsmith.cli.output import Format, render_show, to_yaml


def classify(
    ctx: typer.Context,
    inspection: Annotated[
        Path, typer.Argument(help="Ironic inspection data (JSON).", exists=True, dir_okay=False)
    ],
    node: Annotated[str | None, typer.Option("--node", help="The node it belongs to.")] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Update the node: resource class and owned traits.")
    ] = False,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Device type, resource class and traits for inspection data, with the reason for each.
    Exit 1 when no device type, or more than one, matches."""
    from flavorsmith import jsonsafe
    from flavorsmith.classify.classification import classify as run
    from flavorsmith.classify.inspection import parse
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.options import repository
    from flavorsmith.cli.report import emit
    from flavorsmith.db.engine import writer
    from flavorsmith.diagnostics import has_errors
    from flavorsmith.errors import FlavorsmithError
    from flavorsmith.inventory.classifying import classify_node
    from flavorsmith.jsonsafe import Malformed
    from flavorsmith.store import nodes as store

    if apply and node is None:
        raise typer.BadParameter("--apply needs --node", param_hint="'--apply'")
    try:
        data = jsonsafe.loads(inspection.read_bytes(), what="the inspection data")
    except Malformed as exc:
        typer.echo(f"error: {inspection}: not JSON: {exc.detail}", err=True)
        raise typer.Exit(1) from None
    except FlavorsmithError as exc:
        typer.echo(f"error: {inspection}: {exc.message}", err=True)
        raise typer.Exit(1) from None
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(1)
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
        raise typer.Exit(1) from None
    body = result.as_dict()
    if apply:
        body["applied"] = changes or "nothing to change"
    if fmt is Format.JSON:
        typer.echo(json.dumps(body, indent=2))
    elif fmt is Format.YAML:
        typer.echo(to_yaml(body), nl=False)
    else:
        typer.echo(render_show(_cells(body), fmt), nl=False)
    if result.resource_class is None:
        raise typer.Exit(1)


def _cells(body: dict[str, Any]) -> dict[str, Any]:
    candidates = []
    for candidate in body["candidates"]:
        head = f"{candidate['resource_class']} ({candidate['device_type']}): "
        if candidate["match"]:
            candidates.append(head + "match")
        else:
            failed = [f"{c['field']}: {c['detail']}" for c in candidate["checks"] if not c["ok"]]
            candidates.append(head + "; ".join(failed))
    matched = next((c for c in body["candidates"] if c["match"]), None)
    cells: dict[str, Any] = {
        "result": body["summary"],
        "device_type": body["device_type"],
        "resource_class": body["resource_class"],
        "why": [f"{c['field']}: {c['detail']}" for c in matched["checks"]] if matched else [],
        "candidates": candidates if not matched or body["outcome"] != "matched" else [],
        "traits": body["traits"],
        "trait reasons": [
            f"{r['trait']}: {r['because']} ({r['rules']}: {r['rule']})"
            for r in body["trait_reasons"]
        ],
        "traits kept (not owned by rules)": body["traits_kept"],
    }
    if "applied" in body:
        cells["applied"] = body["applied"]
    return cells
