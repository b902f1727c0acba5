"""/baremetal/v1/nodes: list, detail, show, create, JSON-PATCH update, delete, validate."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.baremetal import gates, serialize
from flavorsmith.api.baremetal.common import authorized_node, may_act_on_some_node, root
from flavorsmith.api.baremetal.policies import FIELD_RULES, node_target, patch_rules
from flavorsmith.api.baremetal.schemas import (
    FIELDS_LIST,
    IRONIC_READ,
    IRONIC_WRITE,
    NODE,
    NODE_CREATE,
    NODE_LIST,
    NODE_QUERY_TYPES,
    VALIDATION,
)
from flavorsmith.api.context import context, run
from flavorsmith.api.contract import Contract, add_lists, declare, params
from flavorsmith.api.microversions import Version
from flavorsmith.api.paging import is_full, next_href
from flavorsmith.api.query import IRONIC, Query
from flavorsmith.api.requests import json_body, microversion
from flavorsmith.api.schema import JSON_PATCH_BODY
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, NotFound
from flavorsmith.ironic import nodes as rules
from flavorsmith.nodes import service as nodes
from flavorsmith.query_values import parse_list
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
# /nodes/detail: the list's parameters but fields and detail.
DETAIL_PARAMS = tuple(p for p in LIST_PARAMS if p not in ("fields", "detail"))


def _query(request: Request) -> NodeQuery:
    params = request.query_params
    version = microversion(request)
    query = Query(request, IRONIC)

    def traits(name: str) -> tuple[str, ...]:
        values = parse_list(",".join(params.getlist(name)))  # every one sent counts
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
        shards=parse_list(",".join(params.getlist("shard"))),
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


def _listing_project(request: Request) -> str | None:
    """None when the caller may list every node (``baremetal:node:list_all``); else, as in
    Ironic, a project-scoped caller allowed ``baremetal:node:list`` sees only the nodes its
    project owns or leases; anyone else is refused."""
    ctx = context(request)
    if ctx.allowed("baremetal:node:list_all"):
        return None
    who = ctx.identity
    ctx.authorize("baremetal:node:list")
    if who.scope == "project" and who.project_id:
        return who.project_id
    ctx.authorize("baremetal:node:list_all")
    return None


async def _list(request: Request, contract: Contract, detail: bool) -> dict[str, Any]:
    project = _listing_project(request)
    contract.check_query(request)
    version = microversion(request)
    query = dataclasses.replace(_query(request), visible_to=project)
    if not detail and Query(request, IRONIC).flag("detail") and "fields" in request.query_params:
        raise Invalid("Can not specify ?detail=True and fields in the same request.")
    detail = detail or bool(Query(request, IRONIC).flag("detail"))
    fields = serialize.fields(Query(request, IRONIC), version)
    if fields is None:
        fields = (
            serialize.available(version)
            if detail
            else [f for f in serialize.SHORT if version >= serialize.FIELDS[f]]
        )

    with_traits = "traits" in fields
    columns = serialize.stored(fields)

    def work(connection: Connection) -> list[dict[str, Any]]:
        return store.list_nodes(connection, query, columns=columns, with_traits=with_traits)

    rows = await run(request, work, write=False)
    top = root(request)
    body: dict[str, Any] = {"nodes": serialize.nodes(rows, fields, top)}
    if is_full(rows, query.limit):
        path = "nodes/detail" if request.url.path.endswith("/detail") else "nodes"
        body["next"] = next_href(
            request, f"{top}/v1/{path}", limit=query.limit, marker=rows[-1]["uuid"]
        )
    return body


LIST_NODES = Contract(
    "List nodes", {200: NODE_LIST}, query=params(LIST_PARAMS, NODE_QUERY_TYPES), errors=IRONIC_READ
)
LIST_NODES_DETAIL = Contract(
    "List nodes with every field",
    {200: NODE_LIST},
    query=params(DETAIL_PARAMS, NODE_QUERY_TYPES),
    errors=IRONIC_READ,
)
add_lists(router, "/v1/nodes", "list_nodes", _list, LIST_NODES, LIST_NODES_DETAIL)


SHOW_NODE = Contract(
    "Show a node (by UUID, or by name from 1.5)",
    {200: NODE},
    query={"fields": FIELDS_LIST},
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/nodes/{ident}")
@declare(SHOW_NODE)
async def show_node(request: Request, ident: str) -> dict[str, Any]:
    may_act_on_some_node(request, "baremetal:node:get")
    SHOW_NODE.check_query(request)
    version = microversion(request)
    fields = serialize.fields(Query(request, IRONIC), version) or serialize.available(version)

    def work(connection: Connection) -> tuple[dict[str, Any], list[str]]:
        row = authorized_node(connection, request, ident, ())
        return row, store.traits_of(connection, [row["id"]])[row["id"]]

    row, traits = await run(request, work, write=False)
    return serialize.node(row, traits, fields, root(request))


CREATE_NODE = Contract("Enroll a node", {201: NODE}, body=NODE_CREATE, errors=(*IRONIC_WRITE, 409))


@router.post("/v1/nodes", status_code=201)
@declare(CREATE_NODE)
async def create_node(request: Request, response: Response) -> dict[str, Any]:
    ctx = context(request)
    # As Ironic: a project admin (not system-scoped) creates nodes its own project owns.
    self_owned = ctx.allowed("baremetal:node:create:self_owned_node")
    if not self_owned:
        ctx.authorize("baremetal:node:create")
    CREATE_NODE.check_query(request)
    body = await json_body(request)
    version = microversion(request)
    gates.check_body(body, version)
    values = rules.new_node(body, store.FIELD_LENGTHS, enroll=version >= Version(1, 11))
    rules.check_enabled_driver(
        values["driver"], _enabled_drivers(request), values.get("conductor_group") or ""
    )
    if self_owned and ctx.identity.system_scope != "all":
        values["owner"] = ctx.identity.project_id

    def work(connection: Connection) -> dict[str, Any]:
        if values.get("parent_node") is not None:
            values["parent_node"] = _parent(connection, values["parent_node"])
        return nodes.create(connection, values)

    row = await run(request, work, write=True)
    top = root(request)
    response.headers["Location"] = f"{top}/v1/nodes/{row['uuid']}"
    return serialize.node(row, [], serialize.available(version), top)


def _enabled_drivers(request: Request) -> tuple[str, ...]:
    return context(request).services.settings.enabled_drivers or rules.DRIVERS


def _parent(connection: Connection, ident: str) -> str:
    """The UUID of the parent node named by ``ident`` (a UUID or a name), as Ironic links it."""
    try:
        return str(store.find(connection, ident, by_name=True)["uuid"])
    except NotFound:
        raise Invalid(
            f"Unable to apply the requested parent_node {ident!r}. Requested value was invalid."
        ) from None


UPDATE_NODE = Contract(
    "Update a node with a JSON patch",
    {200: NODE},
    body=JSON_PATCH_BODY,
    patch=True,
    errors=(*IRONIC_WRITE, 404, 409),
)


@router.patch("/v1/nodes/{ident}")
@declare(UPDATE_NODE)
async def update_node(request: Request, ident: str) -> dict[str, Any]:
    may_act_on_some_node(request, "baremetal:node:update", *FIELD_RULES)
    UPDATE_NODE.check_query(request)
    patch = await json_body(request)
    version = microversion(request)
    gates.check_patch(patch, version)
    enabled = _enabled_drivers(request)

    def work(connection: Connection) -> tuple[dict[str, Any], list[str]]:
        row = authorized_node(connection, request, ident, patch_rules(patch), lock=True)
        changes = rules.apply_patch(row, patch, store.FIELD_LENGTHS)
        if "driver" in changes:
            group = changes.get("conductor_group", row["conductor_group"]) or ""
            rules.check_enabled_driver(changes["driver"], enabled, group)
        if changes.get("parent_node") is not None:
            changes["parent_node"] = _parent(connection, changes["parent_node"])
            if changes["parent_node"] == row["uuid"]:
                raise Invalid(f"Node {row['uuid']} cannot be its own parent_node")
        row = nodes.update(connection, row, changes)
        return row, store.traits_of(connection, [row["id"]])[row["id"]]

    row, traits = await run(request, work, write=True)
    return serialize.node(row, traits, serialize.available(version), root(request))


DELETE_NODE = Contract("Delete a node", {204: None}, errors=(*IRONIC_READ, 404, 409))


@router.delete("/v1/nodes/{ident}", status_code=204)
@declare(DELETE_NODE)
async def delete_node(request: Request, ident: str) -> Response:
    may_act_on_some_node(request, "baremetal:node:delete", "baremetal:node:delete:self_owned_node")
    DELETE_NODE.check_query(request)
    ctx = context(request)

    def work(connection: Connection) -> None:
        row = authorized_node(connection, request, ident, (), lock=True)
        # As Ironic: a project admin may delete the nodes its project owns.
        if not ctx.allowed("baremetal:node:delete:self_owned_node", node_target(row)):
            ctx.authorize("baremetal:node:delete", node_target(row))
        nodes.remove(connection, row)

    await run(request, work, write=True)
    return Response(status_code=204)


VALIDATE_NODE = Contract(
    "Validate a node's interfaces", {200: VALIDATION}, errors=(*IRONIC_READ, 404)
)


@router.get("/v1/nodes/{ident}/validate")
@declare(VALIDATE_NODE)
async def validate_node(request: Request, ident: str) -> dict[str, Any]:
    may_act_on_some_node(request, "baremetal:node:validate")
    VALIDATE_NODE.check_query(request)

    def work(connection: Connection) -> dict[str, Any]:
        row = authorized_node(connection, request, ident, ("baremetal:node:validate",))
        templates = deploy_store.named(connection, rules.instance_trait_names(row["instance_info"]))
        traits = store.traits_of(connection, [row["id"]])[row["id"]]
        return rules.validation(row, traits, templates)

    return await run(request, work, write=False)
