"""Resource-class names: normalisation exactly as Nova and Placement do it, and length limits."""

from __future__ import annotations

import os_resource_classes

# Ironic's node.resource_class column.
IRONIC_MAX_LENGTH = 80


def placement_name(name: str) -> str:
    """The custom resource class Nova's ironic driver reports for a node's resource_class.

    Delegates to os-resource-classes so odd names (dots, dashes, lower case, runs of
    punctuation) normalise exactly as Nova schedules them: ``m1.small`` -> ``CUSTOM_M1_SMALL``.
    """
    result: str = os_resource_classes.normalize_name(name)
    return result
