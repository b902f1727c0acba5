"""``<kind> add FILE``: validate, write to the canonical path, list it in kustomization.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.catalog import edit
from flavorsmith.catalog.kinds import Kind
from flavorsmith.catalog.load import display_path
from flavorsmith.catalog.repo import Repository, resolve_root
from flavorsmith.cli.definitions.examples import example, sample_file
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.help_example import with_example
from flavorsmith.cli.options import RepoOption, repository
from flavorsmith.cli.report import emit
from flavorsmith.diagnostics import has_errors


def register(app: typer.Typer, kind: Kind) -> None:
    @app.command("add")
    def add(
        file: Annotated[
            Path, typer.Argument(help="The definition to add.", exists=True, dir_okay=False)
        ],
        repo: RepoOption = None,
        force: Annotated[
            bool, typer.Option("--force", help="Replace an existing definition of that name.")
        ] = False,
    ) -> None:
        """Validate a definition and add it to the catalog repository."""
        found = repository(repo, required=False)
        if not found.exists():
            found = Repository(resolve_root(repo), found.rules)
        try:
            result = edit.add(found, kind, file, force=force)
        except edit.EditRefused as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
        if result.diagnostics:
            emit(result.diagnostics, err=has_errors(result.diagnostics))
        if result.written is None:
            typer.echo(f"error: {display_path(file)} was not added", err=True)
            raise typer.Exit(ExitCode.FAILURE)
        for old in result.replaced:
            typer.echo(f"removed {display_path(old)}")
        typer.echo(f"added {display_path(result.written)}")
        typer.echo(f"listed in {display_path(found.kustomization_path)}")

    add.__doc__ = with_example(
        "Validate a definition and add it to the catalog repository.",
        example(kind, "add", sample_file(kind)),
    )
