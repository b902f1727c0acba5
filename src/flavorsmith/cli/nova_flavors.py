"""``flavorsmith nova-flavors``: the Nova flavors the catalog derives."""

from __future__ import annotations

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    RepoOption,
    SortColumnOption,
    repository,
    table_options,
)
from flavorsmith.cli.output import ListFormat, print_list
from flavorsmith.cli.report import emit
from flavorsmith.diagnostics import has_errors
from flavorsmith.nova.derive import derive

COLUMNS = (
    "id",
    "name",
    "description",
    "is_public",
    "projects",
    "vcpus",
    "ram",
    "disk",
    "extra_specs",
)
TABLE_COLUMNS = ("id", "vcpus", "ram", "disk", "is_public", "extra_specs")


@table_options()
def nova_flavors(
    repo: RepoOption = None,
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """Print every flavor as Nova will see it: vcpus, ram, disk and scheduling extra specs.

    \b
    Example:
      flavorsmith nova-flavors -c name -c vcpus -c ram -c disk
    """
    found = repository(repo)
    view = found.load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; no Nova flavors are derived from it:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    derived, _ = derive(view.catalog)
    rows = [flavor.as_dict() for flavor in derived]
    wanted = column or (list(TABLE_COLUMNS) if fmt is ListFormat.TABLE else list(COLUMNS))
    available = [*COLUMNS, "swap", "ephemeral"]
    print_list(rows, available, fmt, wanted, sort_column)
