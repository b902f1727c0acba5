"""``flavorsmith extra-specs list [--namespace NS]``."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.extra_specs.registry import load
from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    RepoOption,
    SortColumnOption,
    table_options,
)
from flavorsmith.cli.output import ListFormat, print_list

COLUMNS = ("key", "value", "status", "source", "description")


@table_options(after="fmt")
def list_validators(
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace", metavar="NAMESPACE", help="Only this namespace (e.g. hw, trait)."
        ),
    ] = None,
    repo: RepoOption = None,
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List every registered extra-spec key.

    \b
    Example:
      flavorsmith extra-specs list --namespace hw
    """
    registry = load(repo)
    rows = []
    for validator in registry.validators:
        space = (validator.namespace or "").replace("{group}", "")
        if namespace is not None and space != namespace and validator.namespace != namespace:
            continue
        status = "supported"
        if validator.deprecated:
            status = f"deprecated: use {validator.replacement or 'nothing'}"
        elif validator.extension:
            status = f"{validator.extension} extension"
        rows.append(
            {
                "key": validator.name,
                "value": validator.value.summary(),
                "status": status,
                "source": validator.source,
                "description": validator.description,
            }
        )
    if namespace is not None and not rows:
        known = sorted(
            {(v.namespace or "").replace("{group}", "") for v in registry.validators} - {""}
        )
        typer.echo(f"error: no namespace {namespace!r}; known: {', '.join(known)}", err=True)
        raise typer.Exit(ExitCode.FAILURE)
    wanted = column or (["key", "value", "status"] if fmt is ListFormat.TABLE else list(COLUMNS))
    print_list(rows, COLUMNS, fmt, wanted, sort_column)
