"""Trait names: CUSTOM_ prefixing, the os-traits standard vocabulary, validation and limits."""

from __future__ import annotations

import re
from functools import cache

import os_traits

CUSTOM_PREFIX = "CUSTOM_"
# Placement's and Ironic's column width for a trait name.
MAX_TRAIT_LENGTH = 255
# Ironic refuses more traits than this on one node.
MAX_TRAITS_PER_NODE = 50
# What a catalog file writes: the part after CUSTOM_.
SHORT_TRAIT_PATTERN = r"^[A-Z][A-Z0-9_]*$"
_SHORT_TRAIT_RE = re.compile(SHORT_TRAIT_PATTERN)
_CUSTOM_TRAIT_RE = re.compile(r"^CUSTOM_[A-Z0-9_]+$")


@cache
def standard_traits() -> frozenset[str]:
    """Every standard trait name of the pinned os-traits release."""
    return frozenset(os_traits.get_traits())


def full_name(short: str) -> str:
    """The name Ironic and Placement see for a trait a catalog file writes without CUSTOM_."""
    return CUSTOM_PREFIX + short


def is_valid_node_trait(name: str) -> bool:
    """Whether Ironic accepts this trait on a node: standard, or CUSTOM_[A-Z0-9_]+, <= 255 chars."""
    if len(name) > MAX_TRAIT_LENGTH:
        return False
    return name in standard_traits() or bool(_CUSTOM_TRAIT_RE.fullmatch(name))


def suggest_short_name(value: str) -> str | None:
    """A likely intended catalog trait for a value that does not match the pattern, if any."""
    candidate = re.sub(r"[^0-9A-Za-z]+", "_", value.strip()).upper().strip("_")
    if candidate.startswith(CUSTOM_PREFIX):
        candidate = candidate[len(CUSTOM_PREFIX) :]
    if candidate and candidate != value and _SHORT_TRAIT_RE.fullmatch(candidate):
        return candidate
    return None


# The traits Nova puts on an Ironic node's resource provider itself, whatever Ironic says:
# the resource tracker's COMPUTE_NODE and OWNER_NOVA, COMPUTE_STATUS_DISABLED on a disabled
# compute service, and the capability traits of Nova 34's ironic driver (the capabilities it
# declares true: attach interface; AMI, QCOW2 and RAW images).
NOVA_IRONIC_TRAITS = frozenset(
    {
        "COMPUTE_NODE",
        "OWNER_NOVA",
        "COMPUTE_STATUS_DISABLED",
        "COMPUTE_NET_ATTACH_INTERFACE",
        "COMPUTE_IMAGE_TYPE_AMI",
        "COMPUTE_IMAGE_TYPE_QCOW2",
        "COMPUTE_IMAGE_TYPE_RAW",
    }
)
