"""/baremetal/v1/nodes: list, detail, show, create, JSON-PATCH update, delete, validate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonpatch
from fastapi import APIRouter, Request, Response

from flavorsmith.api.baremetal import serialize
from flavorsmith.api.baremetal.common import load, root
from flavorsmith.api.context import authorize, run
from flavorsmith.api.microversions import Version
from flavorsmith.api.paging import is_full, next_href
from flavorsmith.api.query import IRONIC, Query
from flavorsmith.api.requests import check_query, json_body, microversion
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid
from flavorsmith.ironic import nodes as rules
from flavorsmith.ironic.deploy_steps import deploy_problem
from flavorsmith.ironic.deploy_templates import Template
from flavorsmith.params import parse_list
from flavorsmith.store import deploy_templates as deploy_store
from flavorsmith.store import nodes as store
from flavorsmith.store.node_query import NodeQuery

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
)
CREATE_FIELDS = {
    "uuid",
    "name",
    "driver",
    "driver_info",
    "extra",
    "properties",
    "instance_info",
    "instance_uuid",
    "resource_class",
    "description",
}
PATCHABLE = (
    "description",
    "driver",
    "driver_info",
    "extra",
    "instance_info",
    "instance_uuid",
    "maintenance",
    "maintenance_reason",
    "name",
    "properties",
    "resource_class",
)
INTERFACES = (
    "boot",
    "deploy",
    "management",
    "network",
    "power",
    "bios",
    "console",
    "firmware",
    "inspect",
    "raid",
    "rescue",
    "storage",
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

    if version < Version(1, 21) and "resource_class" in params:
        raise Invalid("Filtering by resource_class needs API version 1.21 or later")
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
        sort_key=params.get("sort_key", "id"),
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


def _check_node_values(values: dict[str, Any]) -> dict[str, Any]:
    """The whole node after a create or patch, checked field by field and normalised."""
    if "driver" not in values:
        raise Invalid("'driver' is a required property")
    return rules.checked_node(values)


@router.post("/v1/nodes", status_code=201)
async def create_node(request: Request, response: Response) -> dict[str, Any]:
    authorize(request, "baremetal:node:create")
    check_query(request, ())
    body = await json_body(request)
    if not isinstance(body, dict):
        raise Invalid("The request body must be a JSON object describing the node")
    unknown = sorted(set(body) - CREATE_FIELDS)
    if unknown:
        raise Invalid(
            f"Unknown node field {unknown[0]!r}; a new node may set: "
            f"{', '.join(sorted(CREATE_FIELDS))}"
        )
    if "driver" not in body:
        raise Invalid("'driver' is a required property")
    version = microversion(request)
    if "resource_class" in body and version < Version(1, 21):
        raise Invalid("Setting resource_class needs API version 1.21 or later")
    values = _check_node_values(body)
    values["provision_state"] = "enroll" if version >= Version(1, 11) else "available"
    row = await run(request, lambda c: store.create(c, values), write=True)
    top = root(request)
    response.headers["Location"] = f"{top}/v1/nodes/{row['uuid']}"
    return serialize.node(row, [], serialize.available(version), top)


def apply_patch(row: dict[str, Any], patch: Any) -> dict[str, Any]:
    """The changed fields after a JSON patch restricted to Ironic's patchable paths (pure)."""
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        raise Invalid("A node update is a JSON patch: a list of operations")
    for op in patch:
        path = op.get("path")
        if op.get("op") not in ("add", "replace", "remove"):
            raise Invalid(
                f"Unsupported patch operation {op.get('op')!r}: use add, replace or remove"
            )
        top = path.split("/")[1] if isinstance(path, str) and path.startswith("/") else None
        if top not in PATCHABLE:
            raise Invalid(
                f"Cannot patch {path}. Only the following can be updated: {', '.join(PATCHABLE)}"
            )
        if op["op"] == "remove" and path == f"/{top}" and top in ("driver",):
            raise Invalid(f"Cannot remove {path}: a node always has a driver")
    document = {name: row[name] for name in PATCHABLE}
    try:
        patched = jsonpatch.JsonPatch(patch).apply(document)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        raise Invalid(f"Couldn't apply patch: {exc}") from None
    for name in PATCHABLE:
        patched.setdefault(
            name, {} if name in ("driver_info", "extra", "instance_info", "properties") else None
        )
    if patched.get("maintenance") is None:
        patched["maintenance"] = False
    patched = _check_node_values(patched)
    return {k: v for k, v in patched.items() if row[k] != v}


@router.patch("/v1/nodes/{ident}")
async def update_node(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, "baremetal:node:update")
    check_query(request, ())
    patch = await json_body(request)
    version = microversion(request)

    def work(connection: Connection) -> tuple[dict[str, Any], list[str]]:
        row = load(connection, request, ident, lock=True)
        changes = apply_patch(row, patch)
        if "resource_class" in changes and version < Version(1, 21):
            raise Invalid("Changing resource_class needs API version 1.21 or later")
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


def validation(
    row: dict[str, Any], traits: list[str], templates: Sequence[Template] = ()
) -> dict[str, dict[str, Any]]:
    """Per-interface results as Ironic reports them (pure); ``templates`` are the deploy
    templates named by the node's instance traits."""
    results: dict[str, dict[str, Any]] = {name: {"result": True} for name in INTERFACES}
    missing = [
        k for k in rules.DRIVER_INFO_REQUIRED.get(row["driver"], ()) if k not in row["driver_info"]
    ]
    if missing:
        reason = (
            f"Some parameters were missing in node's driver_info. Missing are: {', '.join(missing)}"
        )
        for name in ("power", "management"):
            results[name] = {"result": False, "reason": reason}
    problem = rules.instance_trait_problem(row["uuid"], row["instance_info"], set(traits))
    if not problem and templates:
        problem = deploy_problem(row["driver"], templates, row["instance_info"]["traits"])
    if problem:
        results["deploy"] = {"result": False, "reason": problem}
    return results


@router.get("/v1/nodes/{ident}/validate")
async def validate_node(request: Request, ident: str) -> dict[str, Any]:
    authorize(request, "baremetal:node:validate")
    check_query(request, ())

    def work(connection: Connection) -> dict[str, Any]:
        row = load(connection, request, ident)
        wanted = row["instance_info"].get("traits")
        names = [t for t in wanted if isinstance(t, str)] if isinstance(wanted, list) else []
        templates = deploy_store.named(connection, names)
        return validation(row, store.traits_of(connection, [row["id"]])[row["id"]], templates)

    return await run(request, work, write=False)
