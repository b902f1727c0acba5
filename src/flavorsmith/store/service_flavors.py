"""Flavor profiles and service flavors in the service's database (rows as dicts).

The writes that may break a constraint (a taken id or name, a profile deleted or used
meanwhile) run in a savepoint and answer False instead of breaking the caller's transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from flavorsmith.db.models import FlavorProfile, ServiceFlavor
from flavorsmith.errors import NotFound
from flavorsmith.store.sql import Duplicate, Page, fetch_all, fetch_one, find, keyset_by, unique

PROFILE_FIELDS = ("id", "name", "provider_name", "flavor_data")
# Octavia's placeholder profile (migration 0010): flavors may use it; lists, show, update and
# delete never see it (Octavia 19, db/repositories.py _GetALLExceptDELETEDIdMixin and
# api/v2/controllers/flavor_profiles.py).
NIL = "00000000-0000-0000-0000-000000000000"
FLAVOR_FIELDS = ("id", "name", "description", "enabled", "flavor_profile_id")


def profiles(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    statement = select(*cols).where(FlavorProfile.id != NIL).order_by(FlavorProfile.id)
    return fetch_all(connection, statement)


def flavors(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    return fetch_all(connection, select(*cols).order_by(ServiceFlavor.id))


def page(
    connection: Connection,
    kind: str,
    *,
    filters: Mapping[str, str | bool] | None = None,
    sort: Sequence[tuple[str, bool]] = (),
    marker: str | None = None,
    limit: int | None = None,
    reverse: bool = False,
) -> Page:
    """A keyset page of ``kind`` ("profiles" or "flavors") in SQL, Octavia's way: rows equal
    to ``filters`` (a missing text matches ""), ordered by the ``sort`` keys (field,
    ascending; NULLs first ascending) then id, after the ``marker`` row, or before it with
    ``reverse``; 404 when the marker is not among the filtered rows. Never the nil
    placeholder."""
    model, fields = (
        (FlavorProfile, PROFILE_FIELDS) if kind == "profiles" else (ServiceFlavor, FLAVOR_FIELDS)
    )
    conditions = [
        getattr(model, k).is_(v)
        if isinstance(v, bool)
        else func.coalesce(getattr(model, k), "") == v
        for k, v in (filters or {}).items()
    ]
    statement = select(*(getattr(model, f) for f in fields)).where(model.id != NIL, *conditions)
    after = None
    if marker is not None:
        found = fetch_one(connection, statement.where(model.id == marker))
        if found is None:
            raise NotFound(f"Marker {marker} not found.")
        after = (*(found[k] for k, _ in sort), found["id"])
    keys = [(getattr(model, k), ascending != reverse) for k, ascending in sort]
    # One row more than the page tells whether more follow (no LIMIT past 64 bits).
    probe = None if limit is None or limit >= 2**62 else limit + 1
    rows = fetch_all(
        connection,
        keyset_by(
            statement,
            keys,
            model.id,
            ident_ascending=not reverse,
            after=after,
            limit=probe,
        ),
    )
    more = probe is not None and len(rows) >= probe
    rows = rows[:limit] if probe is not None else rows
    if reverse:
        return Page(rows[::-1], more_before=more, more_after=marker is not None)
    return Page(rows, more_before=marker is not None, more_after=more)


def profile(
    connection: Connection, ident: str, *, lock: bool = False, placeholder: bool = False
) -> dict[str, Any]:
    """The profile ``ident``; the nil placeholder only with ``placeholder`` (what a flavor
    may be created on), else 404 in Octavia's words for it."""
    if ident == NIL and not placeholder:
        raise NotFound(f"Flavor profile {NIL} not found.")
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    statement = select(*cols).where(FlavorProfile.id == ident)
    # Octavia 19's words on show and update (api/v2/controllers/base.py _get_db_obj names
    # the resource data_models.FlavorProfile._name(), "Flavor Profile"); delete says its own.
    return find(connection, statement, missing=f"Flavor Profile {ident} not found.", lock=lock)


def flavor(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    statement = select(*cols).where(ServiceFlavor.id == ident)
    return find(connection, statement, missing=f"Flavor {ident} not found.", lock=lock)


def flavor_named(connection: Connection, name: str) -> dict[str, Any] | None:
    """The flavor called ``name`` (never one without a name: NULLs do not clash)."""
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    found = fetch_all(connection, select(*cols).where(ServiceFlavor.name == name))
    return found[0] if found else None


def profile_in_use(connection: Connection, ident: str) -> bool:
    statement = select(func.count()).where(ServiceFlavor.flavor_profile_id == ident)
    return bool(connection.execute(statement).scalar())


def _guarded(connection: Connection, statement: Any) -> bool:
    """Run ``statement`` in a savepoint; False when it broke a constraint."""
    try:
        with unique(connection):
            connection.execute(statement)
    except Duplicate:
        return False
    return True


def insert_profile(connection: Connection, row: dict[str, Any]) -> bool:
    """False when a profile with this id exists."""
    return _guarded(connection, insert(FlavorProfile).values(**row))


def update_profile(connection: Connection, ident: str, changes: dict[str, Any]) -> None:
    connection.execute(update(FlavorProfile).where(FlavorProfile.id == ident).values(**changes))


def delete_profile(connection: Connection, ident: str) -> bool:
    """False when a flavor uses the profile (created since the caller checked)."""
    return _guarded(connection, delete(FlavorProfile).where(FlavorProfile.id == ident))


def insert_flavor(connection: Connection, row: dict[str, Any]) -> bool:
    """False when the id or name is taken or the profile is gone."""
    return _guarded(connection, insert(ServiceFlavor).values(**row))


def update_flavor(connection: Connection, ident: str, changes: dict[str, Any]) -> bool:
    """False when the new name is taken."""
    statement = update(ServiceFlavor).where(ServiceFlavor.id == ident).values(**changes)
    return _guarded(connection, statement)


def delete_flavor(connection: Connection, ident: str) -> None:
    connection.execute(delete(ServiceFlavor).where(ServiceFlavor.id == ident))
