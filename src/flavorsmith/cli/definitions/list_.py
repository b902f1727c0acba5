"""``<kind> list``: the repository's definitions as a table, JSON, YAML or values."""

from __future__ import annotations

import typer

from flavorsmith.catalog.kinds import Kind
from flavorsmith.cli.definitions.examples import example
from flavorsmith.cli.definitions.rows import columns, row
from flavorsmith.cli.help_example import with_example
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


def register(app: typer.Typer, kind: Kind) -> None:
    @app.command("list")
    @table_options()
    def list_(
        repo: RepoOption = None,
        fmt: ListFormatOption = ListFormat.TABLE,
        column: ColumnOption = None,
        sort_column: SortColumnOption = None,
    ) -> None:
        """List the definitions in the catalog repository."""
        found = repository(repo)
        loaded = [found.load_definition(path, kind) for path in found.definition_files(kind)]
        broken = [d for item in loaded if item.model is None for d in item.diagnostics]
        if broken:
            typer.echo("skipped files with errors (run flavorsmith validate):", err=True)
            emit(broken, err=True)
        models = [item.model for item in loaded if item.model is not None]
        rows = sorted((row(m) for m in models), key=lambda r: str(r["name"]))
        available = columns(kind.name)
        wanted = column or list(available)
        print_list(rows, available, fmt, wanted, sort_column)

    list_.__doc__ = with_example(
        "List the definitions in the catalog repository.", example(kind, "list", "-f yaml")
    )
