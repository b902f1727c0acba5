"""Nodes as Ironic shows them: fields appear at the microversion Ironic added them, and
``fields=`` picks them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flavorsmith.api.links import link
from flavorsmith.api.microversions import Version
from flavorsmith.api.query import Query
from flavorsmith.errors import NotAcceptable

V = Version
# Every node field and the version that introduced it (Ironic's VERSIONED_FIELDS).
FIELDS: dict[str, Version] = {
    "uuid": V(1, 1),
    "created_at": V(1, 1),
    "updated_at": V(1, 1),
    "chassis_uuid": V(1, 1),
    "console_enabled": V(1, 1),
    "driver": V(1, 1),
    "driver_info": V(1, 1),
    "extra": V(1, 1),
    "instance_info": V(1, 1),
    "instance_uuid": V(1, 1),
    "last_error": V(1, 1),
    "maintenance": V(1, 1),
    "maintenance_reason": V(1, 1),
    "power_state": V(1, 1),
    "properties": V(1, 1),
    "provision_state": V(1, 1),
    "provision_updated_at": V(1, 1),
    "reservation": V(1, 1),
    "target_power_state": V(1, 1),
    "target_provision_state": V(1, 1),
    "driver_internal_info": V(1, 3),
    "name": V(1, 5),
    "inspection_finished_at": V(1, 6),
    "inspection_started_at": V(1, 6),
    "clean_step": V(1, 7),
    "raid_config": V(1, 12),
    "target_raid_config": V(1, 12),
    "network_interface": V(1, 20),
    "resource_class": V(1, 21),
    "boot_interface": V(1, 31),
    "console_interface": V(1, 31),
    "deploy_interface": V(1, 31),
    "inspect_interface": V(1, 31),
    "management_interface": V(1, 31),
    "power_interface": V(1, 31),
    "raid_interface": V(1, 31),
    "vendor_interface": V(1, 31),
    "storage_interface": V(1, 33),
    "traits": V(1, 37),
    "rescue_interface": V(1, 38),
    "bios_interface": V(1, 40),
    "fault": V(1, 42),
    "deploy_step": V(1, 44),
    "conductor_group": V(1, 46),
    "automated_clean": V(1, 47),
    "protected": V(1, 48),
    "protected_reason": V(1, 48),
    "conductor": V(1, 49),
    "owner": V(1, 50),
    "description": V(1, 51),
    "allocation_uuid": V(1, 52),
    "retired": V(1, 61),
    "retired_reason": V(1, 61),
    "lessee": V(1, 65),
    "network_data": V(1, 66),
    "boot_mode": V(1, 75),
    "secure_boot": V(1, 75),
    "shard": V(1, 82),
    "parent_node": V(1, 83),
    "firmware_interface": V(1, 86),
    "service_step": V(1, 87),
    "disable_power_off": V(1, 95),
    "instance_name": V(1, 104),
    "health": V(1, 109),
}
# The conductor's working state: this service runs no conductor, so a node shows what an
# idle Ironic node shows (no lock, no step, no fault, no console, no allocation).
CONDUCTOR_STATE: dict[str, Any] = {
    "allocation_uuid": None,
    "clean_step": {},
    "conductor": None,
    "console_enabled": False,
    "deploy_step": {},
    "driver_internal_info": {},
    "fault": None,
    "health": None,
    "inspection_finished_at": None,
    "inspection_started_at": None,
    "raid_config": {},
    "reservation": None,
    "service_step": {},
    "target_raid_config": {},
}
# What a plain list shows.
SHORT = ("uuid", "instance_uuid", "maintenance", "power_state", "provision_state", "name")


def available(version: Version) -> list[str]:
    return [name for name, since in FIELDS.items() if version >= since]


def fields(query: Query, version: Version) -> list[str] | None:
    """The ``fields=`` list: 400 for a name Ironic has not got, 406 for one newer than asked."""
    if "fields" not in query:
        return None
    if version < V(1, 8):
        raise NotAcceptable("The fields parameter needs API version 1.8 or later.")
    wanted = query.fields(FIELDS, "Unknown node field(s) {unknown} in fields; known: {known}")
    assert wanted is not None
    too_new = [f for f in wanted if version < FIELDS[f]]
    if too_new:
        raise NotAcceptable(
            f"Field {too_new[0]!r} needs API version {FIELDS[too_new[0]]} or later "
            f"(this request asked for {version})"
        )
    return wanted  # only these (and the links), as Ironic: uuid too only when asked for


def timestamp(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite keeps no zone; every stored time is UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


TIMESTAMPS = ("created_at", "updated_at", "provision_updated_at")


def stored(fields: list[str]) -> list[str]:
    """The stored columns that showing ``fields`` reads (the traits and the conductor's
    state are not columns)."""
    return [f for f in fields if f != "traits" and f not in CONDUCTOR_STATE]


def nodes(rows: list[dict[str, Any]], fields: list[str], root: str) -> list[dict[str, Any]]:
    """Many nodes as ``node`` shows each (rows that hold their ``traits``), with the work
    that is the same for every node done once: a page of a list is a thousand of them."""
    constant = {f: CONDUCTOR_STATE[f] for f in fields if f in CONDUCTOR_STATE}
    times = [f for f in fields if f in TIMESTAMPS]
    plain = [f for f in fields if f not in constant and f not in times]
    if not constant and not times:
        order: list[str] | None = None
    else:
        order = fields
    self_root, bookmark_root = f"{root}/v1/nodes/", f"{root}/nodes/"
    out = []
    for row in rows:
        shown: dict[str, Any] = {f: row[f] for f in plain}
        for f in times:
            shown[f] = timestamp(row[f])
        if order is not None:
            shown = {f: shown[f] if f in shown else constant[f] for f in order}
        uuid = row["uuid"]
        shown["links"] = [
            {"href": self_root + uuid, "rel": "self"},
            {"href": bookmark_root + uuid, "rel": "bookmark"},
        ]
        out.append(shown)
    return out


def node(
    row: dict[str, Any], traits: list[str] | None, fields: list[str], root: str
) -> dict[str, Any]:
    """One node with the given fields and its links; ``root`` is .../baremetal."""
    out: dict[str, Any] = {}
    for name in fields:
        if name == "traits":
            out[name] = traits or []
        elif name in CONDUCTOR_STATE:
            out[name] = CONDUCTOR_STATE[name]
        elif name in TIMESTAMPS:
            out[name] = timestamp(row[name])
        else:
            out[name] = row[name]
    out["links"] = [
        link(f"{root}/v1/nodes/{row['uuid']}", "self"),
        link(f"{root}/nodes/{row['uuid']}", "bookmark"),
    ]
    return out
