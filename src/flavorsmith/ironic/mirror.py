"""The rules of mirroring a real Ironic's nodes: which fields the mirror keeps, how one node of
Ironic's list (``GET /v1/nodes?fields=…``) becomes the values the node store compares and
writes, and the delete guard — a refresh that would delete more than a share of the mirror
(10 % by default) is refused before anything is written, because a project-scoped credential or
a half-answered list looks exactly like a fleet that shrank.

Pure: no I/O. The store diffs and writes; the sync service fetches and decides when."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith.ironic.idents import is_uuid
from flavorsmith.ironic.nodes import SCHEDULING_FIELDS

# The stored columns a refresh compares and writes, besides the UUID (the key) and the traits
# (their own table). Ironic's list is read with exactly these fields plus uuid and traits.
FIELDS = (*SCHEDULING_FIELDS, "retired", "driver", "properties")
COLUMNS = tuple(field for field in FIELDS if field not in ("uuid", "traits"))
# A refresh may delete at most this share of the mirrored nodes (more is refused).
MAX_DELETE = 0.10


class MirrorError(ValueError):
    """A node of Ironic's answer that cannot be mirrored (one line naming it and the field)."""


@dataclass(frozen=True)
class MirroredNode:
    """One Ironic node as the mirror stores it: keyed by UUID."""

    uuid: str
    values: dict[str, Any]  # every column of COLUMNS
    traits: frozenset[str]


def _text(record: Mapping[str, Any], field: str, node: str) -> str | None:
    value = record.get(field)
    if value is None or isinstance(value, str):
        return value
    raise MirrorError(f"node {node}: {field} is {value!r}, not text")


def mirrored(record: Mapping[str, Any]) -> MirroredNode:
    """The node of one list entry; a missing UUID or a field of the wrong type is a
    MirrorError (Ironic never sends one, but a proxy in between might)."""
    uuid = record.get("uuid")
    if not isinstance(uuid, str) or not is_uuid(uuid):
        raise MirrorError(f"a node of Ironic's list has no valid uuid: {uuid!r}")
    uuid = uuid.lower()
    traits = record.get("traits")
    traits = [] if traits is None else traits
    if not isinstance(traits, list) or not all(isinstance(t, str) for t in traits):
        raise MirrorError(f"node {uuid}: traits is {traits!r}, not a list of names")
    properties = record.get("properties")
    properties = {} if properties is None else properties
    if not isinstance(properties, dict):
        raise MirrorError(f"node {uuid}: properties is {properties!r}, not a mapping")
    driver = _text(record, "driver", uuid)
    provision_state = _text(record, "provision_state", uuid)
    instance_uuid = _text(record, "instance_uuid", uuid)
    values: dict[str, Any] = {
        "name": _text(record, "name", uuid),
        "resource_class": _text(record, "resource_class", uuid),
        "provision_state": provision_state or "enroll",
        "power_state": _text(record, "power_state", uuid),
        "maintenance": bool(record.get("maintenance")),
        "instance_uuid": instance_uuid.lower() if instance_uuid else None,
        "owner": _text(record, "owner", uuid),
        "lessee": _text(record, "lessee", uuid),
        "retired": bool(record.get("retired")),
        "driver": driver or "",
        "properties": properties,
    }
    return MirroredNode(uuid, values, frozenset(traits))


def mirrored_all(records: Sequence[Mapping[str, Any]]) -> list[MirroredNode]:
    """Every node of Ironic's list; a UUID listed twice (pages that shifted under a marker)
    is a MirrorError: the list is not one consistent answer."""
    nodes = [mirrored(record) for record in records]
    seen: set[str] = set()
    for node in nodes:
        if node.uuid in seen:
            raise MirrorError(f"node {node.uuid} is listed twice (the list changed while read)")
        seen.add(node.uuid)
    return nodes


def delete_refusal(mirrored_count: int, deleting: int, max_share: float = MAX_DELETE) -> str | None:
    """Why a refresh that deletes ``deleting`` of ``mirrored_count`` stored nodes must not run
    (None: it may). At most ``max_share`` of the mirror may go in one refresh."""
    if deleting <= 0:
        return None
    allowed = math.floor(mirrored_count * max_share + 1e-9)
    if deleting <= allowed:
        return None
    return (
        f"refused: this refresh would delete {deleting} of the {mirrored_count} mirrored nodes, "
        f"more than {max_share:.0%} (is the credential scoped to one project, or did Ironic "
        "lose nodes?); nothing was changed"
    )


__all__ = [
    "COLUMNS",
    "FIELDS",
    "MAX_DELETE",
    "MirrorError",
    "MirroredNode",
    "delete_refusal",
    "mirrored",
    "mirrored_all",
]


def named(label: str) -> str:
    """The mirrored Ironic in a sentence: "the Ironic at URL" or "the Ironic of cloud NAME"."""
    at = "at" if "://" in label else "of"
    return f"the Ironic {at} {label}"


def write_refusal(label: str, interval: float | None) -> str:
    """What a node write answers while the nodes mirror the Ironic ``label``."""
    every = f" (this service mirrors it every {interval:g} s)" if interval else ""
    return f"Nodes are managed by {named(label)}; change them there{every}"
