"""``flavorsmith sync plan``: what apply would do, and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import (
    ReportFormatOption,
    repository,
    table_options,
)
from flavorsmith.cli.output import Format, ReportFormat
from flavorsmith.cli.sync.common import (
    AllowEmptyOption,
    OnlyOption,
    Places,
    PruneOption,
    check_target,
    load_catalog,
    make_target,
    print_plan,
    run_round,
    sync_places,
)
from flavorsmith.sync.default_kind import DEFAULT
from flavorsmith.sync.kinds import choose


@table_options(after="output_format")
@sync_places
def plan(
    ctx: typer.Context,
    only: OnlyOption = DEFAULT,
    prune: PruneOption = False,
    allow_empty: AllowEmptyOption = False,
    places: Places = Places(),
    output_format: ReportFormatOption = ReportFormat.TABLE,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode",
            help="Exit 0 when there is nothing to change, 2 when there are changes, 1 on an "
            "error (a refused catalog or prune, an unreadable target, a conflict).",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Also save the plan (its JSON format) to FILE, for `sync apply FILE`.",
            metavar="FILE",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Plan the sync: print each action (create, update, access, replace, delete, unmanaged)
    with its reason.

    --only deploy-templates plans the catalog's deploy templates into an Ironic API,
    --only runbooks its runbooks with their traits (Ironic 39's API 1.112);
    --only inspection-rules the trait rules Ironic can run itself, as its inspection rules
    (with --cloud or --endpoint), and lists the trait rules that need the hook.

    --out FILE saves the plan; `sync apply FILE` applies exactly it, or refuses when the
    target or the catalog changed since.

    \b
    Example:
      flavorsmith sync plan --cloud prod --out plan.json
    """
    fmt = Format(output_format.value)

    kind = choose(only)
    places = check_target(ctx, places)
    found = repository(places.repo)
    view = load_catalog(found)
    result = run_round(
        kind,
        view,
        make_target(ctx, kind, places, found),
        prune=prune,
        execute=False,
        allow_empty=allow_empty,
    )
    print_plan(result, fmt, kind.subject)
    if out is not None and not result.blocked:
        try:
            out.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
        except OSError as exc:
            typer.echo(f"error: cannot write the plan to {out}: {exc.strerror}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
    if result.blocked:
        raise typer.Exit(ExitCode.FAILURE)
    if detailed_exitcode:
        if any(a.kind == "conflict" for a in result.actions):
            raise typer.Exit(ExitCode.FAILURE)
        raise typer.Exit(ExitCode.CHANGES if result.changes else ExitCode.OK)
