"""Options shared by many commands, each with its environment variable."""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer

from flavorsmith.cli.output import (
    Format,
    ListFormat,
    ReportFormat,
    Row,
    print_list,
    print_show,
    remember,
)
from flavorsmith.did_you_mean import did_you_mean

if TYPE_CHECKING:
    from flavorsmith.catalog.given_rules import CatalogRules
    from flavorsmith.catalog.repo import Repository

RepoOption = Annotated[
    str | None,
    typer.Option(
        "--repo",
        metavar="DIR",
        envvar=["FLAVORSMITH_REPO", "UC_DEPLOY"],
        help="Catalog repository root (holding hardware/), or a folder holding the catalog "
        "ConfigMaps mounted as device-types/, flavors/, ... Default: the working directory.",
        show_default=False,
    ),
]

Choice = TypeVar("Choice", bound=enum.StrEnum)


def format_option(choices: type[Choice]) -> Any:
    """The -f/--format option of these formats: a format it does not print is a usage error in
    our words, naming the formats (typer's own reads "Value error, 'xml' is not one of ...")."""
    names = [choice.value for choice in choices]

    def parse(value: Any) -> Choice:
        if isinstance(value, choices):
            return value
        try:
            return choices(str(value).lower())
        except ValueError:
            hint = did_you_mean(str(value), names)
            raise typer.BadParameter(
                f"{value!r} is not an output format of this command{hint}; "
                f"choose from {', '.join(names)}"
            ) from None

    return Annotated[
        choices,
        typer.Option(
            "-f",
            "--format",
            metavar=f"<{'|'.join(names)}>",
            help="Output format.",
            parser=parse,
            autocompletion=lambda: names,
        ),
    ]


FormatOption = format_option(Format)
ListFormatOption = format_option(ListFormat)
ReportFormatOption = format_option(ReportFormat)

# The table formatter's options, as cliff's: kept for the rendering (output.remember), not
# passed to the command.
MaxWidthOption = Annotated[
    int,
    typer.Option(
        "--max-width",
        metavar="N",
        envvar="CLIFF_MAX_TERM_WIDTH",
        help="Maximum table width, below 1 for none (wide cells wrap).",
        callback=remember,
        expose_value=False,
        show_default=False,
    ),
]
FitWidthOption = Annotated[
    bool,
    typer.Option(
        "--fit-width",
        envvar="CLIFF_FIT_WIDTH",
        help="Fit tables to the terminal ($COLUMNS) even when the output is not a terminal "
        "(implied by --max-width; always on a terminal).",
        callback=remember,
        expose_value=False,
        show_default=False,
    ),
]


class LogFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


LogFormatOption = Annotated[
    LogFormat | None,
    typer.Option(
        "--log-format",
        case_sensitive=False,
        help="Log lines as text or JSON. Default: text on a terminal, JSON otherwise.",
        show_default=False,
    ),
]
ColumnOption = Annotated[
    list[str] | None,
    typer.Option(
        "-c",
        "--column",
        metavar="COLUMN",
        help="Show only this column (repeatable).",
        show_default=False,
    ),
]
SortColumnOption = Annotated[
    list[str] | None,
    typer.Option(
        "--sort-column",
        metavar="COLUMN",
        help="Sort by this column, ascending (repeatable: the first is the main key).",
        show_default=False,
    ),
]
PrefixOption = Annotated[
    str,
    typer.Option(
        "--prefix",
        metavar="PREFIX",
        help="With -f shell: put this before every variable name.",
        callback=remember,
        expose_value=False,
        show_default=False,
    ),
]


Command = TypeVar("Command", bound=Callable[..., Any])


def _param(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Parameter(name, kind, annotation=annotation, default=default)


def _table(prefix: bool) -> list[inspect.Parameter]:
    """The table formatter's options (with ``prefix``, -f shell's --prefix before them)."""
    return [
        *([_param("prefix", PrefixOption, "")] if prefix else []),
        _param("max_width", MaxWidthOption, 0),
        _param("fit_width", FitWidthOption, False),
    ]


def _extend(
    command: Callable[..., Any],
    added: list[inspect.Parameter],
    after: str | None,
    finish: Callable[[Any, dict[str, Any]], Any],
) -> Callable[..., Any]:
    """The command with the ``added`` options after its parameter ``after`` (default: its
    last) in the signature typer reads; they are taken out of the call and given, with what
    the command returned, to ``finish``."""
    params = list(inspect.signature(command, eval_str=True).parameters.values())
    at = len(params) if after is None else [p.name for p in params].index(after) + 1

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        given = {param.name: kwargs.pop(param.name, param.default) for param in added}
        return finish(command(*args, **kwargs), given)

    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*params[:at], *added, *params[at:]]
    )
    return run


def table_options(
    *, prefix: bool = False, after: str | None = None
) -> Callable[[Command], Command]:
    """Give a command the table formatter's options, --max-width and --fit-width (with
    ``prefix``, -f shell's --prefix before them), after its parameter ``after`` (default: its
    last). They are kept for the rendering (output.remember), so the command does not declare
    them: the signature typer reads lists them, and they are dropped before the call."""

    def add(command: Command) -> Command:
        return cast("Command", _extend(command, _table(prefix), after, lambda result, _: result))

    return add


