"""Flavor profiles and service flavors in the service's database (rows as dicts).

The writes that may break a constraint (a taken id or name, a profile deleted or used
meanwhile) run in a savepoint and answer False instead of breaking the caller's transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, insert, select, update

from flavorsmith.db.models import FlavorProfile, ServiceFlavor
from flavorsmith.store.plumbing import Connection, Duplicate, fetch_all, find, unique

PROFILE_FIELDS = ("id", "name", "provider_name", "flavor_data")
FLAVOR_FIELDS = ("id", "name", "description", "enabled", "flavor_profile_id")


def profiles(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    return fetch_all(connection, select(*cols).order_by(FlavorProfile.id))


def flavors(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    return fetch_all(connection, select(*cols).order_by(ServiceFlavor.id))


def profile(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    statement = select(*cols).where(FlavorProfile.id == ident)
    return find(connection, statement, missing=f"Flavor profile {ident} not found.", lock=lock)


def flavor(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    statement = select(*cols).where(ServiceFlavor.id == ident)
    return find(connection, statement, missing=f"Flavor {ident} not found.", lock=lock)


def flavor_named(connection: Connection, name: str) -> dict[str, Any] | None:
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
