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

from flavorsmith.cli.groups import command_group
from flavorsmith.cli.help_example import with_example
from flavorsmith.cli.node.database import open_database
from flavorsmith.cli.options import DatabaseOption, lists, shows
from flavorsmith.cli.output import Row
from flavorsmith.cli.providers.common import find, reported
from flavorsmith.db.engine import Connection, Engine, writer


@dataclass(frozen=True)
class Kind:
    """A kind of record: ``what`` names one in messages (``flavor profile``), ``columns`` are
    its list's columns, ``read`` lists every record and ``remove`` deletes one by id;
    ``ident`` is the argument naming one (``typer.Argument``), ``example`` the name of one in
    the commands' help examples."""

    what: str
    columns: tuple[str, ...]
    read: Callable[[Connection], list[Row]]
    remove: Callable[[Connection, str], None]
    ident: Any
    example: str

    def example_of(self, args: str) -> str:
        """A help's example: ``args`` after the group's words (``what``, hyphenated)."""
        return f"flavorsmith {self.what.replace(' ', '-')} {args}"


def list_command(kind: Kind) -> Callable[..., None]:
    """``list``: every record of the kind, sorted and with the columns asked."""

    @lists(kind.columns)
    def list_records(ctx: typer.Context, database: DatabaseOption = None) -> list[Row]:
        with open_database(database, ctx).connect() as connection:
            return kind.read(connection)

    list_records.__doc__ = with_example(f"List {kind.what}s.", kind.example_of("list -f json"))
    return list_records


def show_command(kind: Kind) -> Callable[..., None]:
    """``show``: the record with this id, else the only one with this name."""

    @shows
    def show_record(
        ctx: typer.Context, ident: Annotated[str, kind.ident], database: DatabaseOption = None
    ) -> Row:
        with reported(), open_database(database, ctx).connect() as connection:
            return find(kind.read(connection), ident, kind.what)

    show_record.__doc__ = with_example(
        f"Show a {kind.what}.", kind.example_of(f"show {kind.example}")
    )
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

    delete_record.__doc__ = with_example(doc, kind.example_of(f"delete {kind.example}"))
    return delete_record


def group(
    help_text: str,
    kind: Kind,
    create: Callable[..., None],
    change: Callable[..., None],
    delete_doc: str,
    **more: Callable[..., None],
) -> typer.Typer:
    """The command group of a kind of record: its ``create`` and ``set`` (``change``) commands,
    the shared list, show and delete (``delete_doc`` the help of delete), then ``more``."""
    return command_group(
        help_text,
        {
            "create": create,
            "list": list_command(kind),
            "show": show_command(kind),
            "set": change,
            "delete": delete_command(kind, delete_doc),
            **more,
        },
    )


def change_record(
    kind: Kind,
    ident: str,
    engine: Engine,
    change: Callable[[Connection, str], Row],
) -> Row:
    """Find the record and change it in one transaction: ``change`` takes its id and returns
    the changed record."""
    with reported(), writer(engine).begin() as connection:
        found = find(kind.read(connection), ident, kind.what)
        return change(connection, found["id"])


def changes(pairs: Sequence[tuple[str, Any]], hint: str) -> dict[str, Any]:
    """The options given (not None) as the changes of a ``set`` command; none is a usage
    error that names the options (``hint``)."""
    values = {key: value for key, value in pairs if value is not None}
    if not values:
        raise typer.BadParameter(f"nothing to change: give {hint}", param_hint="options")
    return values
