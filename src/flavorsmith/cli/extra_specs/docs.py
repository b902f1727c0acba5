"""``flavorsmith extra-specs docs`` and ``metadef``: documentation generated from the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.cli.extra_specs.registry import load
from flavorsmith.cli.options import RepoOption
from flavorsmith.extra_specs.docs import markdown
from flavorsmith.extra_specs.metadef import file_name, namespaces


def docs(repo: RepoOption = None) -> None:
    """Print a Markdown reference of every validator, grouped by namespace.

    \b
    Example:
      flavorsmith extra-specs docs
    """
    typer.echo(markdown(load(repo)), nl=False)


def metadef(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            metavar="DIR",
            help="Write one <namespace>.json per namespace here.",
            file_okay=False,
        ),
    ] = None,
    repo: RepoOption = None,
) -> None:
    """Print the validators as Glance metadata-definition namespaces (a JSON list, or files
    with --output).

    \b
    Example:
      flavorsmith extra-specs metadef --output metadefs
    """
    documents = namespaces(load(repo))
    if output is None:
        typer.echo(json.dumps(documents, indent=2))
        return
    output.mkdir(parents=True, exist_ok=True)
    for document in documents:
        (output / file_name(document)).write_text(
            json.dumps(document, indent=2) + "\n", encoding="utf-8"
        )
    typer.echo(f"wrote {len(documents)} namespaces to {output}")
