"""Deploy templates in the service's database."""

from __future__ import annotations

import uuid as uuidlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from flavorsmith.db.models import DeployTemplate
from flavorsmith.errors import Conflict, NotFound
from flavorsmith.ironic.deploy_templates import Step, Template
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.store.generations import bump
from flavorsmith.store.sql import Duplicate, fetch_all, keyset, unique
from flavorsmith.store.sql import find as find_row

GENERATION = "deploy_templates"
COLUMNS = list(DeployTemplate.__table__.columns)


def as_template(row: dict[str, Any]) -> Template:
    return Template(
        row["name"],
        tuple(Step(s["interface"], s["step"], s["args"], s["priority"]) for s in row["steps"]),
        row.get("description"),  # a real Ironic's templates have none
        row.get("extra") or {},
    )


def find(connection: Connection, ident: str, *, lock: bool = False) -> dict[str, Any]:
    column = DeployTemplate.uuid if is_uuid(ident) else DeployTemplate.name
    return find_row(
        connection,
        select(*COLUMNS).where(column == ident),
        missing=f"Deploy template {ident} could not be found.",
        lock=lock,
    )


SORT_KEYS = ("id", "uuid", "name", "description", "created_at", "updated_at")


def list_all(
    connection: Connection,
    limit: int | None = None,
    marker: str | None = None,
    sort_dir: str = "asc",
    sort_key: str = "id",
) -> list[dict[str, Any]]:
    """A keyset page in (sort_key, id) order; NULLs sort first ascending, last descending."""
    after = None
    if marker is not None:
        # As Ironic: a marker is a template's UUID; anything else is one that is not there.
        if not is_uuid(marker):
            raise NotFound(f"Deploy template {marker} could not be found.")
        row = find(connection, marker)
        after = (row[sort_key], row["id"])
    statement = keyset(
        select(*COLUMNS),
        getattr(DeployTemplate, sort_key),
        DeployTemplate.id,
        ascending=sort_dir == "asc",
        after=after,
        limit=limit,
    )
    return fetch_all(connection, statement)


def all_templates(connection: Connection) -> list[Template]:
    return [as_template(r) for r in list_all(connection)]


def named(connection: Connection, names: list[str]) -> list[Template]:
    """The templates among ``names`` (a node's instance traits)."""
    if not names:
        return []
    statement = select(*COLUMNS).where(DeployTemplate.name.in_(sorted(set(names))))
    return [as_template(r) for r in fetch_all(connection, statement)]


def _duplicate(name: str) -> Conflict:
    return Conflict(f"A deploy template with name {name} already exists.")


def create(connection: Connection, values: dict[str, Any]) -> dict[str, Any]:
    if connection.execute(
        select(DeployTemplate.id).where(DeployTemplate.name == values["name"])
    ).first():
        raise _duplicate(values["name"])
    row = {
        "uuid": values.get("uuid") or str(uuidlib.uuid4()),
        "name": values["name"],
        "description": values.get("description"),
        "steps": values["steps"],
        "extra": values.get("extra") or {},
        "created_at": datetime.now(UTC),
    }
    try:
        with unique(connection):
            connection.execute(insert(DeployTemplate).values(**row))
    except Duplicate:
        raise Conflict(
            f"A deploy template with UUID {row['uuid']} or name {row['name']} already exists."
        ) from None
    bump(connection, GENERATION)
    return find(connection, row["uuid"])


def save(connection: Connection, row: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    if not changes:
        return row
    if (
        "name" in changes
        and connection.execute(
            select(DeployTemplate.id).where(
                DeployTemplate.name == changes["name"], DeployTemplate.id != row["id"]
            )
        ).first()
    ):
        raise _duplicate(changes["name"])
    changes = {**changes, "updated_at": datetime.now(UTC)}
    try:
        with unique(connection):
            connection.execute(
                update(DeployTemplate).where(DeployTemplate.id == row["id"]).values(**changes)
            )
    except Duplicate:
        raise _duplicate(str(changes.get("name"))) from None
    bump(connection, GENERATION)
    return {**row, **changes}


def remove(connection: Connection, row: dict[str, Any]) -> None:
    connection.execute(delete(DeployTemplate).where(DeployTemplate.id == row["id"]))
    bump(connection, GENERATION)
