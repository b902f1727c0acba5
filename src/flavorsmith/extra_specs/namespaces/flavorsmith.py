"""flavorsmith: the ownership marker the flavor synchronisation writes."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import ENUM

NAMESPACES = [
    Namespace(
        "flavorsmith",
        "flavorsmith",
        "Markers Flavorsmith keeps on the flavors it manages.",
        nova=False,
    )
]

VALIDATORS = [
    Validator(
        "flavorsmith:managed",
        "Flavorsmith created this flavor and keeps it equal to the catalog (sync may update, "
        "replace or, with --prune, delete it).",
        ENUM("true"),
        extension="Flavorsmith",
    )
]
