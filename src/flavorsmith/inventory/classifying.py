"""Applying a classification to a stored node: one transaction, only what it decided."""

from __future__ import annotations

from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.classify.classification import Classification, classify
from flavorsmith.classify.inspection import parse
from flavorsmith.db.engine import Connection
from flavorsmith.store import nodes as store


def classify_node(
    connection: Connection, node: dict[str, Any], data: Any, catalog: Catalog, *, apply: bool
) -> tuple[Classification, dict[str, Any]]:
    """Classify ``data`` for ``node``; with ``apply``, store it and update the node: the traits
    the rules own, and the resource class when exactly one device type matched."""
    current = frozenset(store.traits_of(connection, [node["id"]])[node["id"]])
    result = classify(parse(data), catalog, current)
    changes: dict[str, Any] = {}
    if apply:
        if result.resource_class is not None and result.resource_class != node["resource_class"]:
            changes["resource_class"] = result.resource_class
            node = store.save(connection, node, {"resource_class": result.resource_class})
        if result.traits.result != current:
            store.set_traits(connection, node, sorted(result.traits.result))
            changes["traits"] = sorted(result.traits.result)
        store.record_inspection(connection, node, data, result.as_dict())
    return result, changes
