"""``flavorsmith sync plan``: what apply would do, and why."""

from __future__ import annotations

import typer

from flavorsmith.cli.options import DatabaseOption, FormatOption, RepoOption
from flavorsmith.cli.output import Format
from flavorsmith.cli.sync.common import (
    CloudOption,
    EndpointOption,
    Only,
    OnlyOption,
    PruneOption,
    print_round,
    run_round,
    subject,
)


def plan(
    ctx: typer.Context,
    only: OnlyOption = Only.FLAVORS,
    prune: PruneOption = False,
    cloud: CloudOption = None,
    endpoint: EndpointOption = None,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Print each action (create, update, access, replace, delete, unmanaged) with its reason.

    --only deploy-templates plans the catalog's deploy templates into an Ironic API."""
    from flavorsmith.cli.options import repository

    found = repository(repo)
    result = run_round(ctx, only, found, cloud, endpoint, database, prune=prune, execute=False)
    print_round(result, fmt, subject(only))
    if result.blocked:
        raise typer.Exit(1)
