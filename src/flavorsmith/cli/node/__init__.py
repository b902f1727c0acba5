"""``flavorsmith node``: the node inventory in the service's database."""

from __future__ import annotations

import typer

from flavorsmith.cli.node import importing, listing, trait


def group() -> typer.Typer:
    app = typer.Typer(
        help="Import and list nodes, and change their traits, in the service's database.",
        no_args_is_help=True,
    )
    app.command("import")(importing.import_nodes)
    app.command("list")(listing.list_nodes)
    app.add_typer(trait.group(), name="trait")
    return app
