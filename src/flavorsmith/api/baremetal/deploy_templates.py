"""/baremetal/v1/deploy_templates: list, show, create, JSON-PATCH update, delete (from 1.55).

Better than Ironic: ``description`` is kept and returned, a patch keeps the order of steps,
and ``updated_at`` moves whenever anything changes."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request, Response

from flavorsmith.api.baremetal.common import authorize, root, run
from flavorsmith.api.baremetal.serialize import timestamp
from flavorsmith.api.links import link
from flavorsmith.api.microversions import Version
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, json_body, microversion
from flavorsmith.errors import Invalid, MethodNotAllowed, NotFound
from flavorsmith.ironic.deploy_templates import apply_patch, checked
from flavorsmith.ironic.nodes import is_uuid
from flavorsmith.params import parse_bool, parse_limit
from flavorsmith.store import deploy_templates as store
from flavorsmith.store.plumbing import Connection

router = APIRouter()
SINCE = Version(1, 55)
FIELDS = ("uuid", "name", "description", "steps", "extra", "created_at", "updated_at")
CREATE_FIELDS = {"uuid", "name", "description", "steps", "extra"}
POLICIES = [
    RuleDefault("baremetal:deploy_template:get", "role:reader", "Show a deploy template."),
    RuleDefault("baremetal:deploy_template:create", "role:admin", "Create a deploy template."),
    RuleDefault("baremetal:deploy_template:update", "role:admin", "Update a deploy template."),
    RuleDefault("baremetal:deploy_template:delete", "role:admin", "Delete a deploy template."),
]


def _require(request: Request, rule: str) -> None:
    if microversion(request) < SINCE:
        message = "The API version does not allow deploy templates"
        # As Ironic: reads are 404, writes 405.
        raise NotFound(message) if request.method == "GET" else MethodNotAllowed(message)
    authorize(request, rule)


def _body(row: dict[str, Any], fields: list[str], top: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in fields:
        value = row[name]
        out[name] = timestamp(value) if name in ("created_at", "updated_at") else value
    out["links"] = [
        link(f"{top}/v1/deploy_templates/{row['uuid']}", "self"),
        link(f"{top}/deploy_templates/{row['uuid']}", "bookmark"),
    ]
    return out


def _fields(request: Request) -> list[str] | None:
    raw = request.query_params.get("fields")
    if raw is None:
        return None
    wanted = [f.strip() for f in raw.split(",") if f.strip()]
    unknown = [f for f in wanted if f not in (*FIELDS, "links")]
    if unknown:
        raise Invalid(
            f"Unknown deploy template field(s) {', '.join(repr(f) for f in unknown)}; "
            f"known: {', '.join(FIELDS)}"
        )
    return [f for f in wanted if f != "links"]


@router.get("/v1/deploy_templates")
async def list_templates(request: Request) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:get")
    check_query(request, ("detail", "fields", "limit", "marker", "sort_dir", "sort_key"))
    params = request.query_params
    detail = parse_bool("detail", params["detail"]) if "detail" in params else False
    fields = _fields(request)
    if detail and fields is not None:
        raise Invalid("Use either detail or fields, not both")
    fields = fields or (list(FIELDS) if detail else ["uuid", "name"])
    limit = parse_limit(params.get("limit"))
    marker = params.get("marker")
    if marker is not None and not is_uuid(marker):
        raise Invalid(f"Expected UUID for marker: {marker}")
    sort_dir = params.get("sort_dir", "asc")
    if sort_dir not in ("asc", "desc"):
        raise Invalid(f"Invalid sort direction {sort_dir!r}: choose asc or desc")
    sort_key = params.get("sort_key", "id")
    if sort_key not in store.SORT_KEYS:
        raise Invalid(
            f"The sort_key value {sort_key} is an invalid field for sorting; "
            f"sort by one of {', '.join(store.SORT_KEYS)}"
        )
    rows = await run(
        request, lambda c: store.list_all(c, limit, marker, sort_dir, sort_key), write=False
    )
    top = root(request)
    body: dict[str, Any] = {"deploy_templates": [_body(r, fields, top) for r in rows]}
    if len(rows) == limit:
        query = {k: v for k, v in params.items() if k != "marker"}
        query.update(limit=str(limit), marker=rows[-1]["uuid"])
        body["next"] = f"{top}/v1/deploy_templates?{urlencode(query)}"
    return body


@router.get("/v1/deploy_templates/{ident}")
async def show_template(request: Request, ident: str) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:get")
    check_query(request, ("fields",))
    fields = _fields(request) or list(FIELDS)
    row = await run(request, lambda c: store.find(c, ident), write=False)
    return _body(row, fields, root(request))


@router.post("/v1/deploy_templates", status_code=201)
async def create_template(request: Request, response: Response) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:create")
    check_query(request, ())
    body = await json_body(request)
    if not isinstance(body, dict):
        raise Invalid("The request body must be a JSON object describing the deploy template")
    unknown = sorted(set(body) - CREATE_FIELDS)
    if unknown:
        raise Invalid(f"Additional properties are not allowed ({unknown[0]!r} was unexpected)")
    for required in ("name", "steps"):
        if required not in body:
            raise Invalid(f"{required!r} is a required property")
    values = checked(body)
    if body.get("uuid") is not None:
        if not (isinstance(body["uuid"], str) and is_uuid(body["uuid"])):
            raise Invalid(f"Invalid UUID {body['uuid']!r}")
        values["uuid"] = str(uuid.UUID(body["uuid"]))  # canonical: it fits its column
    row = await run(request, lambda c: store.create(c, values), write=True)
    top = root(request)
    response.headers["Location"] = f"{top}/v1/deploy_templates/{row['uuid']}"
    return _body(row, list(FIELDS), top)


@router.patch("/v1/deploy_templates/{ident}")
async def update_template(request: Request, ident: str) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:update")
    check_query(request, ())
    patch = await json_body(request)

    def work(connection: Connection) -> dict[str, Any]:
        row = store.find(connection, ident, lock=True)
        return store.save(connection, row, apply_patch(row, patch))

    row = await run(request, work, write=True)
    return _body(row, list(FIELDS), root(request))


@router.delete("/v1/deploy_templates/{ident}", status_code=204)
async def delete_template(request: Request, ident: str) -> Response:
    _require(request, "baremetal:deploy_template:delete")
    check_query(request, ())
    await run(request, lambda c: store.remove(c, store.find(c, ident, lock=True)), write=True)
    return Response(status_code=204)
