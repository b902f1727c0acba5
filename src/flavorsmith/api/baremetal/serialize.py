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
# Every node field and the version that introduced it.
FIELDS: dict[str, Version] = {
    "uuid": V(1, 1),
    "created_at": V(1, 1),
    "updated_at": V(1, 1),
    "description": V(1, 51),
    "driver": V(1, 1),
    "driver_info": V(1, 1),
    "extra": V(1, 1),
    "instance_info": V(1, 1),
    "instance_uuid": V(1, 1),
    "last_error": V(1, 1),
    "maintenance": V(1, 1),
    "maintenance_reason": V(1, 1),
    "name": V(1, 5),
    "power_state": V(1, 1),
    "properties": V(1, 1),
    "provision_state": V(1, 1),
    "provision_updated_at": V(1, 1),
    "resource_class": V(1, 21),
    "target_power_state": V(1, 1),
    "target_provision_state": V(1, 1),
    "traits": V(1, 37),
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
    if "uuid" not in wanted:
        wanted.insert(0, "uuid")
    return wanted


def timestamp(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite keeps no zone; every stored time is UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def node(
    row: dict[str, Any], traits: list[str] | None, fields: list[str], root: str
) -> dict[str, Any]:
    """One node with the given fields and its links; ``root`` is .../baremetal."""
    out: dict[str, Any] = {}
    for name in fields:
        if name == "traits":
            out[name] = traits or []
        elif name in ("created_at", "updated_at", "provision_updated_at"):
            out[name] = timestamp(row[name])
        else:
            out[name] = row[name]
    out["links"] = [
        link(f"{root}/v1/nodes/{row['uuid']}", "self"),
        link(f"{root}/nodes/{row['uuid']}", "bookmark"),
    ]
    return out
