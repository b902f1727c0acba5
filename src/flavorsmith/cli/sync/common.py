"""Options and the target shared by sync plan and sync apply."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer
import typer.core

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import DatabaseOption, RepoOption, bundled
from flavorsmith.cli.output import Format, render_list
from flavorsmith.cli.report import emit
from flavorsmith.cli.sync.diff import render, use_colour
from flavorsmith.clients import cloud as clouds
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import TargetError
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.factory import base_registry, completed
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.matching.checks import catalog_warnings
from flavorsmith.progress import progress
from flavorsmith.sync import store_target as store
from flavorsmith.sync.engine import run, sdk_target
from flavorsmith.sync.kinds import NAMES

ONLY_HELP = "What to sync: one of {}."


def _known_kind(value: str) -> str:
    """--only names a kind of the sync registry (a usage error otherwise)."""
    if value not in NAMES:
        raise typer.BadParameter(f"{value!r} is not a sync kind; choose one of {', '.join(NAMES)}")
    return value


class KindCommand(typer.core.TyperCommand):
    """A sync command: its --only help names the kinds of the sync registry, read when the
    help is shown (the registry loads the database layer and the OpenStack SDK, which the
    other commands' start-up must not pay for)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            if param.name == "only" and isinstance(param, typer.core.TyperOption):
                param.help = ONLY_HELP.format(", ".join(NAMES))
        super().format_help(ctx, formatter)


OnlyOption = Annotated[
    str,
    typer.Option("--only", metavar="KIND", callback=_known_kind, help=ONLY_HELP.format("...")),
]
PruneOption = Annotated[
    bool,
    typer.Option(
        "--prune",
        help="Delete managed flavors (or deploy templates, runbooks) gone from the catalog.",
    ),
]
ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Delete or replace flavors even when servers use them; refused otherwise "
        "(the plan counts them).",
    ),
]
AllowEmptyOption = Annotated[
    bool,
    typer.Option(
        "--allow-empty",
        help="Let --prune delete every managed flavor (or deploy template); refused otherwise, "
        "as a wrong --repo or a missing file usually causes it.",
    ),
]
CloudOption = Annotated[
    str | None,
    typer.Option(
        "--cloud",
        metavar="NAME",
        envvar="OS_CLOUD",
        help="clouds.yaml cloud of the target Nova, Ironic, Octavia or Neutron (openstacksdk); "
        "not with --endpoint (which overrides $OS_CLOUD).",
        show_default=False,
    ),
]
EndpointOption = Annotated[
    str | None,
    typer.Option(
        "--endpoint",
        metavar="URL",
        help="An endpoint without auth: compute for flavors (e.g. "
        "http://127.0.0.1:8780/compute/v2.1), baremetal for deploy templates and runbooks (e.g. "
        "http://127.0.0.1:8780/baremetal), an Octavia for load-balancer flavors (e.g. "
        "http://127.0.0.1:9876), a Neutron for network flavors (e.g. http://127.0.0.1:9696).",
        show_default=False,
    ),
]


@dataclasses.dataclass(frozen=True)
class Places:
    """Where a sync goes: from the catalog at ``repo``, to --cloud, else --endpoint, else the
    service itself (its ``database``)."""

    cloud: str | None = None
    endpoint: str | None = None
    repo: str | None = None
    database: str | None = None


# Gives sync plan and sync apply --cloud, --endpoint, --repo and --database in place of their
# parameter ``places``, which receives them as one ``Places``.
sync_places = bundled(
    "places",
    {
        "cloud": CloudOption,
        "endpoint": EndpointOption,
        "repo": RepoOption,
        "database": DatabaseOption,
    },
    Places,
)


def check_target(ctx: typer.Context, places: Places) -> Places:
    """The places to use, after refusing --cloud with --endpoint and an endpoint that is not an
    http(s) URL (usage errors). $OS_CLOUD gives way to an explicit --endpoint."""
    cloud, endpoint = places.cloud, places.endpoint
    if endpoint is not None:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise typer.BadParameter(
                f"{endpoint!r} is not an http:// or https:// URL "
                "(e.g. http://127.0.0.1:8780/compute/v2.1)",
                param_hint="'--endpoint'",
            )
        if cloud:
            source = ctx.get_parameter_source("cloud")
            if source is not None and source.name == "ENVIRONMENT":
                return dataclasses.replace(places, cloud=None)
            raise typer.BadParameter(
                "--cloud and --endpoint name two targets: give one of them",
                param_hint="'--cloud' / '--endpoint'",
            )
    return places


StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Refuse to apply a catalog with warnings (flavorsmith validate shows them).",
    ),
]


# The most warnings printed above a plan; `validate` lists them all.
MAX_WARNINGS_SHOWN = 20