def shows(command: Callable[..., Row]) -> Callable[..., None]:
    """A command that returns one record, printed as cliff's ``ShowOne`` does: -f, -c and the
    table formatter's options (with --prefix) are added after its own options."""
    added = [_param("fmt", FormatOption, Format.TABLE), _param("column", ColumnOption, None)]
    return _extend(
        command,
        [*added, *_table(prefix=True)],
        None,
        lambda row, given: print_show(row, given["fmt"], given["column"]),
    )


def lists(columns: Sequence[str]) -> Callable[[Callable[..., list[Row]]], Callable[..., None]]:
    """A command that returns rows, printed as cliff's ``Lister`` does with these columns: -f,
    the table formatter's options, -c and --sort-column are added after its own options."""
    added = [
        _param("fmt", ListFormatOption, ListFormat.TABLE),
        *_table(prefix=False),
        _param("column", ColumnOption, None),
        _param("sort_column", SortColumnOption, None),
    ]

    def add(command: Callable[..., list[Row]]) -> Callable[..., None]:
        return _extend(
            command,
            added,
            None,
            lambda rows, given: print_list(
                rows, columns, given["fmt"], given["column"], given["sort_column"]
            ),
        )

    return add


def catalog_rules() -> CatalogRules:
    """The rules a command loads catalogs with: the extra-spec registry (built-ins, then the
    installed plugins, looked up here) and Ironic's deploy-template rules."""
    from flavorsmith.catalog_rules import catalog_rules as rules_from
    from flavorsmith.extra_specs.factory import base_registry

    return rules_from(base_registry())


def repository(repo: str | None, *, required: bool = True) -> Repository:
    """The Repository at ``--repo``/env/cwd; a usage error (exit 2) when it has no hardware/."""
    from flavorsmith.catalog.repo import Repository, resolve_root

    root = resolve_root(repo)
    found = Repository(root, catalog_rules())
    if required and not found.exists():
        raise typer.BadParameter(
            f"{root} is not a catalog repository: it has no hardware/ folder, nor mounted "
            "catalog folders (device-types/, flavors/, ...) (set --repo, FLAVORSMITH_REPO "
            "or UC_DEPLOY)",
            param_hint="'--repo'",
        )
    return found


DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        metavar="URL",
        envvar="FLAVORSMITH_DATABASE_URL",
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db. "
        "Default: a per-user SQLite file.",
        show_default=False,
    ),
]


def database_url(option: str | None) -> str:
    """The database URL of every command (--database, env, default), checked: a URL this
    service cannot open, or a SQLite file in a folder that does not exist, is a usage error."""
    from flavorsmith.config import ConfigError, resolve_database_url
    from flavorsmith.db.engine import check_database_url

    try:
        return check_database_url(resolve_database_url(option))
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--database'") from None


# A real Ironic as the node source of match, capacity, deploy plan, node list and classify.
# $OS_CLOUD is not read here: a shell that has it set must not silently switch a command from
# the service's database to a cloud.
IronicCloudOption = Annotated[
    str | None,
    typer.Option(
        "--cloud",
        metavar="NAME",
        help="Read nodes from the Ironic of this clouds.yaml cloud (openstacksdk: Keystone or "
        "auth_type none) instead of the service's database.",
        show_default=False,
    ),
]
IronicEndpointOption = Annotated[
    str | None,
    typer.Option(
        "--ironic-endpoint",
        metavar="URL",
        help="Read nodes from this unauthenticated Ironic (e.g. http://127.0.0.1:6385) instead "
        "of the service's database.",
        show_default=False,
    ),
]


@dataclasses.dataclass(frozen=True)
class NodeSource:
    """Where a command reads nodes from: the options ``node_source`` adds. A real Ironic with
    ``cloud`` or ``ironic_endpoint``, else the service's database (``database``: its URL)."""

    database: str | None = None
    cloud: str | None = None
    ironic_endpoint: str | None = None


def bundled(
    name: str, options: dict[str, Any], bundle: Callable[..., Any]
) -> Callable[[Command], Command]:
    """A decorator giving a command ``options`` (parameter name: its declaration, default
    None) in place of its parameter ``name``, which receives them as one value,
    ``bundle(**given)``."""
    added = [_param(option, annotation, None) for option, annotation in options.items()]

    def add(command: Command) -> Command:
        params = list(inspect.signature(command, eval_str=True).parameters.values())
        at = [p.name for p in params].index(name)

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = {param.name: kwargs.pop(param.name, param.default) for param in added}
            return command(*args, **{name: bundle(**given)}, **kwargs)

        run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [*params[:at], *added, *params[at + 1 :]]
        )
        return cast("Command", run)

    return add


def node_source(database: Any = DatabaseOption) -> Callable[[Command], Command]:
    """Give a command the node-source options, --database, --cloud and --ironic-endpoint, in
    place of its parameter ``nodes``, which receives them as one ``NodeSource``. ``database``
    is the --database declaration, for a command whose help says more about it."""
    options = {
        "database": database,
        "cloud": IronicCloudOption,
        "ironic_endpoint": IronicEndpointOption,
    }
    return bundled("nodes", options, NodeSource)
