"""Runbooks in the service's database (Ironic API 1.92; traits since 1.112)."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, or_, select, update

from flavorsmith.db.models import Runbook
from flavorsmith.errors import Conflict, NotFound
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.store.generations import bump
from flavorsmith.store.sql import Duplicate, fetch_all, keyset, unique
from flavorsmith.store.sql import find as find_row

GENERATION = "runbooks"
COLUMNS = list(Runbook.__table__.columns)

# The columns a list may sort by: Ironic 39 refuses extra, steps and traits.
SORT_KEYS = (
    "id",
    "uuid",
    "name",
    "description",
    "public",
    "owner",
    "disable_ramdisk",
    "created_at",
    "updated_at",
)


def missing(ident: str) -> NotFound:
    return NotFound(f"Runbook {ident} could not be found.")


def find(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    """The runbook by UUID or name (Ironic 39: a UUID-shaped identifier is a UUID)."""
    column = Runbook.uuid if is_uuid(ident) else Runbook.name
    return find_row(
        connection, select(*COLUMNS).where(column == ident), missing=str(missing(ident)), lock=lock
    )


def list_all(
    connection: Connection,
    limit: int | None = None,
    marker: str | None = None,
    sort_dir: str = "asc",
    sort_key: str = "id",
    *,
    project: str | None = None,
    owner: str | None = None,
    public_only: bool = False,
) -> list[dict[str, Any]]:
    """A keyset page in (sort_key, id) order; NULLs sort first ascending, last descending.
    ``project``: only the runbooks it owns and the public ones (Ironic's project filter);
    ``owner``: only the runbooks it owns; ``public_only``: only the public ones."""
    if sort_key not in SORT_KEYS:
        raise ValueError(f"cannot sort runbooks by {sort_key!r}: one of {', '.join(SORT_KEYS)}")
    after = None
    if marker is not None:
        # As Ironic: the marker is a runbook's UUID, looked up whoever may see it.
        if not is_uuid(marker):
            raise missing(marker)
        row = find(connection, marker)
        after = (row[sort_key], row["id"])
    statement = select(*COLUMNS)
    if project is not None:
        statement = statement.where(or_(Runbook.owner == project, Runbook.public.is_(True)))
    if owner is not None:
        statement = statement.where(Runbook.owner == owner)
    if public_only:
        statement = statement.where(Runbook.public.is_(True))
    statement = keyset(
        statement,
        getattr(Runbook, sort_key),
        Runbook.id,
        ascending=sort_dir == "asc",
        after=after,
        limit=limit,
    )
    return fetch_all(connection, statement)


def named(connection: Connection, names: Iterable[str]) -> list[dict[str, Any]]:
    """The runbooks among ``names``, by name."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    statement = select(*COLUMNS).where(Runbook.name.in_(wanted)).order_by(Runbook.name)
    return fetch_all(connection, statement)


def _distinct(traits: Iterable[str]) -> list[str]:
    """Each trait once, sorted (Ironic keeps a set)."""
    return sorted(set(traits))


def _duplicate(name: str) -> Conflict:
    return Conflict(f"A runbook with name {name} already exists.")


def create(connection: Connection, values: dict[str, Any]) -> dict[str, Any]:
    """A new runbook from ``values`` (name and steps required; uuid, description, extra,
    public, owner, disable_ramdisk, traits optional); Conflict on a name or UUID taken."""
    if connection.execute(select(Runbook.id).where(Runbook.name == values["name"])).first():
        raise _duplicate(values["name"])
    row = {
        "uuid": values.get("uuid") or str(uuidlib.uuid4()),
        "name": values["name"],
        "description": values.get("description"),
        "steps": values["steps"],
        "extra": values.get("extra") or {},
        "public": bool(values.get("public")),
        "owner": values.get("owner"),
        "disable_ramdisk": bool(values.get("disable_ramdisk")),
        "traits": _distinct(values.get("traits") or ()),
        "created_at": datetime.now(UTC),
    }
    try:
        with unique(connection):
            connection.execute(insert(Runbook).values(**row))
    except Duplicate:
        if connection.execute(select(Runbook.id).where(Runbook.uuid == row["uuid"])).first():
            raise Conflict(f"A runbook with UUID {row['uuid']} already exists.") from None
        raise _duplicate(row["name"]) from None
    bump(connection, GENERATION)
    return find(connection, row["uuid"])


def save(
    connection: Connection, row: dict[str, Any], changes: dict[str, Any], *, touch: bool = True
) -> dict[str, Any]:
    """``row`` with ``changes`` written (traits made distinct), ``updated_at`` moved unless
    not ``touch`` (as Ironic, a change of traits alone leaves it); Conflict on a name taken."""
    if not changes:
        return row
    if "uuid" in changes and changes["uuid"] != row["uuid"]:
        raise ValueError("a runbook's UUID cannot change")
    if (
        "name" in changes
        and connection.execute(
            select(Runbook.id).where(Runbook.name == changes["name"], Runbook.id != row["id"])
        ).first()
    ):
        raise _duplicate(changes["name"])
    if touch:
        changes = {**changes, "updated_at": datetime.now(UTC)}
    if "traits" in changes:
        changes["traits"] = _distinct(changes["traits"])
    try:
        with unique(connection):
            connection.execute(update(Runbook).where(Runbook.id == row["id"]).values(**changes))
    except Duplicate:
        raise _duplicate(str(changes.get("name"))) from None
    bump(connection, GENERATION)
    return find(connection, row["uuid"])


def set_traits(
    connection: Connection, row: dict[str, Any], traits: Iterable[str]
) -> dict[str, Any]:
    """Replace the runbook's traits."""
    return save(connection, row, {"traits": list(traits)}, touch=False)


def add_trait(connection: Connection, row: dict[str, Any], trait: str) -> dict[str, Any]:
    if trait in row["traits"]:
        return row
    return save(connection, row, {"traits": [*row["traits"], trait]}, touch=False)


def remove_trait(connection: Connection, row: dict[str, Any], trait: str) -> dict[str, Any]:
    """Without ``trait``; a trait it does not have is no change (as Ironic 39)."""
    if trait not in row["traits"]:
        return row
    return save(connection, row, {"traits": [t for t in row["traits"] if t != trait]}, touch=False)


def remove(connection: Connection, row: dict[str, Any]) -> None:
    connection.execute(delete(Runbook).where(Runbook.id == row["id"]))
    bump(connection, GENERATION)
