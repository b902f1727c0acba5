"""``flavorsmith match [--flavor F] [--node N] [--explain]``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.matching.inputs import load
from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    NodeSource,
    RepoOption,
    SortColumnOption,
    node_source,
    table_options,
)
from flavorsmith.cli.output import (
    Format,
    ListFormat,
    Row,
    print_list,
    print_show,
)
from flavorsmith.errors import NotFound
from flavorsmith.matching import reports
from flavorsmith.matching.match import explain as reasons_for

TABLE_NODES = 6


@table_options()
@node_source()
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
    nodes: NodeSource = NodeSource(),
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """Show which nodes each flavor can land on (and with --explain, why not). With --flavor
    and --node, the one pair as a record (-c picks its fields; csv is one row).

    \b
    Example:
      flavorsmith match --flavor c2.large --explain
    """
    catalog, index = load(ctx, repo, nodes)
    rules = reports.rules_of(catalog)
    try:
        chosen = [reports.find_flavor(rules, flavor)] if flavor else rules
        target = reports.find_node(index, node) if node else None
    except NotFound as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    if target is not None and flavor:
        result = _pair_cells(reports.pair(target, chosen[0], reports.known_traits(index)), fmt)
        if fmt is ListFormat.CSV:
            _print(ListFormat.CSV, [result], list(result), column, sort_column)
        else:
            print_show(result, Format(fmt.value), column)
        return
    if target is not None:
        pairs = [reports.pair(target, r, reports.known_traits(index)) for r in chosen]
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
        _print(fmt, rows, columns, column, sort_column)
        return
    rows = []
    for rule in chosen:
        matched = reports.nodes_of(index, rule)
        names = [n.label for n in matched]
        if fmt is ListFormat.TABLE and len(names) > TABLE_NODES:
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
    _print(fmt, rows, columns, column, sort_column)


def _print(
    fmt: ListFormat,
    rows: list[Row],
    columns: list[str],
    column: list[str] | None,
    sort_column: list[str] | None,
) -> None:
    wanted = column or columns
    print_list(rows, columns, fmt, wanted, sort_column)


def _near_misses(index: Any, rule: Any, fmt: ListFormat) -> list[str]:
    """Nodes of the flavor's resource class that fail only on traits, with the reasons."""
    out = []
    for node in index.snapshot.nodes:
        if node.placement_class != rule.placement_class:
            continue
        reasons = reasons_for(node, rule, frozenset(index.by_trait))
        if reasons:
            out.append(f"{node.label}: " + "; ".join(r.detail for r in reasons))
    if fmt is ListFormat.TABLE and len(out) > TABLE_NODES:
        out = [*out[:TABLE_NODES], f"... (+{len(out) - TABLE_NODES} more)"]
    return out


def _pair_cells(result: dict[str, Any], fmt: ListFormat) -> dict[str, Any]:
    if fmt not in (ListFormat.TABLE, ListFormat.CSV):
        return result
    return {**result, "reasons": [r["detail"] for r in result["reasons"]]}
