"""``flavorsmith match [--flavor F] [--node N] [--explain]``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from flavorsmith.cli.options import (
    DatabaseOption,
    FitWidthOption,
    FormatOption,
    IronicCloudOption,
    IronicEndpointOption,
    MaxWidthOption,
    RepoOption,
)
from flavorsmith.cli.output import Format, render_list, render_show

TABLE_NODES = 6


def match(
    ctx: typer.Context,
    flavor: Annotated[
        str | None, typer.Option("--flavor", metavar="FLAVOR", help="Only this flavor.")
    ] = None,
    node: Annotated[
        str | None, typer.Option("--node", metavar="NODE", help="Only this node (name or UUID).")
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Say why each non-matching pair does not match.")
    ] = False,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    cloud: IronicCloudOption = None,
    ironic_endpoint: IronicEndpointOption = None,
    fmt: FormatOption = Format.TABLE,
    max_width: MaxWidthOption = 0,
    fit_width: FitWidthOption = False,
) -> None:
    """Which nodes each flavor can land on (and with --explain, why not)."""
    from flavorsmith.cli.matching.inputs import load
    from flavorsmith.errors import NotFound
    from flavorsmith.matching import views

    catalog, index = load(ctx, repo, database, cloud, ironic_endpoint)
    rules = views.rules_of(catalog)
    try:
        chosen = [views.find_flavor(rules, flavor)] if flavor else rules
        target = views.find_node(index, node) if node else None
    except NotFound as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
    if target is not None and flavor:
        result = views.pair(target, chosen[0], views.known_traits(index))
        typer.echo(render_show(_pair_cells(result, fmt), fmt), nl=False)
        return
    if target is not None:
        pairs = [views.pair(target, r, views.known_traits(index)) for r in chosen]
        rows = [
            {
                "flavor": p["flavor"],
                "match": p["match"],
                "reasons": [r["detail"] for r in p["reasons"]],
            }
            for p in pairs
            if explain or p["match"]
        ]
        columns = ["flavor", "match", "reasons"] if explain else ["flavor", "match"]
        typer.echo(render_list(rows, columns, fmt), nl=False)
        return
    rows = []
    for rule in chosen:
        matched = views.nodes_of(index, rule)
        names = [n.label for n in matched]
        if fmt is Format.TABLE and len(names) > TABLE_NODES:
            names = [*names[:TABLE_NODES], f"... (+{len(matched) - TABLE_NODES} more)"]
        row: dict[str, Any] = {
            "flavor": rule.name,
            "resource_class": rule.resource_class,
            "count": len(matched),
            "nodes": names,
        }
        if explain:
            row["near_misses"] = _near_misses(index, rule, fmt)
        rows.append(row)
    columns = ["flavor", "resource_class", "count", "nodes"] + (["near_misses"] if explain else [])
    typer.echo(render_list(rows, columns, fmt), nl=False)


def _near_misses(index: Any, rule: Any, fmt: Format) -> list[str]:
    """Nodes of the flavor's resource class that fail only on traits, with the reasons."""
    from flavorsmith.matching.match import explain as reasons_for

    out = []
    for node in index.snapshot.nodes:
        if node.placement_class != rule.placement_class:
            continue
        reasons = reasons_for(node, rule, frozenset(index.by_trait))
        if reasons:
            out.append(f"{node.label}: " + "; ".join(r.detail for r in reasons))
    if fmt is Format.TABLE and len(out) > TABLE_NODES:
        out = [*out[:TABLE_NODES], f"... (+{len(out) - TABLE_NODES} more)"]
    return out


def _pair_cells(result: dict[str, Any], fmt: Format) -> dict[str, Any]:
    if fmt is not Format.TABLE:
        return result
    return {**result, "reasons": [r["detail"] for r in result["reasons"]]}
