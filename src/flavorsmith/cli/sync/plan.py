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
    check_only,
    make_target,
    print_round,
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
    """Print each action (create, update, access, replace, delete, unmanaged) with its reason."""
    from flavorsmith.cli.options import repository
    from flavorsmith.nova.sync import run

    check_only(only)
    found = repository(repo)
    result = run(found, make_target(ctx, cloud, endpoint, database), prune=prune, execute=False)
    print_round(result, fmt)
    if result.blocked:
        raise typer.Exit(1)
