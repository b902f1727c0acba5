"""``flavorsmith init [DIR]``: a new catalog repository to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.catalog.repo import write_atomic
from flavorsmith.catalog.starter import FILES


def init(
    folder: Annotated[
        Path,
        typer.Argument(
            metavar="[DIR]",
            help="Where to make it (made when missing). Default: the working directory.",
            file_okay=False,
        ),
    ] = Path("."),
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Write into a folder that is not empty (files of the same name are replaced).",
        ),
    ] = False,
) -> None:
    """Make a catalog repository to start from.

    One commented device type, one flavor, the kustomization, a pre-commit configuration and
    a README: it validates as it is. A folder that is not empty is refused unless --force.

    \b
    Example:
      flavorsmith init my-catalog
    """
    if folder.exists() and any(folder.iterdir()) and not force:
        raise typer.BadParameter(
            f"{folder} is not empty; choose an empty or new folder, or give --force to write "
            "the starter files into it",
            param_hint="'DIR'",
        )
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        typer.echo(f"wrote {path}")
    typer.echo(f"next: cd {folder} && flavorsmith validate")
