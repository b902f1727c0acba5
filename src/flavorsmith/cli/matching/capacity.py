"""``flavorsmith capacity``: per flavor, matching and available nodes and their overlap."""

from __future__ import annotations

import typer

from flavorsmith.cli.options import (
    DatabaseOption,
    FormatOption,
    IronicCloudOption,
    IronicEndpointOption,
    RepoOption,
)
from flavorsmith.cli.output import Format, render_list, render_show, to_yaml

COLUMNS = [
    "flavor",
    "resource_class",
    "matching",
    "available",
    "exclusive",
    "shared",
    "competition",
]


def capacity(
    ctx: typer.Context,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    cloud: IronicCloudOption = None,
    ironic_endpoint: IronicEndpointOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Capacity per flavor, and findings: idle flavors and nodes, unused classes and traits."""
    import json

    from flavorsmith.cli.matching.inputs import load
    from flavorsmith.matching import views

    catalog, index = load(ctx, repo, database, cloud, ironic_endpoint)
    result = views.capacity(index, views.rules_of(catalog))
    if fmt is Format.JSON:
        typer.echo(json.dumps(result, indent=2))
        return
    if fmt is Format.YAML:
        typer.echo(to_yaml(result), nl=False)
        return
    rows = [
        {**row, "competition": [f"{k} flavors: {v}" for k, v in row["competition"].items()]}
        for row in result["flavors"]
    ]
    typer.echo(render_list(rows, COLUMNS, fmt), nl=False)
    if fmt is Format.TABLE:
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
                },
                fmt,
            ),
            nl=False,
        )


def _short(names: list[str]) -> list[str]:
    return names if len(names) <= 10 else [*names[:10], f"... (+{len(names) - 10} more)"]
