"""``flavorsmith validate``: every file of the repository and the checks across them."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.options import RepoOption, repository
from flavorsmith.cli.report import DiagnosticFormat, emit, exit_for


def validate(
    repo: RepoOption = None,
    fmt: Annotated[
        DiagnosticFormat,
        typer.Option("-f", "--format", help="text: one line per problem; json: a JSON list."),
    ] = DiagnosticFormat.TEXT,
) -> None:
    """Validate the whole repository. Exit 0 when clean (warnings allowed), 1 on errors."""
    found = repository(repo)
    view = found.load()
    emit(view.diagnostics, fmt, checked=len(view.loaded))
    exit_for(view.diagnostics)
