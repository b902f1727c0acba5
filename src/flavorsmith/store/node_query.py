"""Node list queries: filters (including the API-WG tag filters on traits), sort, keyset pages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, func, not_, or_, select, true

from flavorsmith.db.models import Node, NodeTrait
from flavorsmith.errors import Invalid
from flavorsmith.params import MAX_LIMIT

SORT_KEYS = (
    "id",
    "uuid",
    "name",
    "driver",
    "resource_class",
    "provision_state",
    "power_state",
    "maintenance",
    "instance_uuid",
    "created_at",
    "updated_at",
)


@dataclass(frozen=True)
class NodeQuery:
    resource_class: str | None = None
    provision_state: str | None = None
    maintenance: bool | None = None
    associated: bool | None = None
    driver: str | None = None
    traits: tuple[str, ...] = ()  # has all
    traits_any: tuple[str, ...] = ()  # has at least one
    not_traits: tuple[str, ...] = ()  # does not have all of them
    not_traits_any: tuple[str, ...] = ()  # has none
    sort_key: str = "id"
    sort_dir: str = "asc"
    limit: int = MAX_LIMIT
    marker: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        if self.sort_key not in SORT_KEYS:
            raise Invalid(
                f"The sort_key value {self.sort_key!r} is an invalid field for sorting; "
                f"choose from {', '.join(SORT_KEYS)}"
            )
        if self.sort_dir not in ("asc", "desc"):
            raise Invalid(f"Invalid sort direction {self.sort_dir!r}: choose asc or desc")


def _has_all(traits: tuple[str, ...]) -> ColumnElement[bool]:
    matching = (
        select(NodeTrait.node_id)
        .where(NodeTrait.trait.in_(traits))
        .group_by(NodeTrait.node_id)
        .having(func.count() == len(set(traits)))
    )
    return Node.id.in_(matching)


def _has_any(traits: tuple[str, ...]) -> ColumnElement[bool]:
    return Node.id.in_(select(NodeTrait.node_id).where(NodeTrait.trait.in_(traits)))


def conditions(query: NodeQuery) -> list[ColumnElement[bool]]:
    """WHERE clauses; trait filters are subqueries on the (trait, node_id) index."""
    out: list[ColumnElement[bool]] = []
    if query.resource_class is not None:
        out.append(Node.resource_class == query.resource_class)
    if query.provision_state is not None:
        out.append(Node.provision_state == query.provision_state)
    if query.maintenance is not None:
        out.append(Node.maintenance == query.maintenance)
    if query.associated is not None:
        out.append(
            Node.instance_uuid.isnot(None) if query.associated else Node.instance_uuid.is_(None)
        )
    if query.driver is not None:
        out.append(Node.driver == query.driver)
    if query.traits:
        out.append(_has_all(query.traits))
    if query.traits_any:
        out.append(_has_any(query.traits_any))
    if query.not_traits:
        out.append(not_(_has_all(query.not_traits)))
    if query.not_traits_any:
        out.append(not_(_has_any(query.not_traits_any)))
    return out


def ordered_page(
    statement: Select[Any], query: NodeQuery, marker_row: dict[str, Any] | None
) -> Select[Any]:
    """Sort (NULLs first ascending, last descending, on both databases) and seek past a marker."""
    column = getattr(Node, query.sort_key)
    ascending = query.sort_dir == "asc"
    if ascending:
        order = [column.asc().nulls_first(), Node.id.asc()]
    else:
        order = [column.desc().nulls_last(), Node.id.desc()]
    statement = statement.order_by(*order)
    if marker_row is not None:
        statement = statement.where(_after(column, marker_row, query.sort_key, ascending))
    return statement.limit(query.limit)


def _after(column: Any, marker: dict[str, Any], key: str, ascending: bool) -> ColumnElement[bool]:
    value = marker[key]
    marker_id = marker["id"]
    id_after: ColumnElement[bool] = Node.id > marker_id if ascending else Node.id < marker_id
    if key == "id":
        return id_after
    if value is None:
        same = and_(column.is_(None), id_after)
        return or_(same, column.isnot(None)) if ascending else same
    beyond = column > value if ascending else column < value
    rest: ColumnElement[bool] = false() if ascending else column.is_(None)
    return or_(beyond, and_(column == value, id_after), rest)


__all__ = [
    "MAX_LIMIT",
    "NodeQuery",
    "conditions",
    "ordered_page",
    "true",
]
