"""One implementation of the list, show, set and delete commands of the provider framework's
records in the service's database (flavor profiles, service flavors), as the openstack CLI's
``Lister`` and ``ShowOne``: a kind of record declares its name, columns, reading and deleting;
the commands here open the database, find a record by id or name, report errors and print."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import typer

from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.output import Format, ListFormat, print_list, print_show
from flavorsmith.cli.providers.common import find, reported
from flavorsmith.db.engine import Connection, Engine, writer

Row = dict[str, Any]


@dataclass(frozen=True)
class Kind:
    """A kind of record: ``what`` names one in messages (``flavor profile``), ``columns`` are
    its list's columns, ``read`` lists every record and ``remove`` deletes one by id."""

    what: str
    columns: tuple[str, ...]
    read: Callable[[Connection], list[Row]]
    remove: Callable[[Connection, str], None]


def list_records(
    ctx: typer.Context,
    kind: Kind,
    database: str | None,
    fmt: ListFormat,
    column: Sequence[str] | None,
    sort_column: Sequence[str] | None,
) -> None:
    """Every record of the kind, sorted and with the columns asked."""
    with open_database(database, ctx).connect() as connection:
        rows = kind.read(connection)
    print_list(rows, kind.columns, fmt, column, sort_column)


def show_record(
    ctx: typer.Context,
    kind: Kind,
    ident: str,
    database: str | None,
    fmt: Format,
    column: Sequence[str] | None,
) -> None:
    """The record with this id, else the only one with this name."""
    with reported(), open_database(database, ctx).connect() as connection:
        row = find(kind.read(connection), ident, kind.what)
    print_show(row, fmt, column)


def change_record(
    kind: Kind,
    ident: str,
    engine: Engine,
    change: Callable[[Connection, str], Row],
    fmt: Format,
    column: Sequence[str] | None,
) -> None:
    """Find the record, change it in one transaction (``change`` takes its id and returns the
    changed record) and show it."""
    with reported(), writer(engine).begin() as connection:
        found = find(kind.read(connection), ident, kind.what)
        row = change(connection, found["id"])
    print_show(row, fmt, column)


def delete_record(ctx: typer.Context, kind: Kind, ident: str, database: str | None) -> None:
    """Delete the record and say which one went."""
    with reported(), writer(open_database(database, ctx)).begin() as connection:
        found = find(kind.read(connection), ident, kind.what)
        kind.remove(connection, found["id"])
    typer.echo(f"deleted {kind.what} {found['id']} ({found['name']})")


def changes(pairs: Sequence[tuple[str, Any]], hint: str) -> dict[str, Any]:
    """The options given (not None) as the changes of a ``set`` command; none is a usage
    error that names the options (``hint``)."""
    values = {key: value for key, value in pairs if value is not None}
    if not values:
        raise typer.BadParameter(f"nothing to change: give {hint}", param_hint="options")
    return values
