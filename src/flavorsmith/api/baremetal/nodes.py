"""/baremetal/v1/nodes: list, detail, show, create, JSON-PATCH update, delete, validate."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.baremetal import gates, serialize
from flavorsmith.api.baremetal.common import load, root
from flavorsmith.api.context import authorize, run
from flavorsmith.api.microversions import Version
from flavorsmith.api.paging import is_full, next_href
from flavorsmith.api.query import IRONIC, Query
from flavorsmith.api.requests import check_query, json_body, microversion
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.ironic import nodes as rules
from flavorsmith.params import parse_list
from flavorsmith.store import deploy_templates as deploy_store
from flavorsmith.store import nodes as store
from flavorsmith.store.nodes import NodeQuery

router = APIRouter()

LIST_PARAMS = (
    "fields",
    "limit",
    "marker",
    "sort_key",
    "sort_dir",
    "resource_class",
    "provision_state",
    "maintenance",
    "associated",
    "driver",
    "detail",
    "traits",
    "traits-any",
    "not-traits",
    "not-traits-any",
    "conductor_group",
    "owner",
    "lessee",
    "project",
    "retired",
    "shard",
    "sharded",
    "include_children",
    "parent_node",
    "instance_name",
    "instance_uuid",
    "description_contains",
    "fault",
)


def _query(request: Request) -> NodeQuery:
    params = request.query_params
    version = microversion(request)
    query = Query(request, IRONIC)

    def traits(name: str) -> tuple[str, ...]:
        values = parse_list(params[name]) if name in params else ()
        for value in values:
            rules.check_trait(value)
        return values

    gates.check_filters(params, version)
    sort_key = params.get("sort_key", "id")
    gates.check_sort_key(sort_key, version)
    parent = params.get("parent_node")
    return NodeQuery(
        resource_class=params.get("resource_class"),
        provision_state=params.get("provision_state"),
        maintenance=query.flag("maintenance"),
        associated=query.flag("associated"),
        driver=params.get("driver"),
        traits=traits("traits"),
        traits_any=traits("traits-any"),
        not_traits=traits("not-traits"),
        not_traits_any=traits("not-traits-any"),
        conductor_group=params.get("conductor_group"),
        owner=params.get("owner"),
        lessee=params.get("lessee"),
        project=params.get("project"),
        retired=query.flag("retired"),
        shards=parse_list(params["shard"]) if "shard" in params else (),
        sharded=query.flag("sharded"),
        include_children=bool(query.flag("include_children")),
        parent_node=rules.canonical_uuid(parent) if parent else None,
        instance_name=params.get("instance_name"),
        instance_uuid=rules.canonical_uuid(params["instance_uuid"])
        if "instance_uuid" in params
        else None,
        description_contains=params.get("description_contains"),
        fault=params.get("fault"),
        sort_key=sort_key,
        sort_dir=params.get("sort_dir", "asc"),
        limit=query.page_size(),
        marker=query.marker(),
    )


async def _list(request: Request, detail: bool) -> dict[str, Any]:
    authorize(request, "baremetal:node:list")
    allowed = [p for p in LIST_PARAMS if not (detail and p in ("fields", "detail"))]
    check_query(request, allowed)
    version = microversion(request)
    query = _query(request)
    detail = detail or bool(Query(request, IRONIC).flag("detail"))
    fields = serialize.fields(Query(request, IRONIC), version)
    if fields is None:
        fields = (
            serialize.available(version)
            if detail
            else [f for f in serialize.SHORT if version >= serialize.FIELDS[f]]
        )

    def work(connection: Connection) -> tuple[list[dict[str, Any]], dict[int, list[str]]]:
        rows = store.list_nodes(connection, query)
        traits = store.traits_of(connection, [r["id"] for r in rows]) if "traits" in fields else {}
        return rows, traits

    rows, traits = await run(request, work, write=False)
    top = root(request)
    body: dict[str, Any] = {
        "nodes": [serialize.node(r, traits.get(r["id"]), fields, top) for r in rows]
    }
    if is_full(rows, query.limit):
        path = "nodes/detail" if request.url.path.endswith("/detail") else "nodes"
        body["next"] = next_href(
            request, f"{top}/v1/{path}", limit=query.limit, marker=rows[-1]["uuid"]
        )
    return body


@router.get("/v1/nodes")
async def list_nodes(request: Request) -> dict[str, Any]:
    return await _list(request, detail=False)


@router.get("/v1/nodes/detail")
async def list_nodes_detail(request: Request) -> dict[str, Any]:
    return await _list(request, detail=True)


@router.get("/v1/nodes/{ident}")
async def show_node(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, "baremetal:node:get")
    check_query(request, ("fields",))
    version = microversion(request)
    fields = serialize.fields(Query(request, IRONIC), version) or serialize.available(version)

    def work(connection: Connection) -> tuple[dict[str, Any], list[str]]:
        row = load(connection, request, ident)
        return row, store.traits_of(connection, [row["id"]])[row["id"]]

    row, traits = await run(request, work, write=False)
    return serialize.node(row, traits, fields, root(request))


@router.post("/v1/nodes", status_code=201)
async def create_node(request: Request, response: Response) -> dict[str, Any]:
    authorize(request, "baremetal:node:create")
    check_query(request, ())
    body = await json_body(request)
    version = microversion(request)
    gates.check_body(body, version)
    values = rules.new_node(body, store.FIELD_LENGTHS, enroll=version >= Version(1, 11))

    def work(connection: Connection) -> dict[str, Any]:
        if values.get("parent_node") is not None:
            values["parent_node"] = _parent(connection, values["parent_node"])
        return store.create(connection, values)

    row = await run(request, work, write=True)
    top = root(request)
    response.headers["Location"] = f"{top}/v1/nodes/{row['uuid']}"
    return serialize.node(row, [], serialize.available(version), top)


def _parent(connection: Connection, ident: str) -> str:
    """The UUID of the parent node named by ``ident`` (a UUID or a name), as Ironic links it."""
    try:
        return str(store.find(connection, ident, by_name=True)["uuid"])
    except NotFound:
        raise Invalid(
            f"Unable to apply the requested parent_node {ident!r}. Requested value was invalid."
        ) from None


@router.patch("/v1/nodes/{ident}")
async def update_node(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, "baremetal:node:update")
    check_query(request, ())
    patch = await json_body(request)
    version = microversion(request)
    gates.check_patch(patch, version)

    def work(connection: Connection) -> tuple[dict[str, Any], list[str]]:
        row = load(connection, request, ident, lock=True)
        changes = rules.apply_patch(row, patch, store.FIELD_LENGTHS)
        if changes.get("parent_node") is not None:
            changes["parent_node"] = _parent(connection, changes["parent_node"])
            if changes["parent_node"] == row["uuid"]:
                raise Invalid(f"Node {row['uuid']} cannot be its own parent_node")
        row = store.save(connection, row, changes)
        return row, store.traits_of(connection, [row["id"]])[row["id"]]

    row, traits = await run(request, work, write=True)
    return serialize.node(row, traits, serialize.available(version), root(request))


@router.delete("/v1/nodes/{ident}", status_code=204)
async def delete_node(request: Request, ident: str) -> Response:
    authorize(request, "baremetal:node:delete")
    check_query(request, ())
    await run(request, lambda c: store.remove(c, load(c, request, ident, lock=True)), write=True)
    return Response(status_code=204)


@router.get("/v1/nodes/{ident}/validate")
async def validate_node(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, "baremetal:node:validate")
    check_query(request, ())

    def work(connection: Connection) -> dict[str, Any]:
        row = load(connection, request, ident)
        templates = deploy_store.named(connection, rules.instance_trait_names(row["instance_info"]))
        traits = store.traits_of(connection, [row["id"]])[row["id"]]
        return rules.validation(row, traits, templates)

    return await run(request, work, write=False)
