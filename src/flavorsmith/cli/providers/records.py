"""One implementation of the list, show, set and delete commands of the provider framework's
records in the service's database (flavor profiles, service flavors), as the openstack CLI's
``Lister`` and ``ShowOne``: a kind of record declares its name, columns, reading and deleting;
the commands here open the database, find a record by id or name, report errors and print."""

# Annotations stay evaluated when a command is made (no ``from __future__ import
# annotations``): a command's argument is the kind's, which only the maker's scope holds.

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import (
    ColumnOption,
    DatabaseOption,
    FormatOption,
    ListFormatOption,
    SortColumnOption,
    table_options,
)
from flavorsmith.cli.output import Format, ListFormat, print_list, print_show
from flavorsmith.cli.providers.common import find, reported
from flavorsmith.db.engine import Connection, Engine, writer

Row = dict[str, Any]


@dataclass(frozen=True)
class Kind:
    """A kind of record: ``what`` names one in messages (``flavor profile``), ``columns`` are
    its list's columns, ``read`` lists every record and ``remove`` deletes one by id;
    ``ident`` is the argument naming one (``typer.Argument``)."""

    what: str
    columns: tuple[str, ...]
    read: Callable[[Connection], list[Row]]
    remove: Callable[[Connection, str], None]
    ident: Any


def list_command(kind: Kind) -> Callable[..., None]:
    """``list``: every record of the kind, sorted and with the columns asked."""

    @table_options(after="fmt")
    def list_records(
        ctx: typer.Context,
        database: DatabaseOption = None,
        fmt: ListFormatOption = ListFormat.TABLE,
        column: ColumnOption = None,
        sort_column: SortColumnOption = None,
    ) -> None:
        with open_database(database, ctx).connect() as connection:
            rows = kind.read(connection)
        print_list(rows, kind.columns, fmt, column, sort_column)

    list_records.__doc__ = f"List {kind.what}s."
    return list_records


def show_command(kind: Kind) -> Callable[..., None]:
    """``show``: the record with this id, else the only one with this name."""

    @table_options(prefix=True)
    def show_record(
        ctx: typer.Context,
        ident: Annotated[str, kind.ident],
        database: DatabaseOption = None,
        fmt: FormatOption = Format.TABLE,
        column: ColumnOption = None,
    ) -> None:
        with reported(), open_database(database, ctx).connect() as connection:
            row = find(kind.read(connection), ident, kind.what)
        print_show(row, fmt, column)

    show_record.__doc__ = f"Show a {kind.what}."
    return show_record


def delete_command(kind: Kind, doc: str) -> Callable[..., None]:
    """``delete`` (``doc`` its help): delete the record and say which one went."""

    def delete_record(
        ctx: typer.Context, ident: Annotated[str, kind.ident], database: DatabaseOption = None
    ) -> None:
        with reported(), writer(open_database(database, ctx)).begin() as connection:
            found = find(kind.read(connection), ident, kind.what)
            kind.remove(connection, found["id"])
        typer.echo(f"deleted {kind.what} {found['id']} ({found['name']})")

    delete_record.__doc__ = doc
    return delete_record


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


def changes(pairs: Sequence[tuple[str, Any]], hint: str) -> dict[str, Any]:
    """The options given (not None) as the changes of a ``set`` command; none is a usage
    error that names the options (``hint``)."""
    values = {key: value for key, value in pairs if value is not None}
    if not values:
        raise typer.BadParameter(f"nothing to change: give {hint}", param_hint="options")
    return values
