"""``flavorsmith node list``: nodes with their resource class and traits, filtered, sorted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer

from flavorsmith.cli.options import (
    ColumnOption,
    ListFormatOption,
    NodeSource,
    SortColumnOption,
    node_source,
)
from flavorsmith.cli.output import ListFormat, check_columns, render_list, select, sort_rows
from flavorsmith.store import nodes as node_store

COLUMNS = ("name", "uuid", "resource_class", "provision_state", "maintenance", "traits")
# What --sort accepts: the node fields both the service's database and Ironic (at the
# microversion the node source reads) sort on: the database's keys but its own row id and the
# two fields of newer microversions, with the name first.
SORT_KEYS = (
    "name",
    *(k for k in node_store.SORT_KEYS if k not in ("id", "name", "shard", "instance_name")),
)


def parse_sort(value: str) -> tuple[str, str]:
    """``KEY[:asc|desc]`` as (key, direction); anything else is a usage error."""
    key, _, direction = value.partition(":")
    direction = direction or "asc"
    if key not in SORT_KEYS:
        raise typer.BadParameter(
            f"cannot sort by {key!r}; choose from {', '.join(SORT_KEYS)}", param_hint="'--sort'"
        )
    if direction not in ("asc", "desc"):
        raise typer.BadParameter(
            f"unknown sort direction {direction!r} in {value!r}; choose asc or desc",
            param_hint="'--sort'",
        )
    return key, direction


@node_source()
def list_nodes(
    ctx: typer.Context,
    trait: Annotated[
        list[str] | None,
        typer.Option("--trait", metavar="TRAIT", help="Has this trait (repeatable: has all)."),
    ] = None,
    trait_any: Annotated[
        list[str] | None,
        typer.Option(
            "--trait-any", metavar="TRAIT", help="Has this trait (repeatable: has at least one)."
        ),
    ] = None,
    not_trait: Annotated[
        list[str] | None,
        typer.Option(
            "--not-trait",
            metavar="TRAIT",
            help="Lacks this trait (repeatable: lacks at least one).",
        ),
    ] = None,
    not_trait_any: Annotated[
        list[str] | None,
        typer.Option(
            "--not-trait-any", metavar="TRAIT", help="Lacks this trait (repeatable: lacks all)."
        ),
    ] = None,
    resource_class: Annotated[
        str | None,
        typer.Option("--resource-class", metavar="NAME", help="Only this resource class."),
    ] = None,
    provision_state: Annotated[
        str | None,
        typer.Option(
            "--provision-state",
            metavar="STATE",
            help="Only nodes in this provision state (e.g. available, active).",
        ),
    ] = None,
    sort: Annotated[
        str,
        typer.Option(
            "--sort",
            metavar="KEY[:asc|desc]",
            help=f"Sort by this node field: {', '.join(SORT_KEYS)}.",
        ),
    ] = "name:asc",
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            metavar="N",
            min=1,
            help="At most N nodes (default: all).",
            show_default=False,
        ),
    ] = None,
    nodes: NodeSource = NodeSource(),
    fmt: ListFormatOption = ListFormat.TABLE,
    column: ColumnOption = None,
    sort_column: SortColumnOption = None,
) -> None:
    """List nodes of the service's database, or of a real Ironic (--cloud/--ironic-endpoint).

    From a real Ironic, --resource-class and --provision-state are Ironic's own filters; without
    a trait filter --sort and --limit are Ironic's too. Ironic's list has no trait filter: with
    one, every node of the other filters is read, and the traits, --sort and --limit are applied
    here. The order is the same either way: nodes without a value first ascending, last
    descending. --sort-column then sorts the listed rows (after --limit), as the openstack CLI.

    \b
    Example:
      flavorsmith node list --trait CUSTOM_NVME --resource-class m1.small
    """
    from flavorsmith.cli.ironic_source import ironic_nodes
    from flavorsmith.errors import Invalid
    from flavorsmith.ironic import nodes as rules

    filters = {
        "traits": tuple(trait or ()),
        "traits_any": tuple(trait_any or ()),
        "not_traits": tuple(not_trait or ()),
        "not_traits_any": tuple(not_trait_any or ()),
    }
    try:
        for value in (v for values in filters.values() for v in values):
            rules.check_trait(value)
    except Invalid as exc:
        raise typer.BadParameter(
            exc.message, param_hint="'--trait' / '--trait-any' / '--not-trait' / '--not-trait-any'"
        ) from None
    sort_key, sort_dir = parse_sort(sort)
    wanted = column or list(COLUMNS)
    select([], wanted, COLUMNS)  # an unknown column is a usage error before any reading
    check_columns(sort_column or [], COLUMNS, "'--sort-column'")
    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    states = {"resource_class": resource_class, "provision_state": provision_state}
    if source is not None:
        found = _from_ironic(source, states, filters, (sort_key, sort_dir), limit)
    else:
        found = _from_database(ctx, nodes.database, states, filters, (sort_key, sort_dir), limit)
    found = sort_rows(found, sort_column or [], COLUMNS)
    typer.echo(render_list(select(found, wanted, COLUMNS), wanted, fmt), nl=False)


def _from_database(
    ctx: typer.Context,
    database: str | None,
    states: dict[str, str | None],
    filters: dict[str, tuple[str, ...]],
    sort: tuple[str, str],
    limit: int | None,
) -> list[dict[str, Any]]:
    """The nodes of the service's database: every filter, the order and the limit in SQL."""
    from flavorsmith.cli.node.database import note_if_empty, open_database
    from flavorsmith.query_values import MAX_LIMIT
    from flavorsmith.store import nodes as store
    from flavorsmith.store.nodes import NodeQuery

    engine = open_database(database, ctx)
    rows: list[dict[str, Any]] = []
    marker: str | None = None
    with engine.connect() as connection:
        while limit is None or len(rows) < limit:
            size = MAX_LIMIT if limit is None else min(MAX_LIMIT, limit - len(rows))
            query = NodeQuery(
                resource_class=states["resource_class"],
                provision_state=states["provision_state"],
                traits=filters["traits"],
                traits_any=filters["traits_any"],
                not_traits=filters["not_traits"],
                not_traits_any=filters["not_traits_any"],
                sort_key=sort[0],
                sort_dir=sort[1],
                marker=marker,
                limit=size,
            )
            page = store.list_nodes(connection, query)
            traits = store.traits_of(connection, [r["id"] for r in page])
            rows += [{c: r[c] for c in COLUMNS[:-1]} | {"traits": traits[r["id"]]} for r in page]
            if len(page) < size:
                break
            marker = page[-1]["uuid"]
    if not rows:
        note_if_empty(engine, store.count(engine))
    return rows


