"""Flavors of the Nova-compatible API: storage, visibility, extra specs and project access.
Every write bumps the ``flavors`` generation in the same transaction."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    and_,
    delete,
    insert,
    literal,
    or_,
    select,
    update,
)

from flavorsmith.db.models import NovaFlavor, NovaFlavorExtraSpec, NovaFlavorProject
from flavorsmith.errors import Conflict, Invalid, NotFound
from flavorsmith.extra_specs.safety import Matcher
from flavorsmith.store.generations import bump
from flavorsmith.store.sql import Duplicate, fetch_all, fetch_one, keyset, locked, unique
from flavorsmith.visibility import Viewer, may_see

GENERATION = "flavors"
COLUMNS = list(NovaFlavor.__table__.columns)
SORT_KEYS = (
    "created_at",
    "description",
    "disabled",
    "ephemeral_gb",
    "flavorid",
    "id",
    "is_public",
    "memory_mb",
    "name",
    "root_gb",
    "rxtx_factor",
    "swap",
    "updated_at",
    "vcpu_weight",
    "vcpus",
)
MAX_LIMIT = 1000


@dataclass(frozen=True)
class FlavorQuery:
    is_public: bool | None = True  # admins only; None: public and private
    min_ram: int | None = None
    min_disk: int | None = None
    name: Matcher | None = None  # searched in each name (RE2)
    sort_key: str = "flavorid"
    sort_dir: str = "asc"
    limit: int = MAX_LIMIT
    marker: str | None = None


def _access(connection: Connection, rows: list[dict[str, Any]]) -> dict[int, set[str]]:
    """The access lists of the private flavors among ``rows``."""
    private = [r["id"] for r in rows if not r["is_public"]]
    out: dict[int, set[str]] = {i: set() for i in private}
    if private:
        found = connection.execute(
            select(NovaFlavorProject.flavor_id, NovaFlavorProject.project_id).where(
                NovaFlavorProject.flavor_id.in_(private)
            )
        )
        for flavor_id, project_id in found:
            out[flavor_id].add(project_id)
    return out


def _visible(
    connection: Connection, rows: list[dict[str, Any]], viewer: Viewer
) -> list[dict[str, Any]]:
    """The rows the viewer may see, by the shared visibility rule."""
    if viewer.admin:
        return rows
    access = _access(connection, rows)
    return [r for r in rows if may_see(viewer, r["is_public"], access.get(r["id"], ()))]


def get(
    connection: Connection, flavorid: str, viewer: Viewer | None = None, lock: bool = False
) -> dict[str, Any]:
    """One flavor; a flavor the viewer may not see is as missing as one that does not exist."""
    statement = select(*COLUMNS).where(NovaFlavor.flavorid == flavorid)
    found = fetch_one(connection, locked(connection, statement, lock))
    rows = [found] if found is not None else []
    if viewer is not None:
        rows = _visible(connection, rows, viewer)
    if not rows:
        raise NotFound(f"Flavor {flavorid} could not be found.")
    return rows[0]


def _may_see(viewer: Viewer) -> list[ColumnElement[bool]]:
    """The visibility rule (see :func:`flavorsmith.visibility.may_see`) as SQL conditions."""
    if viewer.admin:
        return []
    if viewer.project_id is None:
        return [NovaFlavor.is_public.is_(True)]
    shared = select(NovaFlavorProject.flavor_id).where(
        NovaFlavorProject.project_id == viewer.project_id
    )
    return [or_(NovaFlavor.is_public.is_(True), NovaFlavor.id.in_(shared))]


# Rows read per statement while a name pattern filters them.
NAME_BATCH = 200


def list_flavors(
    connection: Connection, query: FlavorQuery, viewer: Viewer
) -> list[dict[str, Any]]:
    """One keyset page in (sort_key, id) order, after the marker flavor. As in Nova, the
    marker is any flavor the viewer may see (the filters do not apply to it)."""
    statement = select(*COLUMNS).where(*_may_see(viewer))
    if viewer.admin and query.is_public is not None:  # Nova: only admins filter on is_public
        statement = statement.where(NovaFlavor.is_public.is_(query.is_public))
    # The filters are 64-bit (a filter beyond the 32-bit columns simply matches nothing).
    if query.min_ram is not None:
        statement = statement.where(NovaFlavor.memory_mb >= literal(query.min_ram, BigInteger()))
    if query.min_disk is not None:
        statement = statement.where(NovaFlavor.root_gb >= literal(query.min_disk, BigInteger()))
    after = None
    if query.marker is not None:
        marker = fetch_one(
            connection,
            select(*COLUMNS).where(NovaFlavor.flavorid == query.marker, *_may_see(viewer)),
        )
        if marker is None:
            raise Invalid(f"marker [{query.marker}] not found")
        after = (marker[query.sort_key], marker["id"])
    column = getattr(NovaFlavor, query.sort_key)
    ascending = query.sort_dir == "asc"
    if query.name is None:
        page = keyset(statement, column, NovaFlavor.id, ascending=ascending, after=after)
        return fetch_all(connection, page.limit(query.limit))
    # The name filter is a Python regular expression (the same on both databases): read keyset
    # batches and keep the matching rows until the page is full.
    out: list[dict[str, Any]] = []
    while len(out) < query.limit:
        page = keyset(
            statement, column, NovaFlavor.id, ascending=ascending, after=after, limit=NAME_BATCH
        )
        rows = fetch_all(connection, page)
        out.extend(r for r in rows if query.name.search(r["name"]))
        if len(rows) < NAME_BATCH:
            break
        after = (rows[-1][query.sort_key], rows[-1]["id"])
    return out[: query.limit]


def now() -> datetime:
    return datetime.now(UTC)


def create(
    connection: Connection, values: Mapping[str, Any], extra_specs: Mapping[str, str] | None = None
) -> dict[str, Any]:
    row = {
        "flavorid": values.get("flavorid") or str(uuid.uuid4()),
        "name": values["name"],
        "memory_mb": values["memory_mb"],
        "vcpus": values["vcpus"],
        "root_gb": values["root_gb"],
        "ephemeral_gb": values.get("ephemeral_gb", 0),
        "swap": values.get("swap", 0),
        "rxtx_factor": values.get("rxtx_factor", 1.0),
        "vcpu_weight": None,
        "disabled": False,
        "is_public": values.get("is_public", True),
        "description": values.get("description"),
        "created_at": now(),
    }
    for field, message in (
        ("flavorid", "Flavor with ID {} already exists."),
        ("name", "Flavor with name {} already exists."),
    ):
        column = getattr(NovaFlavor, field)
        if connection.execute(select(NovaFlavor.id).where(column == row[field])).first():
            raise Conflict(message.format(row[field]))
    try:
        with unique(connection):
            flavor_id = connection.execute(
                insert(NovaFlavor).values(**row).returning(NovaFlavor.id)
            ).scalar_one()
    except Duplicate:  # a concurrent create won the race
        raise Conflict(
            f"Flavor with ID {row['flavorid']} or name {row['name']} already exists."
        ) from None
    if extra_specs:
        connection.execute(
            insert(NovaFlavorExtraSpec),
            [{"flavor_id": flavor_id, "key": k, "value": v} for k, v in extra_specs.items()],
        )
    bump(connection, GENERATION)
    return get(connection, row["flavorid"])


def remove(connection: Connection, flavor: dict[str, Any]) -> None:
    connection.execute(
        delete(NovaFlavorExtraSpec).where(NovaFlavorExtraSpec.flavor_id == flavor["id"])
    )
    connection.execute(delete(NovaFlavorProject).where(NovaFlavorProject.flavor_id == flavor["id"]))
    connection.execute(delete(NovaFlavor).where(NovaFlavor.id == flavor["id"]))
    bump(connection, GENERATION)


def set_description(
    connection: Connection, flavor: dict[str, Any], description: str | None
) -> dict[str, Any]:
    stamp = now()
    connection.execute(
        update(NovaFlavor)
        .where(NovaFlavor.id == flavor["id"])
        .values(description=description, updated_at=stamp)
    )
    bump(connection, GENERATION)
    return {**flavor, "description": description, "updated_at": stamp}


def extra_specs(connection: Connection, flavor_ids: list[int]) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {i: {} for i in flavor_ids}
    if flavor_ids:
        rows = connection.execute(
            select(
                NovaFlavorExtraSpec.flavor_id, NovaFlavorExtraSpec.key, NovaFlavorExtraSpec.value
            )
            .where(NovaFlavorExtraSpec.flavor_id.in_(flavor_ids))
            .order_by(NovaFlavorExtraSpec.key)
        )
        for flavor_id, key, value in rows:
            out[flavor_id][key] = value
    return out


def merge_extra_specs(
    connection: Connection, flavor: dict[str, Any], specs: Mapping[str, str]
) -> None:
    if not specs:
        return
    connection.execute(
        delete(NovaFlavorExtraSpec).where(
            and_(
                NovaFlavorExtraSpec.flavor_id == flavor["id"],
                NovaFlavorExtraSpec.key.in_(list(specs)),
            )
        )
    )
    connection.execute(
        insert(NovaFlavorExtraSpec),
        [{"flavor_id": flavor["id"], "key": k, "value": v} for k, v in specs.items()],
    )
    bump(connection, GENERATION)


def delete_extra_spec(connection: Connection, flavor: dict[str, Any], key: str) -> None:
    missing = f"Flavor {flavor['flavorid']} has no extra specs with key {key}."
    _delete_one(connection, NovaFlavorExtraSpec, NovaFlavorExtraSpec.key == key, flavor, missing)


def projects(connection: Connection, flavor: dict[str, Any]) -> list[str]:
    rows = connection.execute(
        select(NovaFlavorProject.project_id)
        .where(NovaFlavorProject.flavor_id == flavor["id"])
        .order_by(NovaFlavorProject.project_id)
    )
    return [r[0] for r in rows]


def add_project(connection: Connection, flavor: dict[str, Any], project_id: str) -> None:
    if flavor["is_public"]:
        raise Conflict("Can not add access to a public flavor.")
    if project_id in projects(connection, flavor):
        raise Conflict(
            f"Flavor access already exists for flavor {flavor['flavorid']} and project "
            f"{project_id} combination."
        )
    connection.execute(
        insert(NovaFlavorProject).values(flavor_id=flavor["id"], project_id=project_id)
    )
    bump(connection, GENERATION)


def remove_project(connection: Connection, flavor: dict[str, Any], project_id: str) -> None:
    missing = f"Flavor access not found for {flavor['flavorid']} / {project_id} combination."
    where = NovaFlavorProject.project_id == project_id
    _delete_one(connection, NovaFlavorProject, where, flavor, missing)


def _delete_one(
    connection: Connection,
    table: type[NovaFlavorExtraSpec | NovaFlavorProject],
    where: ColumnElement[bool],
    flavor: dict[str, Any],
    missing: str,
) -> None:
    """Delete the flavor's row of ``table`` that ``where`` names; NotFound(``missing``) when
    there is none."""
    result = connection.execute(delete(table).where(table.flavor_id == flavor["id"], where))
    if result.rowcount == 0:
        raise NotFound(missing)
    bump(connection, GENERATION)
