"""What the provider, flavor-profile and service-flavor commands share: the --providers option,
the enabled drivers with their catalog and nodes, id-or-name lookup and error reporting."""

from __future__ import annotations

import logging
import os
import traceback
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository, resolve_root
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import catalog_rules
from flavorsmith.config import DEFAULT_PROVIDERS
from flavorsmith.db.engine import Engine
from flavorsmith.diagnostics import Severity
from flavorsmith.errors import Conflict, FlavorsmithError, NotFound
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.providers.context import provider_context
from flavorsmith.providers.driver import ProviderContext
from flavorsmith.providers.registry import LOG, DriverRegistry, load, parse_enabled

ProvidersOption = Annotated[
    str,
    typer.Option(
        "--providers",
        metavar="NAME:DESCRIPTION,...",
        envvar="FLAVORSMITH_PROVIDERS",
        help="Enabled flavor providers, name:description,... (drivers from the "
        "flavorsmith.provider_drivers entry points). Default: the noop and baremetal "
        "providers, as flavorsmith serve.",
        show_default=False,
    ),
]
DEFAULT = DEFAULT_PROVIDERS


@contextmanager
def reported() -> Iterator[None]:
    """A FlavorsmithError becomes ``error: <message>`` on stderr and exit status 1."""
    try:
        yield
    except FlavorsmithError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(ExitCode.FAILURE) from None


class CatalogSource:
    """The repository's catalog, loaded on first use (only the baremetal driver asks for it),
    with a warning on stderr when the repository is missing or has errors."""

    def __init__(self, repo: str | None) -> None:
        self.repo = repo
        self._catalog: Catalog | None = None

    def __call__(self) -> Catalog:
        if self._catalog is None:
            self._catalog = self._load()
        return self._catalog

    def _load(self) -> Catalog:
        root = resolve_root(self.repo)
        found = Repository(root, catalog_rules())
        if not found.exists():
            typer.echo(
                f"warning: {root} is not a catalog repository (no hardware/ folder, nor mounted "
                "catalog folders): the "
                "baremetal provider sees an empty catalog (set --repo, FLAVORSMITH_REPO or "
                "UC_DEPLOY)",
                err=True,
            )
            return Catalog()
        view = found.load()
        errors = sum(1 for d in view.diagnostics if d.severity is Severity.ERROR)
        if errors:
            typer.echo(
                f"warning: the catalog at {root} has {errors} error"
                f"{'' if errors == 1 else 's'} (see flavorsmith validate): the baremetal "
                "provider uses the definitions that loaded",
                err=True,
            )
        return view.catalog


class _DriverLog(logging.Handler):
    """Driver crashes logged by the provider framework, as one line on stderr (a traceback
    only with FLAVORSMITH_DEBUG set). Load failures are reported by :func:`load_registry`."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info is None or record.exc_info[1] is None:
            return
        exc = record.exc_info[1]
        typer.echo(f"warning: {record.getMessage()}: {type(exc).__name__}: {exc}", err=True)
        if os.environ.get("FLAVORSMITH_DEBUG"):
            typer.echo("".join(traceback.format_exception(exc)), err=True, nl=False)


def load_registry(
    ctx: typer.Context, providers: str, repo: str | None, engine: Engine | None
) -> DriverRegistry:
    """The enabled drivers; each one that failed to load is a warning on stderr. Without an
    engine the drivers see no nodes (listing providers and capabilities needs none)."""
    try:
        parse_enabled(providers)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--providers'") from None
    handler = _DriverLog()
    LOG.addHandler(handler)
    ctx.call_on_close(lambda: LOG.removeHandler(handler))
    catalog = CatalogSource(repo)
    context = (
        provider_context(catalog, IndexCache(engine))
        if engine is not None
        else ProviderContext(catalog=catalog)
    )
    registry = load(providers, context)
    for name, reason in registry.failures.items():
        typer.echo(f"warning: provider {name} is disabled: {reason}", err=True)
    return registry


def find(rows: list[dict[str, Any]], ident: str, what: str) -> dict[str, Any]:
    """The row with this id, else the only row with this name."""
    wanted = str(uuid.UUID(ident)) if is_uuid(ident) else ident
    for row in rows:
        if row["id"] == wanted:
            return row
    named = [r for r in rows if r["name"] == ident]
    if len(named) == 1:
        return named[0]
    if not named:
        raise NotFound(f"No {what} has the id or name {ident!r}.")
    ids = ", ".join(r["id"] for r in named)
    raise Conflict(f"{len(named)} {what}s are named {ident!r}: {ids}; give an id instead")
