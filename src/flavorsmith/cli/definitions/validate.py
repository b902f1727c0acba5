"""``<kind> validate FILE...``: schema checks, plus the checks against the repository if any."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.catalog.kinds import Kind
from flavorsmith.catalog.load import load_file
from flavorsmith.cli.definitions.examples import example, sample_folder
from flavorsmith.cli.help_example import with_example
from flavorsmith.cli.options import RepoOption, repository
from flavorsmith.cli.report import FORMAT_HELP, DiagnosticFormat, emit, exit_for


def register(app: typer.Typer, kind: Kind) -> None:
    @app.command("validate")
    def validate(
        files: Annotated[
            list[Path],
            typer.Argument(metavar="FILE", help="Files to check.", exists=True, dir_okay=False),
        ],
        repo: RepoOption = None,
        fmt: Annotated[
            DiagnosticFormat, typer.Option("-f", "--format", help=FORMAT_HELP)
        ] = DiagnosticFormat.TEXT,
    ) -> None:
        """Validate definition files (and against the repository when one is found)."""
        found = repository(repo, required=False)
        diagnostics = []
        for path in files:
            loaded = load_file(path, kind, rules=found.rules)
            diagnostics.extend(loaded.diagnostics)
            if loaded.model is not None:
                diagnostics.extend(found.check_candidate(loaded))
        note = None
        if not found.exists():
            note = (
                f"checks across files skipped: {found.root} is not a catalog repository "
                "(no hardware/ found; set --repo)"
            )
        emit(diagnostics, fmt, checked=len(files), note=note)
        exit_for(diagnostics)

    validate.__doc__ = with_example(
        f"Validate {kind.name} files (and against the catalog repository when found).",
        example(kind, "validate", f"{sample_folder(kind)}/*.yaml"),
    )
