"""resources{group} and trait{group}: Placement requests, generated from the pinned
os-resource-classes and os-traits releases (one validator per standard name, plus CUSTOM_)."""

from __future__ import annotations

import os_resource_classes
import os_traits

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import ENUM, INT

GROUP_PATTERN = r"([a-zA-Z0-9_-]{1,64})?"
GROUP = Parameter(
    "group", GROUP_PATTERN, "Optional request-group suffix (1-64 of a-z A-Z 0-9 _ -)."
)

NAMESPACES = [
    Namespace(
        "resources{group}",
        f"resources{GROUP_PATTERN}",
        "Amounts of Placement resource classes to allocate.",
        family="resources",
    ),
    Namespace(
        "trait{group}",
        f"trait{GROUP_PATTERN}",
        "Placement traits the host must have or must not have.",
        family="trait",
    ),
]


def validators() -> list[Validator]:
    out = [
        Validator(
            f"resources{{group}}:{name}",
            f"Amount of {name} to allocate from Placement.",
            INT(),
            parameters=(GROUP,),
        )
        for name in os_resource_classes.STANDARDS
    ]
    out.append(
        Validator(
            "resources{group}:CUSTOM_{resource}",
            "Amount of a custom resource class to allocate (a bare-metal node is 1).",
            INT(),
            parameters=(
                GROUP,
                Parameter("resource", "[A-Z0-9_]+", "The custom resource class name."),
            ),
        )
    )
    requirement = ENUM("required", "forbidden")
    out += [
        Validator(
            f"trait{{group}}:{name}",
            f"Require or forbid the standard trait {name}.",
            requirement,
            parameters=(GROUP,),
        )
        for name in os_traits.get_traits()
    ]
    out.append(
        Validator(
            "trait{group}:CUSTOM_{trait}",
            "Require or forbid a custom trait.",
            requirement,
            parameters=(GROUP, Parameter("trait", "[A-Z0-9_]+", "The custom trait name.")),
        )
    )
    return out
