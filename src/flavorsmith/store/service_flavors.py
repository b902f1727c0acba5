"""Flavor profiles and service flavors in the service's database (rows as dicts)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from flavorsmith.db.models import FlavorProfile, ServiceFlavor
from flavorsmith.errors import NotFound

PROFILE_FIELDS = ("id", "name", "provider_name", "flavor_data")
FLAVOR_FIELDS = ("id", "name", "description", "enabled", "flavor_profile_id")


def _rows(connection: Connection, statement: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in connection.execute(statement)]


def profiles(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    return _rows(connection, select(*cols).order_by(FlavorProfile.id))


def flavors(connection: Connection) -> list[dict[str, Any]]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    return _rows(connection, select(*cols).order_by(ServiceFlavor.id))


def profile(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    cols = [getattr(FlavorProfile, f) for f in PROFILE_FIELDS]
    statement = select(*cols).where(FlavorProfile.id == ident)
    if lock and connection.dialect.name == "postgresql":
        statement = statement.with_for_update()
    found = _rows(connection, statement)
    if not found:
        raise NotFound(f"Flavor profile {ident} not found.")
    return found[0]


def flavor(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    statement = select(*cols).where(ServiceFlavor.id == ident)
    if lock and connection.dialect.name == "postgresql":
        statement = statement.with_for_update()
    found = _rows(connection, statement)
    if not found:
        raise NotFound(f"Flavor {ident} not found.")
    return found[0]


def flavor_named(connection: Connection, name: str) -> dict[str, Any] | None:
    cols = [getattr(ServiceFlavor, f) for f in FLAVOR_FIELDS]
    found = _rows(connection, select(*cols).where(ServiceFlavor.name == name))
    return found[0] if found else None


def profile_in_use(connection: Connection, ident: str) -> bool:
    statement = select(func.count()).where(ServiceFlavor.flavor_profile_id == ident)
    return bool(connection.execute(statement).scalar())


def insert_profile(connection: Connection, row: dict[str, Any]) -> None:
    connection.execute(insert(FlavorProfile).values(**row))


def update_profile(connection: Connection, ident: str, changes: dict[str, Any]) -> None:
    connection.execute(update(FlavorProfile).where(FlavorProfile.id == ident).values(**changes))


def delete_profile(connection: Connection, ident: str) -> None:
    connection.execute(delete(FlavorProfile).where(FlavorProfile.id == ident))


def insert_flavor(connection: Connection, row: dict[str, Any]) -> None:
    connection.execute(insert(ServiceFlavor).values(**row))


def update_flavor(connection: Connection, ident: str, changes: dict[str, Any]) -> None:
    connection.execute(update(ServiceFlavor).where(ServiceFlavor.id == ident).values(**changes))


def delete_flavor(connection: Connection, ident: str) -> None:
    connection.execute(delete(ServiceFlavor).where(ServiceFlavor.id == ident))
