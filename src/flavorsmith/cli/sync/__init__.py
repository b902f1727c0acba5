"""``flavorsmith sync plan|apply``: push the catalog into a Nova or an Ironic, one kind of the
sync registry at a time."""

from __future__ import annotations

import typer

from flavorsmith.cli.sync import apply, plan
from flavorsmith.cli.sync.common import KindCommand


def group() -> typer.Typer:
    app = typer.Typer(help="Plan and apply the catalog into a real service.", no_args_is_help=True)
    app.command("plan", cls=KindCommand)(plan.plan)
    app.command("apply", cls=KindCommand)(apply.apply)
    return app
