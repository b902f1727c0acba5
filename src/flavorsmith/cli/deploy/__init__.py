"""``flavorsmith deploy plan``: the deploy steps a provisioning would run."""

from __future__ import annotations

import typer

from flavorsmith.cli.deploy import plan


def group() -> typer.Typer:
    app = typer.Typer(help="Deploy steps and templates for provisioning.", no_args_is_help=True)
    app.command("plan")(plan.plan)
    return app
