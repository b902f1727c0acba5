"""Options and the target shared by sync plan and sync apply."""

from __future__ import annotations

import enum
from typing import Annotated, Any

import typer

from flavorsmith.cli.output import Format, render_list


class Only(enum.StrEnum):
    FLAVORS = "flavors"
    DEPLOY_TEMPLATES = "deploy-templates"


OnlyOption = Annotated[Only, typer.Option("--only", help="What to sync.")]
PruneOption = Annotated[
    bool,
    typer.Option(
        "--prune", help="Delete managed flavors (or deploy templates) gone from the catalog."
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
        envvar="OS_CLOUD",
        help="clouds.yaml cloud of the target Nova or Ironic (openstacksdk); not with "
        "--endpoint (which overrides $OS_CLOUD).",
        show_default=False,
    ),
]
EndpointOption = Annotated[
    str | None,
    typer.Option(
        "--endpoint",
        help="An endpoint without auth: compute for flavors (e.g. "
        "http://127.0.0.1:8780/compute/v2.1), baremetal for deploy templates (e.g. "
        "http://127.0.0.1:8780/baremetal).",
        show_default=False,
    ),
]


def check_target(ctx: typer.Context, cloud: str | None, endpoint: str | None) -> str | None:
    """The cloud to use, after refusing --cloud with --endpoint and an endpoint that is not an
    http(s) URL (usage errors). $OS_CLOUD gives way to an explicit --endpoint."""
    from urllib.parse import urlsplit

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
                return None
            raise typer.BadParameter(
                "--cloud and --endpoint name two targets: give one of them",
                param_hint="'--cloud' / '--endpoint'",
            )
    return cloud


def run_round(
    ctx: typer.Context,
    only: Only,
    repository: Any,
    cloud: str | None,
    endpoint: str | None,
    database: str | None,
    *,
    prune: bool,
    execute: bool,
    allow_empty: bool = False,
    target: Any = None,
) -> Any:
    """One sync round of ``only`` against --cloud, --endpoint or the service itself."""
    if only is Only.DEPLOY_TEMPLATES:
        from flavorsmith.deploy.sync import run as run_templates

        chosen = target or make_template_target(ctx, cloud, endpoint, database)
        return run_templates(
            repository, chosen, prune=prune, execute=execute, allow_empty=allow_empty
        )
    from flavorsmith.nova.sync import run as run_flavors

    chosen = target or make_target(ctx, cloud, endpoint, database)
    return run_flavors(repository, chosen, prune=prune, execute=execute, allow_empty=allow_empty)


def subject(only: Only) -> str:
    return "template" if only is Only.DEPLOY_TEMPLATES else "flavor"


def _connect(cloud: str | None, **overrides: str) -> Any:
    import openstack

    try:
        if cloud:
            return openstack.connect(cloud=cloud)
        options: dict[str, Any] = {
            "auth_type": "none",
            "load_yaml_config": False,
            "load_envvars": False,
            **overrides,
        }
        return openstack.connect(**options)
    except Exception as exc:
        typer.echo(f"error: cannot configure the target: {exc}", err=True)
        raise typer.Exit(1) from None


def make_template_target(
    ctx: typer.Context, cloud: str | None, endpoint: str | None, database: str | None
) -> Any:
    """--cloud, else --endpoint (a baremetal endpoint), else the service's own templates."""
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.deploy.targets import DatabaseTemplates, SdkTemplates

    if cloud or endpoint:
        overrides = {} if cloud else {"baremetal_endpoint_override": str(endpoint)}
        return SdkTemplates(_connect(cloud, **overrides))
    return DatabaseTemplates(open_database(database, ctx))


def make_target(
    ctx: typer.Context, cloud: str | None, endpoint: str | None, database: str | None
) -> Any:
    """--cloud, else --endpoint, else the service's own flavors (its database)."""
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.extra_specs.builtin import build
    from flavorsmith.nova.targets import DatabaseTarget, SdkTarget

    if cloud or endpoint:
        registry = build()

        def nova_refuses(key: str, value: str) -> bool:
            return not registry.verdict(key, value).allowed("nova")

        overrides = {} if cloud else {"compute_endpoint_override": str(endpoint)}
        return SdkTarget(_connect(cloud, **overrides), nova_refuses)
    return DatabaseTarget(open_database(database, ctx))


def print_round(result: Any, fmt: Format, subject: str = "flavor") -> None:
    import json

    from flavorsmith.cli.report import emit

    if fmt is Format.JSON:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    if result.diagnostics and result.blocked:
        typer.echo("the catalog has errors; nothing is planned:", err=True)
        emit(result.diagnostics, err=True)
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
