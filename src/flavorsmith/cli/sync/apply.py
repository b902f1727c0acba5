"""``flavorsmith sync apply [--prune] [--yes] [--watch]``."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated, Any

import typer

from flavorsmith.cli.options import DatabaseOption, FormatOption, RepoOption
from flavorsmith.cli.output import Format
from flavorsmith.cli.sync.common import (
    AllowEmptyOption,
    CloudOption,
    EndpointOption,
    Only,
    OnlyOption,
    PruneOption,
    check_target,
    make_target,
    make_template_target,
    print_round,
    run_round,
    subject,
)


def apply(
    ctx: typer.Context,
    only: OnlyOption = Only.FLAVORS,
    prune: PruneOption = False,
    allow_empty: AllowEmptyOption = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep running: apply on file changes and on a timer.")
    ] = False,
    interval: Annotated[
        float, typer.Option("--interval", help="Seconds between timer rounds with --watch.", min=1)
    ] = 60.0,
    cloud: CloudOption = None,
    endpoint: EndpointOption = None,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Apply the plan; exit 1 if any action failed. A failed flavor does not stop the others."""
    import logging

    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.options import repository
    from flavorsmith.nova.sync import exclusive
    from flavorsmith.nova.watch import watch as keep_watching

    if watch and only is Only.DEPLOY_TEMPLATES:
        typer.echo("error: --watch keeps flavors in sync; use it with --only flavors", err=True)
        raise typer.Exit(2)
    cloud = check_target(ctx, cloud, endpoint)
    found = repository(repo)
    engine = open_database(database, ctx)
    if watch:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        with contextlib.suppress(KeyboardInterrupt):
            keep_watching(
                found,
                lambda: make_target(ctx, cloud, endpoint, database),
                engine,
                prune=prune,
                allow_empty=allow_empty,
                interval=interval,
            )
        return
    make = make_template_target if only is Only.DEPLOY_TEMPLATES else make_target
    target = make(ctx, cloud, endpoint, database)
    label = subject(only)

    def run(*, execute: bool) -> Any:
        return run_round(
            ctx,
            only,
            found,
            cloud,
            endpoint,
            database,
            prune=prune,
            execute=execute,
            allow_empty=allow_empty,
            target=target,
        )

    if not yes:
        preview = run(execute=False)
        changes = sum(1 for a in preview.actions if a.writes)
        if preview.blocked or changes == 0:
            print_round(preview, fmt, label)
            raise typer.Exit(1 if preview.blocked else 0)
        if not sys.stdin.isatty():
            typer.echo(
                f"error: {changes} changes to apply; pass --yes to apply without a terminal",
                err=True,
            )
            raise typer.Exit(2)
        print_round(preview, Format.TABLE, label)
        if not typer.confirm(f"Apply {changes} changes?"):
            raise typer.Exit(1)
    with exclusive(engine, wait=True):
        result = run(execute=True)
    print_round(result, fmt, label)
    if result.blocked or (result.report and result.report.failed):
        raise typer.Exit(1)
