"""``flavorsmith node import FILE``: create or update nodes from a YAML/JSON inventory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import DatabaseOption

if TYPE_CHECKING:
    from flavorsmith.db.engine import Engine
    from flavorsmith.nodes import importer


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

    \b
    Example:
      flavorsmith node import nodes.yaml
    """
    import gc
    import logging

    from flavorsmith import jsonsafe
    from flavorsmith.catalog import plain_yaml
    from flavorsmith.catalog.document import parse
    from flavorsmith.catalog.load import display_path
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.cli.report import emit
    from flavorsmith.diagnostics import Diagnostic
    from flavorsmith.errors import FlavorsmithError, Invalid
    from flavorsmith.nodes import importer

    logging.getLogger("alembic").setLevel(logging.WARNING)
    # Entries make no reference cycles, but the default thresholds set off a collection every
    # 700 allocations, each over every module loaded: the modules go to the permanent
    # generation and young collections come thirty times as seldom (as fast as no collector,
    # and what cycles a batch leaves, the database layer's, are still collected).
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(20_000, 10, 100)
    ctx.call_on_close(lambda: gc.set_threshold(*thresholds))
    ctx.call_on_close(gc.unfreeze)
    shown = display_path(file)
    raw = b""
    # How the file is read: streamed as YAML, or whole (``data``).
    reader = "yaml"
    data: Any = None

    def positioned() -> Any:
        """The document from the positioned parser (diagnostics when it has problems)."""
        doc, diagnostics = parse(raw or file.read_bytes(), shown, max_bytes=None)
        if doc is None:
            refuse(diagnostics)
        return doc.data

    def refuse(diagnostics: list[Diagnostic]) -> NoReturn:
        emit(diagnostics, err=True)
        typer.echo("error: nothing was imported", err=True)
        raise typer.Exit(ExitCode.FAILURE)

    engine = open_database(database, ctx)
    if file.suffix.lower() == ".json":  # read whole: the one JSON reader says what is wrong
        raw = file.read_bytes()
        try:
            data, reader = jsonsafe.loads(raw, what=shown), "whole"
        except jsonsafe.Malformed:
            pass  # the YAML readers name the position of the problem
        except Invalid as exc:
            typer.echo(f"error: {exc.message}", err=True)
            typer.echo("error: nothing was imported", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
    from_ironic: bool | None = None
    while True:
        try:
            outcome = _import_once(
                engine, file, reader, data, from_ironic=from_ironic, verbose=verbose
            )
            break
        except plain_yaml.Unsure:  # the positioned parser reads it (or says what is wrong)
            data, reader = positioned(), "whole"
        except importer.Restart as restart:
            from_ironic = restart.from_ironic
        except _Undo as undo:
            if undo.outcome.problems:
                doc, diagnostics = parse(raw or file.read_bytes(), shown, max_bytes=None)
                if doc is not None:
                    diagnostics = importer.diagnostics(doc, undo.outcome.problems)
                refuse(diagnostics)
            for note in undo.outcome.notes:
                typer.echo(f"note: {note}", err=True)
            typer.echo(f"error: {undo.outcome.error}", err=True)
            typer.echo("error: nothing was imported", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
        except FlavorsmithError as exc:
            typer.echo(f"error: {exc.message}", err=True)
            typer.echo("error: nothing was imported", err=True)
            raise typer.Exit(ExitCode.FAILURE) from None
    for note in outcome.notes:
        typer.echo(f"note: {note}", err=True)
    report = outcome.report
    for name in ("created", "updated", "unchanged"):
        typer.echo(f"{name}: {report.counts[name]}")
        labels = getattr(report, name)
        if verbose and labels:
            typer.echo("".join(f"  {label}\n" for label in labels), nl=False)


def _import_once(
    engine: Engine,
    file: Path,
    reader: str,
    data: Any,
    *,
    from_ironic: bool | None,
    verbose: bool,
) -> importer.Outcome:
    """One import in one transaction: of ``data`` (``reader`` "whole"), or of the YAML file
    streamed ("yaml"), read a node at a time while the batches go in. Rolled back when it
    raises."""
    from flavorsmith.catalog import plain_yaml
    from flavorsmith.db.engine import writer
    from flavorsmith.ironic import records
    from flavorsmith.nodes import importer
    from flavorsmith.progress import progress

    with (
        writer(engine).begin() as connection,
        progress("importing" if reader == "whole" else "importing (KiB)") as bar,
    ):
        if reader != "whole":
            stream = plain_yaml.Stream(file, lambda done, size: bar.at(done >> 10, size >> 10))
            outcome = importer.import_entries(
                connection,
                stream,
                lambda: (stream.top, stream.prefix),
                from_ironic=from_ironic,
                labels=verbose,
            )
        else:
            where = ("nodes",) if isinstance(data, dict) else ()
            outcome = importer.import_entries(
                connection,
                _counted(records.entries_of(data), bar.at),
                lambda: (data, where),
                from_ironic=from_ironic,
                labels=verbose,
            )
        if outcome.problems or outcome.error:
            raise _Undo(outcome)  # out of the transaction: rolled back
        return outcome


def _counted(items: list[Any], at: Callable[[int, int], None]) -> Iterator[Any]:
    """``items``, telling ``at`` (items taken, items in all) every thousand."""
    total = len(items)
    for index, item in enumerate(items):
        if not index % 1000:
            at(index, total)
        yield item
    at(total, total)


class _Undo(Exception):
    """The import found problems (or a conflict): its transaction is rolled back."""

    def __init__(self, outcome: importer.Outcome) -> None:
        super().__init__("nothing was imported")
        self.outcome = outcome