def _from_ironic(
    source: Any,
    states: dict[str, str | None],
    filters: dict[str, tuple[str, ...]],
    sort: tuple[str, str],
    limit: int | None,
) -> list[dict[str, Any]]:
    """The nodes of a real Ironic, filtered as the database's are: the resource class and the
    provision state by Ironic; the traits here (Ironic's list has no trait filter), and then
    the order and the limit here too, else by Ironic."""
    from flavorsmith.cli.ironic_source import reading

    query: dict[str, Any] = {k: v for k, v in states.items() if v is not None}
    fields = tuple(dict.fromkeys(("uuid", *COLUMNS[:1], *COLUMNS[2:], sort[0])))
    if not any(filters.values()):
        query |= {"sort_key": sort[0], "sort_dir": sort[1]}
        found = reading(lambda: source.nodes(fields, query=query, limit=limit))
        return [_row(node) for node in found]
    found = reading(lambda: source.nodes(fields, query=query))
    rows = [node for node in found if _has_traits(set(node.get("traits") or ()), filters)]
    ordered = sort_nodes(rows, *sort)
    return [_row(node) for node in ordered[:limit]]


def _row(node: dict[str, Any]) -> dict[str, Any]:
    return {c: node.get(c) for c in COLUMNS} | {"traits": sorted(node.get("traits") or [])}


def _has_traits(traits: set[str], filters: dict[str, tuple[str, ...]]) -> bool:
    """The store's four trait filters (``NodeQuery``), on one node's traits."""
    return (
        set(filters["traits"]) <= traits
        and (not filters["traits_any"] or bool(traits & set(filters["traits_any"])))
        and (not filters["not_traits"] or not set(filters["not_traits"]) <= traits)
        and not traits & set(filters["not_traits_any"])
    )


def sort_nodes(nodes: Sequence[dict[str, Any]], key: str, direction: str) -> list[dict[str, Any]]:
    """``nodes`` in the store's order: by ``key``, NULLs first ascending and last descending,
    then by UUID in the same direction."""
    present = sorted(
        (n for n in nodes if n.get(key) is not None),
        key=lambda n: (n[key], n["uuid"]),
        reverse=direction == "desc",
    )
    absent = sorted(
        (n for n in nodes if n.get(key) is None),
        key=lambda n: n["uuid"],
        reverse=direction == "desc",
    )
    return absent + present if direction == "asc" else present + absent