def load_catalog(repository: Any) -> Any:
    """The catalog ``repository`` holds, read once for the whole command; its warnings (those
    ``validate`` reports without nodes) are printed on stderr, above the plan, when it has no
    errors (a catalog with errors is refused with all its diagnostics): the first
    ``MAX_WARNINGS_SHOWN`` of them, and how many there are."""
    view = repository.load()
    if not has_errors(view.diagnostics):
        warnings = catalog_warnings(view)
        for warning in warnings[:MAX_WARNINGS_SHOWN]:
            typer.echo(warning.render(), err=True)
        more = len(warnings) - MAX_WARNINGS_SHOWN
        if more > 0:
            typer.echo(f"... and {more} more (flavorsmith validate lists them all)", err=True)
        if warnings:
            s = "" if len(warnings) == 1 else "s"
            typer.echo(f"0 errors, {len(warnings)} warning{s}", err=True)
    return view


def run_round(
    kind: Any,
    repository: Any,
    target: Any,
    *,
    prune: bool,
    execute: bool,
    allow_empty: bool = False,
    guard: Callable[[Any], str | None] | None = None,
    force: bool = False,
) -> Any:
    """One sync round of ``kind`` against ``target`` (``guard`` may refuse to apply it;
    ``force`` applies it even when it deletes or replaces objects in use); an applied round
    shows a progress bar on a terminal."""
    with progress("applying") as bar:
        return run(
            kind,
            repository,
            target,
            prune=prune,
            execute=execute,
            allow_empty=allow_empty,
            guard=guard,
            progress=bar.at if execute else None,
            force=force,
        )


def make_target(
    ctx: typer.Context,
    kind: Any,
    places: Places,
    repository: Any,
) -> Any:
    """The target of ``kind``: --cloud, else --endpoint (of the kind's service type, e.g.
    compute for flavors, baremetal for deploy templates), else the service itself (its
    database). Extra specs are checked on the one validation path: in Nova's mode against
    stock Nova's validators for a real Nova (the keys it refuses, Ironic's capabilities, go at
    a microversion that does not validate); in permissive mode against the catalog's completed
    registry for the service's own flavors (a bad value of a known key is refused, as its
    compute API refuses it; Ironic's capabilities are kept, as a real Nova keeps them)."""
    if places.cloud or places.endpoint:
        try:
            connection = clouds.connect(places.cloud, kind.service, places.endpoint)
        except TargetError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
        return sdk_target(kind, connection, spec_check=refusal(build(), "nova"))
    checks: list[Callable[[str, str], str | None]] = []

    def check(key: str, value: str) -> str | None:
        # Built on the first extra spec written: a plan, or a kind without extra specs, never
        # loads the catalog a second time or scans the plugins for it.
        if not checks:
            registry, _ = completed(base_registry(), repository.load().catalog.extra_specs)
            checks.append(refusal(registry, "permissive"))
        return checks[0](key, value)

    if kind.store_target is None:
        typer.echo(f"error: {store.no_store_target(kind)} (give --cloud or --endpoint)", err=True)
        raise typer.Exit(ExitCode.FAILURE)
    return store.target(kind, open_database(places.database, ctx), spec_check=check)


def print_plan(result: Any, fmt: Format, subject: str = "flavor") -> None:
    """A plan: as a diff in the table format (coloured on a terminal, unless NO_COLOR), as
    ``print_round`` prints it otherwise."""
    if fmt is not Format.TABLE or result.blocked:
        print_round(result, fmt, subject)
        return
    _print_diff(result, subject)


def _print_diff(result: Any, subject: str) -> None:
    """The plan of ``result`` as a diff, coloured on a terminal unless NO_COLOR."""
    colour = use_colour(sys.stdout.isatty(), dict(os.environ))
    typer.echo(render(result.actions, subject, colour=colour), nl=False, color=colour)


def print_round(result: Any, fmt: Format, subject: str = "flavor") -> None:
    if fmt is Format.JSON:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    if has_errors(result.diagnostics):
        typer.echo("the catalog has errors; nothing is planned:", err=True)
        emit(result.diagnostics, err=True)
        return
    if result.in_use:  # refused: the plan, with its server counts, then why
        _print_diff(result, subject)
        typer.echo(f"error: {result.error}", err=True)
        return
    if result.error and not result.refused:
        typer.echo(f"error: {result.error}", err=True)
        return
    outcomes = {id(o.action): o for o in result.report.outcomes} if result.report else {}
    rows = []
    for action in result.actions:
        row = {"action": action.kind, subject: action.subject, "reason": action.reason}
        outcome = outcomes.get(id(action))
        if outcome is not None:
            row["outcome"] = (
                "done" if outcome.ok else ("failed: " + outcome.error if outcome.error else "-")
            )
        rows.append(row)
    columns = ["action", subject, "reason"] + (["outcome"] if result.report else [])
    typer.echo(render_list(rows, columns, fmt), nl=False)
    if result.report:
        report = result.report
        typer.echo(
            f"{report.writes} changes, {len(report.failed)} failed, {report.calls} API calls"
        )
    if result.refused:
        typer.echo(f"error: {result.error}", err=True)
