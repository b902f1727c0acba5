"""Rules for node fields, traits, JSON patches and validation, as Ironic enforces them (pure
functions: the store's column sizes are passed in)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flavorsmith import jsonsafe
from flavorsmith import traits as trait_names
from flavorsmith.errors import Invalid
from flavorsmith.ironic import node_fields
from flavorsmith.ironic.deploy_steps import deploy_problem
from flavorsmith.ironic.deploy_templates import Template
from flavorsmith.ironic.driver_steps import CATALOGUES
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.ironic.patch import patched
from flavorsmith.resource_classes import IRONIC_MAX_LENGTH

# The drivers a node created through the API may use unless ``serve --enabled-drivers`` says
# otherwise: those whose deploy steps ship (ironic/driver_steps.py). Imports and the Ironic
# mirror take any driver: the nodes exist already.
DRIVERS = tuple(CATALOGUES)
# What the driver_info of each driver must hold for power and management to validate.
DRIVER_INFO_REQUIRED = {
    "ipmi": ("ipmi_address",),
    "redfish": ("redfish_address",),
    "idrac": ("redfish_address",),
    "intel-ipmi": ("ipmi_address",),
}
# Ironic's logical names: URL-unreserved characters, and never something shaped like a UUID.
_NAME_RE = re.compile(r"^[A-Za-z0-9\-._~]+$")
# The provision states of a node being made ready for use (enrolled, verified, cleaned,
# inspected) or failed at it: it holds no instance.
_READYING = ("enroll", "verifying", "manageable", "available")
_CLEANING = ("cleaning", "clean wait", "clean failed", "clean hold")
_INSPECTING = ("inspecting", "inspect wait", "inspect failed")
# Every provision state an Ironic 39 node can be in, in Ironic's order.
PROVISION_STATES = (
    *_READYING,
    "active",
    "deploying",
    "wait call-back",
    "deploy failed",
    "deploy hold",
    "deleting",
    *_CLEANING,
    *_INSPECTING,
    "adopting",
    "adopt failed",
    "rescuing",
    "rescue wait",
    "rescue failed",
    "rescue",
    "unrescuing",
    "unrescue failed",
    "servicing",
    "service wait",
    "service failed",
    "service hold",
    "error",
)
# The states of a node that holds no instance: being made ready or failed at it, a failed
# adoption, or in error. Every other state holds (or is getting, or still has) an instance.
UNPROVISIONED_STATES = frozenset({*_READYING, *_CLEANING, *_INSPECTING, "adopt failed", "error"})
PROVISIONED_STATES = frozenset(PROVISION_STATES) - UNPROVISIONED_STATES
# What matching reads of each node of a real Ironic (no driver_info, no properties): what the
# matcher matches on, and what Nova's ironic driver reports to Placement from and reserves a
# node by (its power state). Ask Ironic's node list for these fields and no more.
SCHEDULING_FIELDS = (
    "uuid",
    "name",
    "resource_class",
    "traits",
    "provision_state",
    "power_state",
    "maintenance",
    "instance_uuid",
    "owner",
    "lessee",
)
# Ironic's power states (None: not known yet).
POWER_STATES = ("power on", "power off", "rebooting", "soft rebooting", "soft power off", "error")
# The states in which Ironic changes a node's resource class once it has one (Ironic 39's
# conductor, ``update_node``: Nova would not notice a deployed node changing class).
RESOURCE_CLASS_UPDATE_STATES = ("enroll", "inspecting", "inspect wait", "manageable", "available")
TRAIT_RULE = (
    "a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, "
    f"at most {trait_names.MAX_TRAIT_LENGTH} characters"
)


def canonical_uuid(value: str) -> str:
    """A UUID in its canonical form; anything else as given (it then matches nothing)."""
    return str(uuid.UUID(value)) if is_uuid(value) else value


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
    if not isinstance(driver, str) or not driver:
        raise Invalid(f"'driver' must be the name of a hardware type, not {driver!r}")


def check_enabled_driver(driver: str, enabled: Sequence[str], conductor_group: str) -> None:
    """Refuse a driver that is not enabled, in Ironic's words (clients match on them): no
    conductor of the node's group offers it."""
    if driver not in enabled:
        raise Invalid(
            f"No valid host was found. Reason: No conductor service registered which supports "
            f'driver {driver} for conductor group "{conductor_group}". Ensure the driver is '
            "valid and enabled."
        )


def resource_class_refusal(node: str, current: str | None, state: str | None) -> str | None:
    """Ironic 39's refusal (a 409) to change the resource class of the node ``node`` (its
    UUID) that has ``current`` in provision ``state``, in its words; None when it allows it. A
    node without one may get one in any state, maintenance or not."""
    if not current or state in RESOURCE_CLASS_UPDATE_STATES:
        return None
    return (
        f"Node {node} can not have resource_class updated unless it is in one of allowed "
        f"({', '.join(RESOURCE_CLASS_UPDATE_STATES)}) states. Current state is '{state}'."
    )


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


