"""Printing diagnostics: one line each, a JSON list, or GitHub Actions' annotations; and the
exit status they imply."""

from __future__ import annotations

import enum
import json
import os
import sys
from collections.abc import Sequence

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.diagnostics import Diagnostic, Severity, has_errors


class DiagnosticFormat(enum.StrEnum):
    """How a command that checks files prints its diagnostics."""

    TEXT = "text"
    JSON = "json"
    GITHUB = "github"  # workflow commands a GitHub Actions job shows on the files' lines


# What each format's help says.
FORMAT_HELP = (
    "text: one line per problem; json: a JSON list; github: GitHub Actions annotations "
    "(::error file=...,line=...::) and the summary line."
)


class AnswerFormat(enum.StrEnum):
    """How a command that answers for given values (not files) prints its answers."""

    TEXT = "text"
    JSON = "json"


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def emit(
    diagnostics: Sequence[Diagnostic],
    fmt: DiagnosticFormat = DiagnosticFormat.TEXT,
    *,
    checked: int | None = None,
    err: bool = False,
    note: str | None = None,
) -> None:
    """Print the diagnostics; in text form followed by the note, if any, and a summary line.

    With JSON the note goes to stderr, so that stdout stays one JSON document."""
    if fmt is DiagnosticFormat.JSON:
        typer.echo(json.dumps([d.as_dict() for d in diagnostics], indent=2), err=err)
        if note:
            typer.echo(note, err=True)
        return
    colour = _colour() and not err and fmt is DiagnosticFormat.TEXT
    for diagnostic in diagnostics:
        line = github(diagnostic) if fmt is DiagnosticFormat.GITHUB else diagnostic.render()
        if colour:
            fg = "red" if diagnostic.severity is Severity.ERROR else "yellow"
            line = typer.style(line, fg=fg)
        typer.echo(line, err=err)
    if note:
        typer.echo(note, err=err)
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = len(diagnostics) - errors
    scope = f"{checked} file{'s' if checked != 1 else ''}: " if checked is not None else ""
    typer.echo(f"{scope}{_count(errors, 'error')}, {_count(warnings, 'warning')}", err=err)


def github(diagnostic: Diagnostic) -> str:
    """The diagnostic as a GitHub Actions workflow command (``::error file=F,line=L,col=C,
    title=FIELD::MESSAGE``), escaped as GitHub's runner reads them."""
    level = "error" if diagnostic.severity is Severity.ERROR else "warning"
    where = ",".join(
        f"{name}={_property(str(value))}"
        for name, value in (
            ("file", diagnostic.path),
            ("line", diagnostic.line),
            ("col", diagnostic.column),
            ("title", diagnostic.field),
        )
    )
    return f"::{level} {where}::{_data(diagnostic.message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def exit_for(diagnostics: Sequence[Diagnostic]) -> None:
    if has_errors(list(diagnostics)):
        raise typer.Exit(ExitCode.FAILURE)
