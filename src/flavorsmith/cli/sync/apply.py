"""``flavorsmith sync apply [PLAN] [--prune] [--yes] [--watch]``."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from flavorsmith import logs
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    LogFormatOption,
    ReportFormatOption,
    repository,
    table_options,
)
from flavorsmith.cli.output import Format, ReportFormat
from flavorsmith.cli.sync.common import (
    AllowEmptyOption,
    ForceOption,
    OnlyOption,
    Places,
    PruneOption,
    StrictOption,
    check_target,
    load_catalog,
    make_target,
    print_plan,
    print_round,
    run_round,
    sync_places,
)
from flavorsmith.diagnostics import has_errors
from flavorsmith.matching.checks import catalog_warnings
from flavorsmith.sync.default_kind import DEFAULT
from flavorsmith.sync.engine import exclusive, in_use_refusal
from flavorsmith.sync.kinds import NAMES, choose
from flavorsmith.sync.saved_plan import BadPlan, drift, parse
from flavorsmith.sync.watch import watch as keep_watching


@table_options(after="output_format")
@sync_places
def apply(
    ctx: typer.Context,
    plan_file: Annotated[
        Path | None,
        typer.Argument(
            metavar="[PLAN]",
            help="A plan saved by `sync plan --out FILE`: apply exactly it, without asking; "
            "refused when the target or the catalog changed since it was made.",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    only: OnlyOption = DEFAULT,
    prune: PruneOption = False,
    allow_empty: AllowEmptyOption = False,
    force: ForceOption = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep running: apply on file changes and on a timer.")
    ] = False,
    interval: Annotated[
        float,
        typer.Option(
            "--interval",
            metavar="SECONDS",
            help="Seconds between timer rounds with --watch.",
            min=1,
        ),
    ] = 60.0,
    places: Places = Places(),
    output_format: ReportFormatOption = ReportFormat.TABLE,
    log_format: LogFormatOption = None,
    strict: StrictOption = False,
) -> None:
    """Apply the plan; exit 1 if any action failed. A failed flavor does not stop the others.

    A plan that deletes or replaces a flavor servers use is refused, with the counts, unless
    --force is given.

    --watch keeps the --only kind in sync. With PLAN, the saved plan decides the kind and
    --prune.

    \b
    Example:
      flavorsmith sync apply plan.json --cloud prod
    """
    fmt = Format(output_format.value)

    guard = None
    if plan_file is not None:
        saved = _saved(ctx, plan_file)
        only, prune, allow_empty, yes = saved.kind, saved.prune, True, True
    kind = choose(only)
    if plan_file is not None:

        def guard(fresh: Any) -> str | None:
            return drift(saved, fresh, kind.noun)

    if watch and not kind.watched:
        raise typer.BadParameter(
            f"{kind.name} is synced only when named, never by the watcher; apply it without "
            "--watch",
            param_hint="'--watch'",
        )
    if watch and force:
        raise typer.BadParameter(
            "a watcher never deletes or replaces a flavor servers use: its rounds log the "
            "refusal; apply once with --force instead",
            param_hint="'--force'",
        )
    if watch and strict:
        raise typer.BadParameter(
            "a watcher applies each change as it comes: check the catalog with "
            "`flavorsmith validate --strict` before it lands instead",
            param_hint="'--strict'",
        )
    places = check_target(ctx, places)
    found = repository(places.repo)
    engine = open_database(places.database, ctx)
    if watch:
        logs.configure(log_format.value if log_format is not None else None)
        with contextlib.suppress(KeyboardInterrupt):
            keep_watching(
                found,
                lambda chosen: make_target(ctx, chosen, places, found),
                engine,
                kinds=(kind,),
                prune=prune,
                allow_empty=allow_empty,
                interval=interval,
            )
        return
    view = load_catalog(found)
    if strict and not has_errors(view.diagnostics):
        warnings = catalog_warnings(view)
        if warnings:
            typer.echo(
                f"error: refused by --strict: the catalog has {len(warnings)} "
                f"warning{'s' * (len(warnings) != 1)} (above); nothing applied",
                err=True,
            )
            raise typer.Exit(ExitCode.FAILURE)
    target = make_target(ctx, kind, places, found)
    label = kind.subject

    def run(*, execute: bool) -> Any:
        return run_round(
            kind,
            view,
            target,
            prune=prune,
            execute=execute,
            allow_empty=allow_empty,
            guard=guard if execute else None,
            force=force,
        )

    if not yes:
        preview = run(execute=False)
        changes = sum(1 for a in preview.actions if a.writes)
        if not preview.blocked and not force:
            preview.in_use, preview.error = in_use_refusal(preview.actions, kind.noun)
        if preview.blocked or changes == 0:
            print_round(preview, fmt, label)
            raise typer.Exit(ExitCode.FAILURE if preview.blocked else ExitCode.OK)
        if not sys.stdin.isatty():
            typer.echo(
                f"error: {changes} changes to apply; pass --yes to apply without a terminal",
                err=True,
            )
            raise typer.Exit(ExitCode.USAGE)
        print_plan(preview, Format.TABLE, label)
        if not typer.confirm(f"Apply {changes} changes?"):
            raise typer.Exit(ExitCode.FAILURE)
    with exclusive(engine, wait=True):
        result = run(execute=True)
    print_round(result, fmt, label)
    if result.blocked or (result.report and result.report.failed):
        raise typer.Exit(ExitCode.FAILURE)


def _saved(ctx: typer.Context, path: Path) -> Any:
    """The saved plan at ``path``; a usage error with --watch, --only or --prune (the plan
    says what it syncs), one line and exit 1 when it cannot be read or is not a plan."""
    given = [
        f"--{name}"
        for name in ("only", "prune", "allow-empty", "watch")
        if (source := ctx.get_parameter_source(name.replace("-", "_"))) is not None
        and source.name == "COMMANDLINE"
    ]
    if given:
        raise typer.BadParameter(
            f"a saved plan says what it syncs and is applied once: not with {', '.join(given)}",
            param_hint="'PLAN'",
        )
    try:
        saved = parse(path.read_text(), str(path))
    except OSError as exc:
        typer.echo(f"error: cannot read the plan {path}: {exc.strerror}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    except (BadPlan, UnicodeDecodeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    if saved.kind not in NAMES:
        typer.echo(f"error: {path}: plans {saved.kind!r}, not one of {', '.join(NAMES)}", err=True)
        raise typer.Exit(ExitCode.FAILURE)
    return saved
