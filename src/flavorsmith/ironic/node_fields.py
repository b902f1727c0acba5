"""Rules for the data fields of an Ironic node beyond the scheduling ones: ownership, conductor
group, retirement, protection, sharding, network data and the hardware interfaces, as Ironic 39
checks them (pure functions)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flavorsmith.errors import Conflict, Invalid
from flavorsmith.query_values import FALSE_WORDS, TRUE_WORDS

INTERFACES = (
    "bios",
    "boot",
    "console",
    "deploy",
    "firmware",
    "inspect",
    "management",
    "network",
    "power",
    "raid",
    "rescue",
    "storage",
    "vendor",
)
INTERFACE_FIELDS = tuple(f"{name}_interface" for name in INTERFACES)
# What Ironic 39 picks for a fake-hardware node that names no interface, with fake-hardware's
# fake interfaces enabled (noop network, noop storage): the first enabled interface the
# hardware type supports. Other drivers depend on the deployment's enabled interfaces, which
# this service cannot know: their unnamed interfaces stay null.
FAKE_HARDWARE_DEFAULTS: dict[str, str] = {
    **{field: "fake" for field in INTERFACE_FIELDS},
    "network_interface": "noop",
    "storage_interface": "noop",
}
# Strings or null; their lengths are the store's columns.
STRING_FIELDS = (
    "owner",
    "lessee",
    "shard",
    "instance_name",
    "boot_mode",
    "retired_reason",
    "protected_reason",
    *INTERFACE_FIELDS,
)
# true or false; null means false (Ironic stores false for an unset protected).
FLAGS = ("maintenance", "protected", "retired", "disable_power_off")
# true, false or null.
OPTIONAL_FLAGS = ("automated_clean", "secure_boot")
# What a field holds when a create leaves it out or a patch removes it.
EMPTY: dict[str, Any] = {
    "conductor_group": "",
    "network_data": {},
    **{flag: False for flag in FLAGS},
}
_CONDUCTOR_GROUP = re.compile(r"^[a-zA-Z0-9_\-.]*$")


def flag(field: str, value: Any, *, optional: bool = False) -> bool | None:
    """A boolean field: true/false, or one of Ironic's boolean strings; null is false, or
    stays null for an ``optional`` one."""
    if value is None:
        return None if optional else False
    if isinstance(value, bool):
        return value
    # Ironic's strict boolean strings (oslo strutils), accepted wherever a flag is.
    word = value.strip().lower() if isinstance(value, str) else None
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise Invalid(f"'{field}' must be true or false (or null), not {value!r}")


def conductor_group(value: Any) -> str:
    """Letters, digits, '_', '-' and '.', lowercased (Ironic compares groups lowercased)."""
    if value is None:
        return ""
    if not isinstance(value, str) or not _CONDUCTOR_GROUP.fullmatch(value):
        raise Invalid(
            f"Expected a conductor group but received {value!r}: use letters, digits, "
            "'_', '-' and '.'"
        )
    return value.lower()


def string(field: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"'{field}' must be a string or null, not {type(value).__name__}")
    if field in INTERFACE_FIELDS and not value:
        raise Invalid(f"'{field}' must name an interface (or be null to use the default)")
    if field == "instance_name" and not value:
        raise Invalid("'instance_name' must be at least 1 character long (or null)")
    return value


def network_data(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Invalid(f"'network_data' must be an object, not {type(value).__name__}")
    return value


CHECKED = frozenset({*FLAGS, *OPTIONAL_FLAGS, *STRING_FIELDS, "conductor_group", "network_data"})


def normalise(field: str, value: Any) -> Any:
    """One data field (one of CHECKED) checked and in its stored form; ``Invalid`` when it
    cannot be stored."""
    if field in FLAGS:
        return flag(field, value)
    if field in OPTIONAL_FLAGS:
        return flag(field, value, optional=True)
    if field == "conductor_group":
        return conductor_group(value)
    if field == "network_data":
        return network_data(value)
    return string(field, value)


def default_interfaces(values: Mapping[str, Any]) -> dict[str, Any]:
    """The interfaces a new node gets where it names none: Ironic's fake-hardware defaults
    for fake-hardware, null (unknown) for the others."""
    if values.get("driver") != "fake-hardware":
        return {}
    return {f: d for f, d in FAKE_HARDWARE_DEFAULTS.items() if values.get(f) is None}


# Where a node's interfaces may change (else only in maintenance), as Ironic's conductor.
INTERFACE_STATES = ("enroll", "inspecting", "inspect wait", "manageable", "available")


def checked_update(row: Mapping[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` after Ironic's update rules: leaving maintenance clears its reason;
    clearing protection or retirement clears its reason; a node is protected only when active
    or in rescue, never retired while available; a reason needs its flag; interfaces change
    only in the states Ironic allows or in maintenance (409 for a state, 400 otherwise)."""
    out = dict(changes)
    if "maintenance" in out and not out["maintenance"] and row.get("maintenance_reason"):
        out["maintenance_reason"] = None
    after = {**row, **out}
    interfaces = sorted(f for f in out if f in INTERFACE_FIELDS)
    state = after.get("provision_state")
    if interfaces and state not in INTERFACE_STATES and not after.get("maintenance"):
        raise Conflict(
            f"Node {row['uuid']} can not have {interfaces[0]} updated unless it is in one "
            f"of allowed ({', '.join(INTERFACE_STATES)}) states or in maintenance mode. "
            f"Current state is '{state}'."
        )
    for flag_name, reason in (("protected", "protected_reason"), ("retired", "retired_reason")):
        if flag_name in out and not after[flag_name] and after[reason] is not None:
            out[reason] = None
            after[reason] = None
    if out.get("protected") and state not in ("active", "rescue"):
        raise Conflict(
            f"Node {row['uuid']} can only be made protected in provision states 'active' or "
            f"'rescue', the current state is '{state}'"
        )
    if out.get("retired") and state == "available":
        raise Conflict(
            f"Node {row['uuid']} can not have 'retired' set in provision state 'available', "
            f"the current state is '{state}'"
        )
    for flag_name, reason in (("protected", "protected_reason"), ("retired", "retired_reason")):
        if out.get(reason) and not after[flag_name]:
            raise Invalid(f"The {reason} field can only be set when {flag_name} is True")
    return {k: v for k, v in out.items() if row.get(k) != v}
