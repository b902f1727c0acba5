"""``flavorsmith db upgrade|current``: database migrations."""

from __future__ import annotations

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import DatabaseOption, database_url
from flavorsmith.db import migrate
from flavorsmith.db.engine import describe, make_engine

app = typer.Typer(help="Show and apply the database's migrations.", no_args_is_help=True)


@app.command("upgrade")
def upgrade(database: DatabaseOption = None) -> None:
    """Apply every pending migration.

    \b
    Example:
      flavorsmith db upgrade --database sqlite:///flavorsmith.db
    """
    url = database_url(database)
    try:
        engine = make_engine(url)
        before = migrate.current(engine)
        migrate.upgrade(engine)
        after = migrate.current(engine)
    except Exception as exc:
        typer.echo(f"error: database {describe(url)}: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    if before == after:
        typer.echo(f"{describe(url)}: already at {after}")
    else:
        typer.echo(f"{describe(url)}: upgraded from {before or 'empty'} to {after}")


@app.command("current")
def current(database: DatabaseOption = None) -> None:
    """Print the database's migration and the latest one.

    \b
    Example:
      flavorsmith db current --database sqlite:///flavorsmith.db
    """
    url = database_url(database)
    try:
        revision = migrate.current(make_engine(url))
    except Exception as exc:
        typer.echo(f"error: database {describe(url)}: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None
    head = migrate.head()
    state = "current" if revision == head else f"behind: latest is {head}"
    typer.echo(f"{describe(url)}: {revision or 'empty'} ({state})")
    if revision != head:
        raise typer.Exit(ExitCode.FAILURE)
