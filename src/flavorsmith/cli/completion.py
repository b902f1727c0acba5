"""Shell completion: ``flavorsmith completion bash|zsh|fish`` prints the script, and the
parameters that take a flavor, a node or a cloud complete their names.

The scripts are Typer's (Click's completion protocol: the shell calls ``flavorsmith`` again with
``_FLAVORSMITH_COMPLETE`` set). Names come from the catalog of ``--repo`` (or the default
repository), the database of ``--database`` (or the default, opened read-only: completion never
creates one) and the clouds.yaml openstacksdk reads. A name source that fails gives no names:
completion never prints an error."""

from __future__ import annotations

import contextlib
import enum
import io
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer
from typer._completion_classes import completion_init
from typer._completion_shared import get_completion_script

PROG = "flavorsmith"
COMPLETE_VAR = "_FLAVORSMITH_COMPLETE"


class Shell(enum.StrEnum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def completion(
    shell: Annotated[Shell, typer.Argument(help="The shell to print the script for.")],
) -> None:
    """Print the completion script of a shell (see docs/reference/cli.md, "Shell completion").

    \b
    Example:
      flavorsmith completion bash
    """
    typer.echo(get_completion_script(prog_name=PROG, complete_var=COMPLETE_VAR, shell=shell.value))


def prepare(environ: dict[str, str] | Any = os.environ) -> None:
    """Make the shells' completion classes known, and accept Click's spelling of the
    instruction (``bash_complete``) as well as Typer's (``complete_bash``)."""
    completion_init()
    instruction = environ.get(COMPLETE_VAR)
    if instruction:
        first, _, second = instruction.partition("_")
        if first in set(Shell) and second in ("complete", "source"):
            environ[COMPLETE_VAR] = f"{second}_{first}"


def attach(command: Any) -> Any:
    """Give every parameter of the command tree that takes a flavor, a node or a cloud its
    name source; returns ``command``."""
    _walk(command, ())
    return command


def _walk(command: Any, path: tuple[str, ...]) -> None:
    for param in command.params:
        source = _source(path, param.name)
        if source is not None:
            param._custom_shell_complete = _completer(source)
    for name, sub in getattr(command, "commands", {}).items():
        _walk(sub, (*path, name))


NameSource = Callable[[dict[str, Any]], list[str]]


def _source(path: tuple[str, ...], name: str | None) -> NameSource | None:
    if name in ("cloud", "ironic_cloud"):
        return lambda _params: cloud_names()
    if name == "node":
        return lambda params: node_names(params.get("database"))
    if name == "flavor" or (path[:1] == ("flavor",) and name == "name"):
        return lambda params: flavor_names(params.get("repo"))
    return None


def _completer(source: NameSource) -> Callable[..., list[str]]:
    def complete(ctx: Any, _param: Any, incomplete: str) -> list[str]:
        with _quiet():
            try:
                names = source(_all_params(ctx))
            except Exception:
                return []
        return [name for name in names if name.startswith(incomplete)]

    return complete


def _all_params(ctx: Any) -> dict[str, Any]:
    """The values parsed so far, the command's own over its groups' (--repo, --database)."""
    params: dict[str, Any] = {}
    while ctx is not None:
        for key, value in ctx.params.items():
            params.setdefault(key, value)
        ctx = ctx.parent
    return params


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Nothing a name source writes or warns reaches the shell."""
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stderr(io.StringIO()),
        contextlib.redirect_stdout(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def flavor_names(repo: str | None) -> list[str]:
    """The names of the flavor files of the catalog that load; none outside a catalog."""
    from flavorsmith.catalog.kinds import FLAVOR
    from flavorsmith.catalog.model import Flavor
    from flavorsmith.catalog.repo import Repository, resolve_root
    from flavorsmith.cli.options import catalog_rules

    found = Repository(resolve_root(repo), catalog_rules())
    if not found.exists():
        return []
    names = set()
    for item in found.files(FLAVOR):
        loaded = found.load_definition(item.path, FLAVOR, item.source)
        if loaded.ok and isinstance(loaded.model, Flavor):
            names.add(loaded.model.name)
    return sorted(names)


def node_names(database: str | None) -> list[str]:
    """The node names in the database, read only; none when it does not exist."""
    from flavorsmith.config import resolve_database_url
    from flavorsmith.db.engine import read_only_engine
    from flavorsmith.store import nodes

    engine = read_only_engine(resolve_database_url(database))
    if engine is None:
        return []
    try:
        with engine.connect() as connection:
            return nodes.names(connection)
    finally:
        engine.dispose()


def cloud_names() -> list[str]:
    from flavorsmith.clients.cloud import cloud_names as names

    return names()
