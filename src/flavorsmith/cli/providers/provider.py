"""``flavorsmith provider list`` and ``provider capabilities NAME``."""

from __future__ import annotations

from typing import Annotated

import typer

from flavorsmith.cli.options import RepoOption, lists
from flavorsmith.cli.output import Row
from flavorsmith.cli.providers.common import DEFAULT, ProvidersOption, load_registry, reported
from flavorsmith.providers.validation import capabilities as of

COLUMNS = ("name", "description")


@lists(COLUMNS)
def list_providers(ctx: typer.Context, providers: ProvidersOption = DEFAULT) -> list[Row]:
    """List the enabled providers; a provider whose driver failed to load is a warning on
    stderr and is not listed.

    \b
    Example:
      flavorsmith provider list
    """
    registry = load_registry(ctx, providers, None, None)
    return [{"name": p.name, "description": p.description} for p in registry.providers.values()]


@lists(COLUMNS)
def capabilities(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="PROVIDER", help="An enabled provider's name.")],
    providers: ProvidersOption = DEFAULT,
    repo: RepoOption = None,
) -> list[Row]:
    """List the flavor data keys a provider accepts (its flavor capabilities).

    The baremetal provider lists the resource classes and deploy templates of the catalog at
    --repo; when the catalog has errors it warns and uses the definitions that loaded.

    \b
    Example:
      flavorsmith provider capabilities baremetal
    """
    registry = load_registry(ctx, providers, repo, None)
    with reported():
        return of(registry.get(name))
