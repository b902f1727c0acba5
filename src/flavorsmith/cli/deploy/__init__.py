"""``flavorsmith deploy plan``: the deploy steps a provisioning would run."""

from __future__ import annotations

import typer

from flavorsmith.cli.deploy import plan
from flavorsmith.cli.groups import command_group


def group() -> typer.Typer:
    return command_group(
        "Plan a provisioning: its deploy steps and deploy templates.", {"plan": plan.plan}
    )
