"""``flavorsmith sync plan|apply``: push the catalog into a Nova or an Ironic, one kind of the
sync registry at a time."""

from __future__ import annotations

import typer

from flavorsmith.cli.sync import apply, plan


def group() -> typer.Typer:
    app = typer.Typer(help="Plan and apply the catalog into a real service.", no_args_is_help=True)
    app.command("plan")(plan.plan)
    app.command("apply")(apply.apply)
    return app
