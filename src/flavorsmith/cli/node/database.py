"""Opening the service's database from the CLI, migrated, with clear errors."""

from __future__ import annotations

from pathlib import Path

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.db.engine import Engine


def open_database(option: str | None, ctx: typer.Context) -> Engine:
    """The database at --database/env/default; the embedded SQLite one is migrated on use.
    Its connections close when the command ends."""
    from flavorsmith.cli.options import database_url
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import describe, is_sqlite, make_engine, new_sqlite_file, row_counts

    url = database_url(option)
    fresh = new_sqlite_file(url)
    seeded: dict[str, int] = {}
    try:
        engine = make_engine(url)
        if fresh is not None:
            # Registered before the engine's dispose, so it runs after it (last in, first out).
            ctx.call_on_close(lambda: _remove_if_untouched(fresh, engine, seeded))
        ctx.call_on_close(engine.dispose)
        if is_sqlite(url):
            migrate.upgrade(engine)
        elif not migrate.is_current(engine):
            typer.echo(
                f"error: {describe(url)} needs migrations: run flavorsmith db upgrade", err=True
            )
            raise typer.Exit(ExitCode.FAILURE)
        if fresh is not None:
            seeded.update(row_counts(engine))
    except typer.Exit:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        typer.echo(f"error: database {describe(url)}: {first}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    return engine


def _remove_if_untouched(path: Path, engine: Engine, seeded: dict[str, int]) -> None:
    """A SQLite file this command created and then wrote nothing to (a read, or a failed write
    rolled back) is removed with its journal files: a missing database stays missing rather
    than turning into an empty one behind a typo or a refused import."""
    from flavorsmith.db.engine import row_counts

    try:
        untouched = bool(seeded) and row_counts(engine) == seeded
    except Exception:
        return
    engine.dispose()
    if untouched:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def note_if_empty(engine: Engine, count: int) -> None:
    """Say on stderr that the database holds no node (a command would otherwise answer with
    zeros and empty tables, silently), and where nodes come from."""
    if count == 0:
        typer.echo(
            f"0 nodes in {engine.url.render_as_string(hide_password=True)} — "
            "import nodes, or use --cloud/--ironic-endpoint",
            err=True,
        )
