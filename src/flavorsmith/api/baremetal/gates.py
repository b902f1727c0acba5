"""Which node fields and filters a request may use at its microversion: as Ironic, a field
newer than the request's version is 406 Not Acceptable in a create body, a patch, a list
filter or a sort key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flavorsmith.api.baremetal.serialize import FIELDS
from flavorsmith.api.microversions import Version
from flavorsmith.errors import NotAcceptable

# List filters and the version that introduced each (Ironic's check_allow_filter_by_*), in
# the order a refusal names the first: a filter on a field came with the field, and these two
# are not fields.
_NOT_FIELDS = {"sharded": Version(1, 82), "include_children": Version(1, 83)}
FILTERS: dict[str, Version] = {
    name: _NOT_FIELDS[name] if name in _NOT_FIELDS else FIELDS[name]
    for name in (
        "resource_class",
        "fault",
        "conductor_group",
        "owner",
        "lessee",
        "shard",
        "sharded",
        "include_children",
        "parent_node",
        "instance_name",
    )
}


def _refuse(what: str, since: Version, version: Version) -> NotAcceptable:
    return NotAcceptable(
        f"Request not acceptable: {what} needs API version {since} or later "
        f"(this request asked for {version})"
    )


def check_body(body: Any, version: Version) -> None:
    """A create body: a field newer than ``version`` may only be absent or empty (Ironic
    takes an explicit null, and "" for conductor_group)."""
    if not isinstance(body, Mapping):
        return
    for name, value in body.items():
        since = FIELDS.get(name)
        empty = "" if name == "conductor_group" else None
        if since is not None and version < since and value != empty:
            raise _refuse(f"field {name!r}", since, version)


def check_patch(patch: Any, version: Version) -> None:
    """A JSON patch: no add or replace of a field newer than ``version``."""
    if not isinstance(patch, list):
        return
    for op in patch:
        if not isinstance(op, dict) or op.get("op") == "remove":
            continue
        path = op.get("path")
        top = path.split("/")[1] if isinstance(path, str) and path.startswith("/") else ""
        since = FIELDS.get(top)
        if since is not None and version < since:
            raise _refuse(f"field {top!r}", since, version)


def check_filters(params: Mapping[str, str], version: Version) -> None:
    for name, since in FILTERS.items():
        if name in params and version < since:
            raise _refuse(f"filtering by {name}", since, version)


def check_sort_key(key: str, version: Version) -> None:
    since = FIELDS.get(key)
    if since is not None and version < since:
        raise _refuse(f"sorting by {key!r}", since, version)