# Ironic's words for a PUT /nodes/{node}/traits without a list of traits.
SET_TRAITS_HOWTO = (
    "A single node trait may be added via PUT /v1/nodes/<node identifier>/traits/<trait> with "
    "no body, or all node traits may be replaced via PUT /v1/nodes/<node identifier>/traits "
    "with the list of traits specified in the request body."
)


def traits_body(body: Any) -> list[str]:
    """The traits a ``PUT /nodes/{node}/traits`` body sets (None: the request had no body),
    refused in Ironic's words: its schema first, then the list itself."""
    if body is None:
        raise Invalid(SET_TRAITS_HOWTO)
    if not isinstance(body, dict):
        raise Invalid(f"Schema error for body: {body!r} is not of type 'object'")
    extra = [key for key in body if key != "traits"]
    if extra:
        names = ", ".join(repr(key) for key in extra)
        verb = "was" if len(extra) == 1 else "were"
        raise Invalid(
            f"Schema error for body: Additional properties are not allowed ({names} {verb} "
            "unexpected)"
        )
    if "traits" not in body:
        raise Invalid(SET_TRAITS_HOWTO)
    if not isinstance(body["traits"], list):
        raise Invalid(f"Schema error for body: {body['traits']!r} is not of type 'array'")
    return check_trait_list(body["traits"])


def check_trait_list(values: Any) -> list[str]:
    """A validated, de-duplicated trait list in the order given; 400 naming the first bad one."""
    if not isinstance(values, list):
        raise Invalid(f"'traits' must be a list of trait names, not {type(values).__name__}")
    seen: dict[str, None] = {}
    for value in values:
        known = type(value) is str and value in _GOOD_TRAITS
        seen[value if known else _remember(check_trait(value))] = None
    return list(seen)


# Trait names found valid, so a name an inventory tool sends again and again is checked once
# (a set lookup rather than the pattern); kept at most _REMEMBERED long.
_GOOD_TRAITS: set[str] = set()
_REMEMBERED = 10_000


def _remember(trait: str) -> str:
    if len(_GOOD_TRAITS) >= _REMEMBERED:
        _GOOD_TRAITS.clear()
    _GOOD_TRAITS.add(trait)
    return trait


def check_trait_count(node_uuid: str, traits: Iterable[str]) -> None:
    count = len(set(traits))
    if count > trait_names.MAX_TRAITS_PER_NODE:
        raise Invalid(
            f"Could not modify traits for node {node_uuid}: it would have {count} traits, "
            f"more than the maximum of {trait_names.MAX_TRAITS_PER_NODE}"
        )


def check_provision_state(values: Mapping[str, Any]) -> None:
    """FieldInvalid unless ``values`` has no provision_state or one Ironic has."""
    state = values.get("provision_state", "enroll")
    if state not in PROVISION_STATES:
        raise FieldInvalid(
            "provision_state",
            f"unknown provision state {state!r}; allowed: {', '.join(PROVISION_STATES)}",
        )


