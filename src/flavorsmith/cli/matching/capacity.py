"""``flavorsmith capacity``: per flavor, matching and available nodes and their overlap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

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
    print_document,
    render_list,
    render_show,
    select,
    sort_rows,
)
from flavorsmith.matching import pools, reports
from flavorsmith.visibility import Viewer, visible_catalog

if TYPE_CHECKING:
    from flavorsmith.matching.pools import Leak

# Each flavor's columns, named for what they count (the report's own names on the right).
NAMES = {
    "flavor": "flavor",
    "resource_class": "resource_class",
    "matching_nodes": "matching",
    "available_nodes": "available",
    "exclusive_nodes": "exclusive",  # matching nodes no other flavor can use
    "shared_nodes": "shared",  # matching nodes other flavors can use too
    "flavors_per_node": "competition",  # how many nodes each number of flavors can use
}
COLUMNS = list(NAMES)
# The columns unless -c is given (flavors_per_node tells the exclusive and shared nodes; the
# resource class is in flavor list).
DEFAULT = ["flavor", "matching_nodes", "available_nodes", "flavors_per_node"]


@table_options(after="sort_column")
@node_source()
def capacity(
    ctx: typer.Context,
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            metavar="PROJECT",
            help="What this project can use: only the flavors it sees (public, and private "
            "ones whose access list holds it), counted among themselves.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Count each flavor's capacity, and report findings: idle flavors and nodes, unused classes
    and traits, pool leaks. Per flavor: its matching nodes, how many are available, and how many
    nodes each number of flavors can use (flavors_per_node: "1 flavor: 98 nodes" are its own;
    -c exclusive_nodes and -c shared_nodes count them). -c and --sort-column apply to the
    flavors (in JSON and YAML, to the document's flavors); the findings table follows the
    flavors' table only when no -c is given.

    \b
    Example:
      flavorsmith capacity --cloud lab
    """
    catalog, index = load(ctx, repo, nodes)
    if project is not None:
        if not project.strip():
            raise typer.BadParameter("a project id cannot be empty", param_hint="'--project'")
        if not any(project in f.projects for f in catalog.flavors):
            typer.echo(
                f"note: project {project!r} is in no private flavor's access list: "
                "it sees the public flavors only",
                err=True,
            )
        catalog = visible_catalog(catalog, Viewer(admin=False, project_id=project))
    result = reports.capacity(index, reports.rules_of(catalog))
    result["flavors"] = [
        {name: row[key] for name, key in NAMES.items()} for row in result["flavors"]
    ]
    wanted = column or DEFAULT
    result["flavors"] = sort_rows(result["flavors"], sort_column or [], COLUMNS)
    if column:
        result["flavors"] = select(result["flavors"], column, COLUMNS)
    if project is not None:
        result["project"] = project
    leaks = pools.leaks(catalog.flavors, index)
    result["findings"]["pool_leaks"] = [leak.as_dict() for leak in leaks]
    if print_document(result, fmt):
        return
    rows = [
        {**row, "flavors_per_node": _per_node(row["flavors_per_node"])}
        if "flavors_per_node" in row
        else row
        for row in result["flavors"]
    ]
    typer.echo(render_list(rows, wanted, fmt), nl=False)
    if fmt is ListFormat.TABLE and not column:
        findings = result["findings"]
        typer.echo(
            render_show(
                {
                    "flavors without nodes": findings["flavors_without_nodes"],
                    "nodes without a flavor": _short(findings["nodes_without_flavor"]),
                    "resource classes without a flavor": findings[
                        "resource_classes_without_flavor"
                    ],
                    "required traits no node has": [
                        f"{t} ({', '.join(f)})" for t, f in findings["traits_no_node_has"].items()
                    ],
                    "pool leaks": [
                        line for leak in leaks for line in (leak.summary(), *_fix_lines(leak))
                    ],
                },
                Format.TABLE,
            ),
            nl=False,
        )


def _per_node(counts: dict[str, int]) -> list[str]:
    """``1 flavor: 98 nodes``: how many of the flavor's nodes each number of flavors can use."""
    return [
        f"{k} flavor{'' if k == '1' else 's'}: {v} node{'' if v == 1 else 's'}"
        for k, v in counts.items()
    ]


def _fix_lines(leak: Leak) -> list[str]:
    first, alternative = leak.fixes()
    return [f"  fix: {first}", f"  or: {alternative}"]


def _short(names: list[str]) -> list[str]:
    return names if len(names) <= 10 else [*names[:10], f"... (+{len(names) - 10} more)"]
