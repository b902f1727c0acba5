"""The framework's rules, over a database connection and the enabled providers.

Better than Octavia where it is wrong: a flavor pointing at a missing profile is a 400 (not a
500 with raw SQL), a rename onto an existing name is a 409 (not a 500), a profile's null name
is refused (a flavor's may be null, as in Octavia), moving an unused profile to another
provider re-validates its data, resolution re-validates the profile with the driver at every
use, and a flavor on Octavia's nil placeholder profile (``store.NIL``) resolves to a clear
400 rather than Octavia's bare "Provider 'DELETED' is not enabled."."""

from __future__ import annotations

import uuid as uuidlib
from typing import Any

from flavorsmith.db.engine import Connection
from flavorsmith.errors import Conflict, Invalid, NotFound
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.providers.registry import DriverRegistry
from flavorsmith.providers.validation import expand, parse_flavor_data, validate
from flavorsmith.store import service_flavors as store

PROFILE_CREATE = {"id", "name", "provider_name", "flavor_data"}
PROFILE_UPDATE = {"name", "provider_name", "flavor_data"}
FLAVOR_CREATE = {"id", "name", "description", "enabled", "flavor_profile_id"}
FLAVOR_UPDATE = {"name", "description", "enabled"}


def _known(values: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise Invalid(
            f"Unknown attribute for {what}: {unknown[0]}; allowed: {', '.join(sorted(allowed))}"
        )


def _text(values: dict[str, Any], key: str, *, required: bool, nullable: bool) -> None:
    if key not in values:
        if required:
            raise Invalid(f"Mandatory field missing: {key}")
        return
    value = values[key]
    if value is None:
        if not nullable:
            raise Invalid(f"{key} may not be null")
        return
    if not isinstance(value, str):
        raise Invalid(f"{key} must be a string, not {type(value).__name__}")
    if len(value) > 255:
        raise Invalid(f"{key} is {len(value)} characters long; at most 255 are allowed")


def _new_id(values: dict[str, Any]) -> str:
    given = values.get("id")
    if given is None:
        return str(uuidlib.uuid4())
    if not isinstance(given, str) or not is_uuid(given):
        raise Invalid(f"id {given!r} is not a UUID")
    ident = str(uuidlib.UUID(given))
    if ident == store.NIL:
        raise Invalid(f"id {ident} is reserved for Octavia's placeholder")
    return ident


def check_profile(registry: DriverRegistry, provider_name: Any, flavor_data: Any) -> None:
    if not isinstance(provider_name, str):
        raise Invalid("provider_name must be a string")
    provider = registry.get(provider_name)
    validate(provider, parse_flavor_data(flavor_data))


def create_profile(
    connection: Connection, registry: DriverRegistry, values: dict[str, Any]
) -> dict[str, Any]:
    _known(values, PROFILE_CREATE, "flavorprofile")
    _text(values, "name", required=True, nullable=False)
    for key in ("provider_name", "flavor_data"):
        if values.get(key) is None:
            raise Invalid(f"Mandatory field missing: {key}")
    check_profile(registry, values["provider_name"], values["flavor_data"])
    row = {
        "id": _new_id(values),
        "name": values["name"],
        "provider_name": values["provider_name"],
        "flavor_data": values["flavor_data"],
    }
    if not store.insert_profile(connection, row):
        raise Conflict(f"A flavor profile with id {row['id']} already exists.")
    return row


def update_profile(
    connection: Connection, registry: DriverRegistry, ident: str, values: dict[str, Any]
) -> dict[str, Any]:
    _known(values, PROFILE_UPDATE, "flavorprofile")
    for key in ("name", "provider_name", "flavor_data"):
        # Octavia 19, api/v2/controllers/flavor_profiles.py lines 133-140, in this order.
        if key in values and values[key] is None:
            raise Invalid(f"None is not a valid option for {key}")
    _text(values, "name", required=False, nullable=False)
    row = store.profile(connection, ident, lock=True)
    frozen = {k for k in ("provider_name", "flavor_data") if k in values and values[k] != row[k]}
    if frozen and store.profile_in_use(connection, ident):
        raise Conflict(f"Flavor profile {ident} is in use and cannot be modified.")
    if frozen:
        check_profile(
            registry,
            values.get("provider_name", row["provider_name"]),
            values.get("flavor_data", row["flavor_data"]),
        )
    changes = {k: v for k, v in values.items() if row[k] != v}
    if changes:
        store.update_profile(connection, ident, changes)
    return {**row, **changes}


def delete_profile(connection: Connection, ident: str) -> None:
    try:
        store.profile(connection, ident, lock=True)
    except NotFound:
        # Octavia 19, api/v2/controllers/flavor_profiles.py line 236: lower-case "profile".
        raise NotFound(f"Flavor profile {ident} not found.") from None
    if store.profile_in_use(connection, ident):
        raise Conflict(f"Flavor profile {ident} is in use and cannot be modified.")
    if not store.delete_profile(connection, ident):  # a flavor was created on it meanwhile
        raise Conflict(f"Flavor profile {ident} is in use and cannot be modified.")


def _enabled(values: dict[str, Any]) -> None:
    if "enabled" in values and not isinstance(values["enabled"], bool):
        raise Invalid(f"enabled must be true or false, not {values['enabled']!r}")


def create_flavor(connection: Connection, values: dict[str, Any]) -> dict[str, Any]:
    _known(values, FLAVOR_CREATE, "flavor")
    _text(values, "name", required=True, nullable=True)
    _text(values, "description", required=False, nullable=True)
    _enabled(values)
    profile_id = values.get("flavor_profile_id")
    if profile_id is None:
        raise Invalid("Mandatory field missing: flavor_profile_id")
    if not isinstance(profile_id, str) or not is_uuid(profile_id):
        # wsme/types.py line 278 (UuidType), as Octavia 19 answers it.
        raise Invalid(
            f"Invalid input for field/attribute flavor_profile_id. Value: {profile_id!r}. "
            "Value should be UUID format"
        )
    try:
        store.profile(connection, profile_id, placeholder=True)
    except NotFound:
        raise Invalid(f"Flavor profile {profile_id} not found.") from None
    if values["name"] is not None and store.flavor_named(connection, values["name"]) is not None:
        raise Conflict(f"A flavor of {values['name']} already exists.")
    row = {
        "id": _new_id(values),
        "name": values["name"],
        "description": values.get("description"),
        "enabled": values.get("enabled", True),
        "flavor_profile_id": profile_id,
    }
    if not store.insert_flavor(connection, row):
        # The profile was deleted meanwhile, or the name or id is taken (as Octavia words it).
        try:
            store.profile(connection, profile_id, placeholder=True)
        except NotFound:
            raise Invalid(f"Flavor profile {profile_id} not found.") from None
        raise Conflict(f"A flavor of {values['name']} already exists.")
    return row


def update_flavor(connection: Connection, ident: str, values: dict[str, Any]) -> dict[str, Any]:
    if "flavor_profile_id" in values:
        raise Invalid("flavor_profile_id cannot be changed: create a new flavor instead")
    _known(values, FLAVOR_UPDATE, "flavor")
    _text(values, "name", required=False, nullable=True)
    _text(values, "description", required=False, nullable=True)
    _enabled(values)
    row = store.flavor(connection, ident, lock=True)
    if values.get("name") is not None and values["name"] != row["name"]:
        other = store.flavor_named(connection, values["name"])
        if other is not None:
            raise Conflict(f"A flavor of {values['name']} already exists.")
    changes = {k: v for k, v in values.items() if row[k] != v}
    if changes and not store.update_flavor(connection, ident, changes):
        raise Conflict(f"A flavor of {values.get('name')} already exists.")
    return {**row, **changes}


def delete_flavor(connection: Connection, ident: str) -> None:
    store.flavor(connection, ident, lock=True)
    store.delete_flavor(connection, ident)


def resolve(
    connection: Connection,
    registry: DriverRegistry,
    ident: str,
    provider: str | None = None,
    *,
    with_profile: bool = True,
) -> dict[str, Any]:
    """What a consumer needs at use time: the provider and the expanded metadata, after
    validating the profile with the driver again (a driver upgrade may now refuse it).

    Without ``with_profile`` the answer (and every refusal) is the same, but the profile's
    content is left out: its flavor data and the metadata it expands to (node names for the
    baremetal provider), which Octavia shows to admins only."""
    flavor = store.flavor(connection, ident)
    if not flavor["enabled"]:
        raise Invalid(
            f"The selected flavor is not allowed in this deployment: {flavor['name'] or ''}"
        )
    if flavor["flavor_profile_id"] == store.NIL:
        raise Invalid(
            f"Flavor '{flavor['id']}' cannot be used: its profile {store.NIL} is Octavia's "
            "placeholder, with no provider (provider 'DELETED' is not enabled)"
        )
    profile = store.profile(connection, flavor["flavor_profile_id"])
    if provider is not None and provider != profile["provider_name"]:
        raise Invalid(
            f"Flavor '{flavor['id']}' is not compatible with provider '{provider}': its "
            f"profile uses provider '{profile['provider_name']}'"
        )
    driver = registry.get(profile["provider_name"])
    data = parse_flavor_data(profile["flavor_data"])
    validate(driver, data)
    metadata = expand(driver, data)
    result: dict[str, Any] = {
        "flavor_id": flavor["id"],
        "flavor_name": flavor["name"],
        "flavor_profile_id": profile["id"],
        "provider": profile["provider_name"],
    }
    if with_profile:
        result |= {"flavor_data": data, "metadata": metadata}
    return result
