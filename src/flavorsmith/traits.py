"""Trait names: CUSTOM_ prefixing, the os-traits standard vocabulary, validation and limits."""

from __future__ import annotations

import difflib
import re
from functools import cache
from importlib import metadata

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
# The namespaces of the os-traits vocabulary: a name starting with one of these is read as a
# standard trait (tests/test_traits.py checks every standard trait has one).
STANDARD_PREFIXES = ("HW_", "COMPUTE_", "STORAGE_", "MISC_SHARES_", "OWNER_")
# Traits named like this ask Ironic for a deploy template (the deploy templates spec's
# convention).
TEMPLATE_TRAIT_PREFIX = "CUSTOM_BM_CONFIG_"
# Nova's trait extra spec: ``trait`` with an optional group suffix, then the trait's name.
TRAIT_SPEC = re.compile(r"^trait([a-zA-Z0-9_-]{0,64}):(.+)$")


@cache
def standard_traits() -> frozenset[str]:
    """Every standard trait name of the pinned os-traits release."""
    return frozenset(os_traits.get_traits())


@cache
def os_traits_version() -> str:
    """The installed os-traits release, whose vocabulary ``standard_traits`` is."""
    return metadata.version("os-traits")


def looks_standard(name: str) -> bool:
    """Whether ``name`` starts like a standard trait (``HW_``, ``COMPUTE_``, ...) but is not one
    of the installed os-traits release: a misspelt standard trait, or one of a later release
    that this Placement's os-traits does not know either."""
    return name.startswith(STANDARD_PREFIXES) and name not in standard_traits()


def nearest_standard(name: str) -> list[str]:
    """The standard traits most like ``name``, closest first: the two very like it, else the
    one nearest, else none."""
    pool = sorted(standard_traits())
    return difflib.get_close_matches(name, pool, n=2, cutoff=0.85) or difflib.get_close_matches(
        name, pool, n=1, cutoff=0.6
    )


def lookalike_message(name: str) -> str:
    """Why ``name`` (which ``looks_standard``) is refused, with the nearest standard names."""
    near = nearest_standard(name)
    hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
    return f"{name} is not a standard trait of os-traits {os_traits_version()}{hint}"


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
