"""The registry the commands use: built-ins, plugins, and the repository's definitions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from flavorsmith.catalog.repo import Repository
from flavorsmith.catalog.root import holds_catalog, resolve_root
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.extra_specs.factory import base_registry, completed
from flavorsmith.extra_specs.registry import Registry

if TYPE_CHECKING:
    from flavorsmith.catalog.model import ExtraSpecSet


def load(repo: str | None) -> Registry:
    base = base_registry()
    root = resolve_root(repo)
    sets = _definitions(root, base) if holds_catalog(root) else ()
    registry, _ = completed(base, sets)
    return registry


def _definitions(root: Path, base: Registry) -> Sequence[ExtraSpecSet]:
    """The repository's extra-spec definitions (the catalog is loaded only when there is one)."""
    return Repository(root, catalog_rules(base)).load().catalog.extra_specs
