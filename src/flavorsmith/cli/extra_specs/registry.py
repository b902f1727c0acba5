"""The registry the commands use: built-ins, plugins, and the repository's definitions."""

from __future__ import annotations

from flavorsmith.extra_specs.registry import Registry


def load(repo: str | None) -> Registry:
    from flavorsmith.catalog.repo import Repository, resolve_root
    from flavorsmith.extra_specs.factory import base_registry, completed
    from flavorsmith.rulebook import catalog_rules

    base = base_registry()
    repository = Repository(resolve_root(repo), catalog_rules(base))
    sets = repository.load().catalog.extra_specs if repository.exists() else ()
    registry, _ = completed(base, sets)
    return registry
