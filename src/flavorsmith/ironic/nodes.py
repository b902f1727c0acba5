"""Rules for node fields and traits, as Ironic enforces them (pure functions)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from flavorsmith import jsonsafe
from flavorsmith import traits as trait_names
from flavorsmith.db.models import Node
from flavorsmith.errors import Invalid
from flavorsmith.resource_classes import IRONIC_MAX_LENGTH

# Drivers this service knows (Ironic refuses a driver no conductor offers).
DRIVERS = ("fake-hardware", "ipmi", "redfish", "idrac", "ilo", "irmc", "manual-management")
# What the driver_info of each driver must hold for power and management to validate.
DRIVER_INFO_REQUIRED = {
    "ipmi": ("ipmi_address",),
    "redfish": ("redfish_address",),
    "idrac": ("redfish_address",),
    "ilo": ("ilo_address",),
    "irmc": ("irmc_address",),
}
# Ironic's logical names: URL-unreserved characters, and never something shaped like a UUID.
_NAME_RE = re.compile(r"^[A-Za-z0-9\-._~]+$")
PROVISION_STATES = (
    "enroll",
    "manageable",
    "available",
    "active",
    "deploying",
    "wait call-back",
    "deploy failed",
    "cleaning",
    "clean wait",
    "clean failed",
    "inspecting",
    "inspect failed",
    "error",
)
PROVISIONED_STATES = frozenset({"active", "deploying", "wait call-back", "deploy failed"})
TRAIT_RULE = (
    "a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, "
    f"at most {trait_names.MAX_TRAIT_LENGTH} characters"
)


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def check_name(name: Any) -> None:
    if name is None:
        return
    if not isinstance(name, str) or not name or len(name) > 255 or not _NAME_RE.fullmatch(name):
        raise Invalid(
            f"Cannot use {name!r} as a node name: use 1 to 255 letters, digits, '-', '.', '_' "
            "or '~'"
        )
    if is_uuid(name):
        raise Invalid(f"Cannot use {name!r} as a node name: it looks like a UUID")


def check_driver(driver: Any) -> None:
    if not isinstance(driver, str) or driver not in DRIVERS:
        raise Invalid(f"Unknown driver {driver!r}; enabled drivers: {', '.join(DRIVERS)}")


def check_resource_class(value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, str) or len(value) > IRONIC_MAX_LENGTH:
        raise Invalid(
            f"Invalid resource_class {value!r}: a string of at most {IRONIC_MAX_LENGTH} characters"
        )


def check_trait(trait: Any) -> str:
    if not isinstance(trait, str) or not trait_names.is_valid_node_trait(trait):
        hint = ""
        if isinstance(trait, str):
            short = re.sub(r"[^0-9A-Za-z]+", "_", trait).upper().strip("_").removeprefix("CUSTOM_")
            if short and trait_names.is_valid_node_trait("CUSTOM_" + short):
                hint = f" (did you mean 'CUSTOM_{short}'?)"
        raise Invalid(f"Invalid trait {trait!r}: {TRAIT_RULE}{hint}")
    return trait


def check_trait_list(values: Any) -> list[str]:
    """A validated, de-duplicated trait list in the order given; 400 naming the first bad one."""
    if not isinstance(values, list):
        raise Invalid(f"'traits' must be a list of trait names, not {type(values).__name__}")
    seen: dict[str, None] = {}
    for value in values:
        seen[check_trait(value)] = None
    return list(seen)


def check_trait_count(node_uuid: str, traits: Iterable[str]) -> None:
    count = len(set(traits))
    if count > trait_names.MAX_TRAITS_PER_NODE:
        raise Invalid(
            f"Could not modify traits for node {node_uuid}: it would have {count} traits, "
            f"more than the maximum of {trait_names.MAX_TRAITS_PER_NODE}"
        )


def check_mapping(field: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise Invalid(f"'{field}' must be an object, not {type(value).__name__}")


class FieldInvalid(Invalid):
    """A node field that cannot be stored; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


TEXT_FIELDS = ("description", "maintenance_reason")
MAPPING_FIELDS = ("properties", "instance_info", "driver_info", "extra")
UUID_FIELDS = ("uuid", "instance_uuid")


def checked_node(values: Mapping[str, Any]) -> dict[str, Any]:
    """The node fields in ``values`` (a create, a patched node, an imported entry), checked
    and normalised in one place: Ironic's rules per field, UUIDs in their canonical form
    (Ironic takes braces and urn:uuid: too, which overflow a 36-character column), values
    every database can store (see jsonsafe) and no text longer than its column."""
    out = dict(values)
    checks: dict[str, Any] = {
        "driver": check_driver,
        "name": check_name,
        "resource_class": check_resource_class,
    }
    for field, check in checks.items():
        if field in out:
            _field(field, check, out[field])
    for field in MAPPING_FIELDS:
        if field in out:
            _field(field, lambda v, f=field: check_mapping(f, v), out[field])
    for field in UUID_FIELDS:
        if out.get(field) is not None:
            out[field] = _uuid(field, out[field])
    if not isinstance(out.get("maintenance", False), bool):
        raise FieldInvalid("maintenance", "'maintenance' must be true or false")
    for field in TEXT_FIELDS:
        if out.get(field) is not None and not isinstance(out[field], str):
            raise FieldInvalid(field, f"'{field}' must be a string")
    for field, value in out.items():
        _field(field, lambda v, f=field: jsonsafe.check_value(f, v), value)
    _check_lengths(out)
    return out


def _field(field: str, check: Any, value: Any) -> None:
    try:
        check(value)
    except FieldInvalid:
        raise
    except Invalid as exc:
        raise FieldInvalid(field, exc.message) from None


def _uuid(field: str, value: Any) -> str:
    if not isinstance(value, str) or not is_uuid(value):
        shown = jsonsafe.excerpt(value) if isinstance(value, str) else repr(value)[:60]
        if field == "uuid":
            raise FieldInvalid(field, f"Invalid UUID {shown}")
        raise FieldInvalid(field, f"Expected a UUID for {field} but received {shown}.")
    return str(uuid.UUID(value))


def _check_lengths(values: Mapping[str, Any]) -> None:
    """No text longer than its column (PostgreSQL refuses it; SQLite would keep it)."""
    for column in Node.__table__.columns:
        length = getattr(column.type, "length", None)
        value = values.get(column.name)
        if length and isinstance(value, str) and len(value) > length:
            raise FieldInvalid(
                column.name,
                f"'{column.name}' is {len(value)} characters long; at most {length} are allowed",
            )


def instance_trait_problem(node_uuid: str, instance_info: dict[str, Any], traits: set[str]) -> str:
    """Why ``instance_info.traits`` cannot deploy on this node, or '' when it can."""
    if "traits" not in instance_info:
        return ""
    wanted = instance_info["traits"]
    if not isinstance(wanted, list) or not all(isinstance(t, str) for t in wanted):
        return (
            f"Error parsing traits from Node {node_uuid} instance_info field. "
            "A list of strings is expected."
        )
    missing = [t for t in wanted if t not in traits]
    if missing:
        return (
            "Cannot specify instance traits that are not also set on the node. "
            f"Node {node_uuid} is missing traits {', '.join(missing)}"
        )
    return ""
