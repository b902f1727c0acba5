"""A command group declared as a table: its help and its commands by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import typer


def command_group(help_text: str, commands: Mapping[str, Callable[..., Any]]) -> typer.Typer:
    """A group whose help is ``help_text``, with each command registered under its name in
    the order given; called without a command, it prints its help."""
    app = typer.Typer(help=help_text, no_args_is_help=True)
    for name, command in commands.items():
        app.command(name)(command)
    return app
