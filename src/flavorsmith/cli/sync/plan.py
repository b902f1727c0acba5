"""``flavorsmith sync plan``: what apply would do, and why."""

from __future__ import annotations

import typer

from flavorsmith.cli.options import DatabaseOption, FormatOption, RepoOption
from flavorsmith.cli.output import Format
from flavorsmith.cli.sync.common import (
    AllowEmptyOption,
    CloudOption,
    EndpointOption,
    OnlyOption,
    PruneOption,
    check_target,
    make_target,
    print_plan,
    run_round,
)
from flavorsmith.sync.kinds import DEFAULT, choose


def plan(
    ctx: typer.Context,
    only: OnlyOption = DEFAULT,
    prune: PruneOption = False,
    allow_empty: AllowEmptyOption = False,
    cloud: CloudOption = None,
    endpoint: EndpointOption = None,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Print each action (create, update, access, replace, delete, unmanaged) with its reason.

    --only deploy-templates plans the catalog's deploy templates into an Ironic API;
    --only inspection-rules the trait rules Ironic can run itself, as its inspection rules
    (with --cloud or --endpoint), and lists the trait rules that need the hook."""
    from flavorsmith.cli.options import repository

    kind = choose(only)
    cloud = check_target(ctx, cloud, endpoint)
    found = repository(repo)
    result = run_round(
        kind,
        found,
        make_target(ctx, kind, cloud, endpoint, database, found),
        prune=prune,
        execute=False,
        allow_empty=allow_empty,
    )
    print_plan(result, fmt, kind.subject)
    if result.blocked:
        raise typer.Exit(1)
