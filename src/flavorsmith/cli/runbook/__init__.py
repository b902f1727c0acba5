"""``flavorsmith runbook``: the runbook files' verbs, and ``runbook plan``."""

from __future__ import annotations

import typer

from flavorsmith.catalog.kinds import RUNBOOK
from flavorsmith.cli import definitions
from flavorsmith.cli.runbook import plan

HELP = "Manage runbooks (hardware/runbooks/) and plan which of them a node may run."


def group() -> typer.Typer:
    app = definitions.group(RUNBOOK, HELP)
    app.command("plan")(plan.plan)
    return app
