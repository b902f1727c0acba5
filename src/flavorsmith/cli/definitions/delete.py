"""``<kind> delete NAME``: remove the file and its kustomization entry."""

# Annotations stay evaluated when a command is made (no ``from __future__ import
# annotations``): NAME's help is the kind's, which only register's scope holds.

from collections.abc import Callable
from typing import Annotated

import typer

from flavorsmith.catalog import edit
from flavorsmith.catalog.kinds import DEVICE_TYPE, Kind
from flavorsmith.catalog.load import display_path
from flavorsmith.cli.definitions.examples import example, name_help, sample
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.help_example import with_example
from flavorsmith.cli.options import RepoOption, repository


def register(app: typer.Typer, kind: Kind) -> None:
    def remove(repo: RepoOption, name: str, force: bool) -> None:
        found = repository(repo)
        try:
            removed = edit.delete(found, kind, name, force=force)
        except edit.EditRefused as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
        typer.echo(f"deleted {display_path(removed)}")

    # Only a device type's delete checks what uses it (the flavors of its resource classes),
    # so only its command has --force.
    if kind == DEVICE_TYPE:

        def delete_checked(
            name: Annotated[str, typer.Argument(metavar="NAME", help=name_help(kind))],
            repo: RepoOption = None,
            force: Annotated[
                bool,
                typer.Option(
                    "--force", help="Delete even when flavors still use its resource classes."
                ),
            ] = False,
        ) -> None:
            remove(repo, name, force)

        command: Callable[..., None] = delete_checked
    else:

        def delete(
            name: Annotated[str, typer.Argument(metavar="NAME", help=name_help(kind))],
            repo: RepoOption = None,
        ) -> None:
            remove(repo, name, False)

        command = delete
    command.__doc__ = with_example(
        "Delete a definition from the catalog repository.", example(kind, "delete", sample(kind))
    )
    app.command("delete")(command)
