"""``flavorsmith verify [--cloud NAME]``: drift between the catalog, Ironic, Placement and
Nova's flavors; exit 1 when anything drifted."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.ironic_source import fail, reading
from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    ColumnOption,
    DatabaseOption,
    ListFormatOption,
    RepoOption,
    SortColumnOption,
    repository,
    table_options,
)
from flavorsmith.cli.output import (
    ListFormat,
    check_columns,
    print_document,
    render_list,
    select,
    sort_rows,
)
from flavorsmith.cli.report import emit
from flavorsmith.clients import cloud as clouds
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.clients.placement import PlacementReader
from flavorsmith.db.engine import consistent
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import TargetError
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.matching.index import Index
from flavorsmith.store import nodes as node_store
from flavorsmith.sync import verification
from flavorsmith.sync.kinds import FLAVORS

COLUMNS = ["kind", "subject", "detail", "fix"]

VerifyCloudOption = Annotated[
    str | None,
    typer.Option(
        "--cloud",
        metavar="NAME",
        help="Check the Ironic, Placement and Nova of this clouds.yaml cloud (openstacksdk: "
        "Keystone or auth_type none) instead of the service's own data.",
        show_default=False,
    ),
]


@table_options()
def verify(
    ctx: typer.Context,
    cloud: VerifyCloudOption = None,
    repo: RepoOption = None,
    database: DatabaseOption = None,
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """Report the drift between the catalog, Ironic, Placement and Nova's flavors, each finding
    with the command that fixes it. Exit 1 when anything drifted, 0 when all is aligned. -c and
    --sort-column apply to the findings (in JSON and YAML, to the document's findings).

    \b
    Example:
      flavorsmith verify --cloud lab
    """
    check_columns(column or [], COLUMNS, "'-c' / '--column'")
    check_columns(sort_column or [], COLUMNS, "'--sort-column'")
    view = repository(repo).load()
    if has_errors(view.diagnostics):
        typer.echo("the catalog has errors; fix them first:", err=True)
        emit(view.diagnostics, err=True)
        raise typer.Exit(ExitCode.FAILURE)
    result = _cloud(cloud, view.catalog) if cloud else _own(ctx, database, view.catalog)
    body = result.as_dict()
    wanted = column or COLUMNS
    body["findings"] = sort_rows(body["findings"], sort_column or [], COLUMNS)
    if column:
        body["findings"] = select(body["findings"], column, COLUMNS)
    if not print_document(body, fmt):
        if body["findings"] or fmt is ListFormat.CSV:
            typer.echo(render_list(body["findings"], wanted, fmt), nl=False)
        if fmt is ListFormat.TABLE:
            _summary(body)
    if not result.aligned:
        raise typer.Exit(ExitCode.FAILURE)


def _summary(body: dict[str, Any]) -> None:
    checked = body["checked"]
    counts = ", ".join(f"{n} {kind}" for kind, n in body["counts"].items())
    found = len(body["findings"])
    verdict = f"{found} finding{'' if found == 1 else 's'} ({counts})" if found else "aligned"
    typer.echo(
        f"{verdict}: {checked['flavors']} catalog flavors, {checked['nodes']} nodes, "
        f"{checked['providers']} providers, {checked['nova_flavors']} Nova flavors"
    )
    for view, source in body["sources"].items():
        typer.echo(f"  {view}: {source}")
    for note in body["notes"]:
        typer.echo(f"  note: {note}")


def _own(ctx: typer.Context, database: str | None, catalog: Any) -> Any:
    engine = open_database(database, ctx)
    with consistent(engine).begin() as connection:
        snapshot = node_store.snapshot(connection)
    return verification.own(engine, catalog, Index.build(snapshot))


def _cloud(cloud: str, catalog: Any) -> Any:
    try:
        connection = clouds.connect(cloud, "compute")
    except TargetError as exc:
        fail(
            f"cannot use cloud {cloud!r}: {str(exc).removeprefix('cannot configure the target: ')}"
        )
    return reading(
        lambda: verification.cloud(
            cloud,
            catalog,
            IronicNodes(connection),
            FLAVORS.sdk_target(connection, refusal(build(), "nova")),
            PlacementReader(connection),
        )
    )
