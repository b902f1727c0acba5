"""The definition verbs (validate, add, list, show, delete), shared by the catalog kinds'
groups."""

from __future__ import annotations

import typer

from flavorsmith.catalog.kinds import Kind
from flavorsmith.cli.definitions import add, delete, list_, show, validate


def group(kind: Kind, help_text: str) -> typer.Typer:
    """A command group for one kind of definition."""
    app = typer.Typer(help=help_text, no_args_is_help=True)
    validate.register(app, kind)
    add.register(app, kind)
    list_.register(app, kind)
    show.register(app, kind)
    delete.register(app, kind)
    return app
