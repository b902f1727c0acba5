"""``flavorsmith node import FILE``: create or update nodes from a YAML/JSON inventory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from flavorsmith.cli.options import DatabaseOption


def import_nodes(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="A YAML or JSON list of nodes, or what Ironic prints: GET /v1/nodes/detail, "
            "openstack baremetal node list --long / node show -f json.",
            exists=True,
            dir_okay=False,
        ),
    ],
    database: DatabaseOption = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every node by outcome.")
    ] = False,
) -> None:
    """Import nodes (matched by UUID, else by name): created, updated or unchanged; nothing
    on any error. Secrets are never stored (driver_info is not read from Ironic output).

    JSON parses fastest; YAML is read by libyaml, or with positions when a file needs them.
    """
    import gc
    import logging

    from flavorsmith import jsonsafe
    from flavorsmith.catalog import plain_yaml
    from flavorsmith.catalog.document import parse
    from flavorsmith.catalog.load import display_path
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.report import emit
    from flavorsmith.db.engine import writer
    from flavorsmith.diagnostics import Diagnostic
    from flavorsmith.errors import FlavorsmithError, Invalid
    from flavorsmith.inventory import importer
    from flavorsmith.progress import progress

    logging.getLogger("alembic").setLevel(logging.WARNING)
    # Tens of thousands of entries make no reference cycles, but each allocation burst sets
    # off a collection over all of them: a third of the checking time.
    if gc.isenabled():
        gc.disable()
        ctx.call_on_close(gc.enable)
    shown = display_path(file)
    data: Any = None
    diagnostics: list[Diagnostic] = []
    raw = b""
    if file.suffix.lower() == ".json":
        raw = file.read_bytes()
        try:
            data = jsonsafe.loads(raw, what=shown)
        except jsonsafe.Malformed:
            data = None  # the YAML parser below names the position of the problem
        except Invalid as exc:
            typer.echo(f"error: {exc.message}", err=True)
            typer.echo("error: nothing was imported", err=True)
            raise typer.Exit(1) from None
    if data is None:
        # Streamed from the file; None when only the positioned parser can tell.
        with progress("reading (KiB)") as bar:
            data = plain_yaml.load_file(file, lambda done, size: bar.at(done >> 10, size >> 10))
    if data is None:
        raw = raw or file.read_bytes()
        doc, diagnostics = parse(raw, shown, max_bytes=None)
        data = doc.data if doc is not None else None
    parsed = importer.parse(data) if not diagnostics else importer.Parsed()
    if parsed.problems:
        raw = raw or file.read_bytes()
        doc, diagnostics = parse(raw, shown, max_bytes=None)
        if doc is not None:
            diagnostics = importer.diagnostics(doc, parsed.problems)
    if diagnostics:
        emit(diagnostics, err=True)
        typer.echo("error: nothing was imported", err=True)
        raise typer.Exit(1)
    for note in parsed.notes:
        typer.echo(f"note: {note}", err=True)
    engine = open_database(database, ctx)
    try:
        with writer(engine).begin() as connection, progress("importing") as bar:
            report = importer.store_nodes(connection, parsed.specs, bar.at)
    except FlavorsmithError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        typer.echo("error: nothing was imported", err=True)
        raise typer.Exit(1) from None
    for outcome in ("created", "updated", "unchanged"):
        names = getattr(report, outcome)
        typer.echo(f"{outcome}: {len(names)}")
        if verbose and names:
            typer.echo("".join(f"  {name}\n" for name in names), nl=False)