def check_power_state(values: Mapping[str, Any]) -> None:
    """FieldInvalid unless ``values`` has no power_state, null or one Ironic has."""
    state = values.get("power_state")
    if state is not None and state not in POWER_STATES:
        raise FieldInvalid(
            "power_state",
            f"unknown power state {state!r}; allowed: {', '.join(POWER_STATES)} or null",
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
UUID_FIELDS = ("uuid", "instance_uuid", "chassis_uuid")


def checked_node(values: Mapping[str, Any], lengths: Mapping[str, int]) -> dict[str, Any]:
    """The node fields in ``values`` (a create, a patched node, an imported entry), checked
    and normalised in one place: Ironic's rules per field, UUIDs in their canonical form
    (Ironic takes braces and urn:uuid: too, which overflow a 36-character column), values
    every database can store (see jsonsafe) and no text longer than its column (``lengths``:
    the longest text each stored field holds)."""
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
    for field in node_fields.CHECKED & out.keys():
        out[field] = _checked(field, out[field])
    if out.get("parent_node") is not None and not isinstance(out["parent_node"], str):
        raise FieldInvalid("parent_node", "'parent_node' must be a node's UUID or name")
    for field in TEXT_FIELDS:
        if out.get(field) is not None and not isinstance(out[field], str):
            raise FieldInvalid(field, f"'{field}' must be a string")
    try:
        jsonsafe.check_value("", out)  # one walk; the field's own below names the problem
    except Invalid:
        for field, value in out.items():
            _field(field, lambda v, f=field: jsonsafe.check_value(f, v), value)
    _check_lengths(out, lengths)
    return out


def _field(field: str, check: Any, value: Any) -> None:
    try:
        check(value)
    except FieldInvalid:
        raise
    except Invalid as exc:
        raise FieldInvalid(field, exc.message) from None


def _checked(field: str, value: Any) -> Any:
    try:
        return node_fields.normalise(field, value)
    except Invalid as exc:
        raise FieldInvalid(field, exc.message) from None


def _uuid(field: str, value: Any) -> str:
    if not isinstance(value, str) or not is_uuid(value):
        shown = jsonsafe.excerpt(value) if isinstance(value, str) else repr(value)[:60]
        if field == "uuid":
            raise FieldInvalid(field, f"Invalid UUID {shown}")
        raise FieldInvalid(field, f"Expected a UUID for {field} but received {shown}.")
    return str(uuid.UUID(value))


def _check_lengths(values: Mapping[str, Any], lengths: Mapping[str, int]) -> None:
    """No text longer than its column (PostgreSQL refuses it; SQLite would keep it)."""
    over = {
        name
        for name, value in values.items()
        if isinstance(value, str) and name in lengths and len(value) > lengths[name]
    }
    if not over:
        return
    for name, length in lengths.items():  # the first in the columns' order
        value = values.get(name)
        if name in over and isinstance(value, str):
            raise FieldInvalid(
                name, f"'{name}' is {len(value)} characters long; at most {length} are allowed"
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


# -- create, patch, validate ------------------------------------------------------------------

# The data fields a create and a patch both set (Ironic's node schema, minus the conductor's
# console_enabled).
_DATA_FIELDS = (
    "automated_clean",
    "chassis_uuid",
    "conductor_group",
    "description",
    "disable_power_off",
    "driver",
    "driver_info",
    "extra",
    "instance_info",
    "instance_name",
    "instance_uuid",
    "lessee",
    "maintenance",
    "name",
    "network_data",
    "owner",
    "parent_node",
    "properties",
    "resource_class",
    "retired",
    "retired_reason",
    "shard",
    *node_fields.INTERFACE_FIELDS,
)
# boot_mode and secure_boot are the conductor's to change, but a create may set them.
CREATE_FIELDS = frozenset({"uuid", "boot_mode", "secure_boot", *_DATA_FIELDS})
PATCHABLE = tuple(sorted({"maintenance_reason", "protected", "protected_reason", *_DATA_FIELDS}))
INTERFACES = (
    "boot",
    "deploy",
    "management",
    "network",
    "power",
    "bios",
    "console",
    "firmware",
    "inspect",
    "raid",
    "rescue",
    "storage",
)


def checked_whole_node(values: Mapping[str, Any], lengths: Mapping[str, int]) -> dict[str, Any]:
    """The whole node after a create or patch, checked field by field and normalised."""
    if "driver" not in values:
        raise Invalid("'driver' is a required property")
    return checked_node(values, lengths)


def new_node(body: Any, lengths: Mapping[str, int], *, enroll: bool) -> dict[str, Any]:
    """The values of a node created from a request ``body``: only the fields a new node may
    set (the caller checks them against the API version), the interfaces Ironic would default
    and the initial provision state (``enroll`` from API version 1.11, ``available`` before)."""
    if not isinstance(body, dict):
        raise Invalid("The request body must be a JSON object describing the node")
    unknown = sorted(set(body) - CREATE_FIELDS)
    if unknown:
        raise Invalid(
            f"Unknown node field {unknown[0]!r}; a new node may set: "
            f"{', '.join(sorted(CREATE_FIELDS))}"
        )
    if "driver" not in body:
        raise Invalid("'driver' is a required property")
    values = checked_whole_node(body, lengths)
    values.update(node_fields.default_interfaces(values))
    values["provision_state"] = "enroll" if enroll else "available"
    return values


def apply_patch(row: Mapping[str, Any], patch: Any, lengths: Mapping[str, int]) -> dict[str, Any]:
    """The changed fields after a JSON patch restricted to Ironic's patchable paths."""
    document = patched(
        row,
        patch,
        noun="node",
        patchable=PATCHABLE,
        required={"/driver": "a node always has a driver"},
        allow_empty=True,
    )
    for name in PATCHABLE:
        document.setdefault(name, {} if name in MAPPING_FIELDS else node_fields.EMPTY.get(name))
    result = checked_whole_node(document, lengths)
    return node_fields.checked_update(row, {k: v for k, v in result.items() if row[k] != v})


def instance_trait_names(instance_info: Mapping[str, Any]) -> list[str]:
    """The trait names in ``instance_info.traits`` (the deploy templates they may name)."""
    wanted = instance_info.get("traits")
    return [t for t in wanted if isinstance(t, str)] if isinstance(wanted, list) else []


def validation(
    row: Mapping[str, Any], traits: Sequence[str], templates: Sequence[Template] = ()
) -> dict[str, dict[str, Any]]:
    """Per-interface results as Ironic reports them; ``templates`` are the deploy templates
    named by the node's instance traits."""
    results: dict[str, dict[str, Any]] = {name: {"result": True} for name in INTERFACES}
    missing = [
        k for k in DRIVER_INFO_REQUIRED.get(row["driver"], ()) if k not in row["driver_info"]
    ]
    if missing:
        reason = (
            f"Some parameters were missing in node's driver_info. Missing are: {', '.join(missing)}"
        )
        for name in ("power", "management"):
            results[name] = {"result": False, "reason": reason}
    problem = instance_trait_problem(row["uuid"], row["instance_info"], set(traits))
    if not problem and templates:
        problem = deploy_problem(row["driver"], templates, row["instance_info"]["traits"])
    if problem:
        results["deploy"] = {"result": False, "reason": problem}
    return results
