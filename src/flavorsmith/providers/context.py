"""The context the service gives provider drivers: its catalog and its nodes."""

from __future__ import annotations

from collections.abc import Callable

from flavorsmith.catalog.model import Catalog
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.reports import nodes_of
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.providers.driver import ProviderContext


def provider_context(catalog: Callable[[], Catalog], index: IndexCache) -> ProviderContext:
    def nodes(resource_class: str, traits: frozenset[str]) -> list[str]:
        rule = FlavorRule("service-flavor", resource_class, traits, frozenset())
        return [n.label for n in nodes_of(index.current(), rule)]

    return ProviderContext(catalog=catalog, nodes=nodes)
