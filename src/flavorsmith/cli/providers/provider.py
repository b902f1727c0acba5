"""``flavorsmith provider list`` and ``provider capabilities NAME``."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    RepoOption,
    SortColumnOption,
    table_options,
)
from flavorsmith.cli.output import ListFormat, print_list
from flavorsmith.cli.providers.common import DEFAULT, ProvidersOption, load_registry, reported
from flavorsmith.providers.validation import capabilities as of

COLUMNS = ("name", "description")


@table_options(after="fmt")
def list_providers(
    ctx: typer.Context,
    providers: ProvidersOption = DEFAULT,
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List the enabled providers; a provider whose driver failed to load is a warning on
    stderr and is not listed."""
    registry = load_registry(ctx, providers, None, None)
    rows = [{"name": p.name, "description": p.description} for p in registry.providers.values()]
    print_list(rows, COLUMNS, fmt, column, sort_column)


@table_options(after="fmt")
def capabilities(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="PROVIDER", help="An enabled provider's name.")],
    providers: ProvidersOption = DEFAULT,
    repo: RepoOption = None,
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List the flavor data keys a provider accepts (its flavor capabilities).

    The baremetal provider lists the resource classes and deploy templates of the catalog at
    --repo; when the catalog has errors it warns and uses the definitions that loaded."""
    registry = load_registry(ctx, providers, repo, None)
    with reported():
        rows = of(registry.get(name))
    print_list(rows, COLUMNS, fmt, column, sort_column)
