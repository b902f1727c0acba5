"""Opening the service's database from the CLI, migrated, with clear errors."""

from __future__ import annotations

import typer

from flavorsmith.db.engine import Engine


def open_database(option: str | None, ctx: typer.Context) -> Engine:
    """The database at --database/env/default; the embedded SQLite one is migrated on use.
    Its connections close when the command ends."""
    from flavorsmith.cli.options import database_url
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import describe, is_sqlite, make_engine

    url = database_url(option)
    try:
        engine = make_engine(url)
        ctx.call_on_close(engine.dispose)
        if is_sqlite(url):
            migrate.upgrade(engine)
        elif not migrate.is_current(engine):
            typer.echo(
                f"error: {describe(url)} needs migrations: run flavorsmith db upgrade", err=True
            )
            raise typer.Exit(1)
    except typer.Exit:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        typer.echo(f"error: database {describe(url)}: {first}", err=True)
        raise typer.Exit(1) from None
    return engine
