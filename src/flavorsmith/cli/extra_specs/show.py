"""``flavorsmith extra-specs show KEY``: one validator, by template or by a concrete key."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.extra_specs.registry import load
from flavorsmith.cli.options import (
    ColumnOption,
    FormatOption,
    RepoOption,
    table_options,
)
from flavorsmith.cli.output import Format, print_show


@table_options(prefix=True)
def show(
    key: Annotated[
        str,
        typer.Argument(
            metavar="KEY", help="e.g. hw:cpu_policy, hw:numa_cpus.0, trait:HW_CPU_X86_AVX2"
        ),
    ],
    repo: RepoOption = None,
    fmt: FormatOption = Format.TABLE,
    column: ColumnOption = None,
) -> None:
    """Show the validator for a key.

    \b
    Example:
      flavorsmith extra-specs show hw:cpu_policy
    """
    registry = load(repo)
    validator = registry.find(key) or next((v for v in registry.validators if v.name == key), None)
    if validator is None:
        hint = registry.suggest(key)
        typer.echo(
            f"error: no validator for {key!r}" + (f" (did you mean {hint!r}?)" if hint else ""),
            err=True,
        )
        raise typer.Exit(ExitCode.FAILURE)
    record = {
        "key": validator.name,
        "description": validator.description,
        "value": validator.value.summary(),
        "parameters": [
            f"{{{p.name}}}: {p.pattern} — {p.description}" for p in validator.parameters
        ],
        "deprecated": validator.deprecated,
        "replacement": validator.replacement,
        "extension": validator.extension,
        "drivers": list(validator.drivers),
        "depends_on": list(validator.depends_on),
        "source": validator.source,
    }
    print_show(record, fmt, column)
