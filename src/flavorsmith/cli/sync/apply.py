"""``flavorsmith sync apply [--prune] [--yes] [--watch]``."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated, Any

import typer

from flavorsmith.cli.options import DatabaseOption, FormatOption, LogFormatOption, RepoOption
from flavorsmith.cli.output import Format
from flavorsmith.cli.sync.common import (
    AllowEmptyOption,
    CloudOption,
    EndpointOption,
    OnlyOption,
    PruneOption,
    check_target,
    make_target,
    print_round,
    run_round,
)
from flavorsmith.sync.kinds import DEFAULT, choose


def apply(
    ctx: typer.Context,
    only: OnlyOption = DEFAULT,
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
    log_format: LogFormatOption = None,
) -> None:
    """Apply the plan; exit 1 if any action failed. A failed flavor does not stop the others.

    --watch keeps the --only kind in sync."""
    from flavorsmith import logs
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.options import repository
    from flavorsmith.sync.engine import exclusive
    from flavorsmith.sync.watch import watch as keep_watching

    kind = choose(only)
    if watch and not kind.watched:
        raise typer.BadParameter(
            f"{kind.name} is synced only when named, never by the watcher; apply it without "
            "--watch",
            param_hint="'--watch'",
        )
    cloud = check_target(ctx, cloud, endpoint)
    found = repository(repo)
    engine = open_database(database, ctx)
    if watch:
        logs.configure(log_format.value if log_format is not None else None)
        with contextlib.suppress(KeyboardInterrupt):
            keep_watching(
                found,
                lambda chosen: make_target(ctx, chosen, cloud, endpoint, database, found),
                engine,
                kinds=(kind,),
                prune=prune,
                allow_empty=allow_empty,
                interval=interval,
            )
        return
    target = make_target(ctx, kind, cloud, endpoint, database, found)
    label = kind.subject

    def run(*, execute: bool) -> Any:
        return run_round(
            kind,
            found,
            target,
            prune=prune,
            execute=execute,
            allow_empty=allow_empty,
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
