"""``flavorsmith deploy plan``: the deploy steps a provisioning would run."""

from __future__ import annotations

import typer

from flavorsmith.cli.deploy import plan
from flavorsmith.cli.groups import command_group


def group() -> typer.Typer:
    return command_group("Deploy steps and templates for provisioning.", {"plan": plan.plan})
