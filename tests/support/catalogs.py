"""Loading catalogs in tests as the application composes them: the extra-spec registry
(built-ins and installed plugins) and Ironic's deploy-template rules, passed to the catalog."""

from __future__ import annotations

from pathlib import Path

from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.repo import Repository
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.extra_specs.factory import base_registry

RULES: CatalogRules = catalog_rules(base_registry())


def repository(root: Path, rules: CatalogRules = RULES) -> Repository:
    return Repository(root, rules)
