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
    bool, typer.Option("--prune", help="Delete managed flavors gone from the catalog.")
]
CloudOption = Annotated[
    str | None,
    typer.Option(
        "--cloud",
        envvar="OS_CLOUD",
        help="clouds.yaml cloud of the target Nova (openstacksdk).",
        show_default=False,
    ),
]
EndpointOption = Annotated[
    str | None,
    typer.Option(
        "--endpoint",
        help="A compute endpoint without auth, e.g. http://127.0.0.1:8780/compute/v2.1.",
        show_default=False,
    ),
]


def check_only(only: Only) -> None:
    if only is Only.DEPLOY_TEMPLATES:
        typer.echo(
            "error: syncing deploy templates is not available yet; use --only flavors", err=True
        )
        raise typer.Exit(2)


def make_target(
    ctx: typer.Context, cloud: str | None, endpoint: str | None, database: str | None
) -> Any:
    """--cloud, else --endpoint, else the service's own flavors (its database)."""
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.extra_specs.builtin import build
    from flavorsmith.nova.targets import DatabaseTarget, SdkTarget

    if cloud or endpoint:
        import openstack

        registry = build()

        def nova_refuses(key: str, value: str) -> bool:
            return not registry.verdict(key, value).allowed("nova")

        try:
            if cloud:
                connection = openstack.connect(cloud=cloud)
            else:
                connection = openstack.connect(
                    auth_type="none",
                    compute_endpoint_override=endpoint,
                    load_yaml_config=False,
                    load_envvars=False,
                )
        except Exception as exc:
            typer.echo(f"error: cannot configure the target: {exc}", err=True)
            raise typer.Exit(1) from None
        return SdkTarget(connection, nova_refuses)
    return DatabaseTarget(open_database(database, ctx))


def print_round(result: Any, fmt: Format) -> None:
    import json

    from flavorsmith.cli.report import emit

    if fmt is Format.JSON:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    if result.diagnostics and result.blocked:
        typer.echo("the catalog has errors; nothing is planned:", err=True)
        emit(result.diagnostics, err=True)
        return
    if result.error:
        typer.echo(f"error: {result.error}", err=True)
        return
    outcomes = {id(o.action): o for o in result.report.outcomes} if result.report else {}
    rows = []
    for action in result.actions:
        row = {"action": action.kind, "flavor": action.flavor, "reason": action.reason}
        outcome = outcomes.get(id(action))
        if outcome is not None:
            row["outcome"] = (
                "done" if outcome.ok else ("failed: " + outcome.error if outcome.error else "-")
            )
        rows.append(row)
    columns = ["action", "flavor", "reason"] + (["outcome"] if result.report else [])
    typer.echo(render_list(rows, columns, fmt), nl=False)
    if result.report:
        report = result.report
        typer.echo(
            f"{report.writes} changes, {len(report.failed)} failed, {report.calls} API calls"
        )
