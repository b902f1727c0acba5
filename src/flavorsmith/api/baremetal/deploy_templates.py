"""/baremetal/v1/deploy_templates: list, show, create, JSON-PATCH update, delete (from 1.55).

Better than Ironic: ``description`` is kept and returned (left out of an answer while it is
null and not asked for by ``fields``, so a client that never sets one sees Ironic's body), a
patch keeps the order of steps, and ``updated_at`` moves whenever anything changes."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.baremetal.common import root
from flavorsmith.api.baremetal.schemas import (
    FIELDS_LIST,
    IRONIC_READ,
    IRONIC_WRITE,
    TEMPLATE,
    TEMPLATE_CREATE,
    TEMPLATE_FIELDS,
    TEMPLATE_QUERY,
)
from flavorsmith.api.baremetal.serialize import timestamp
from flavorsmith.api.context import authorize, run
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import link
from flavorsmith.api.microversions import Version
from flavorsmith.api.paging import is_full, next_href
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.query import IRONIC, Query
from flavorsmith.api.requests import json_body, microversion
from flavorsmith.api.schema import JSON_PATCH_BODY, array, obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid, MethodNotAllowed, NotFound
from flavorsmith.ironic.deploy_templates import apply_patch, check_ident, checked
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.store import deploy_templates as store

router = APIRouter()
SINCE = Version(1, 55)
FIELDS = TEMPLATE_FIELDS
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


def _body(row: dict[str, Any], fields: list[str], top: str, asked: bool = False) -> dict[str, Any]:
    """The answer for one template: ``fields`` of it, and ``description`` only when it is set
    or ``asked`` for by name (Ironic's deploy templates have none)."""
    out: dict[str, Any] = {}
    for name in fields:
        value = row[name]
        if name == "description" and value is None and not asked:
            continue
        out[name] = timestamp(value) if name in ("created_at", "updated_at") else value
    out["links"] = [
        link(f"{top}/v1/deploy_templates/{row['uuid']}", "self"),
        link(f"{top}/deploy_templates/{row['uuid']}", "bookmark"),
    ]
    return out


def _fields(query: Query) -> list[str] | None:
    """``fields=``; ``links`` may be named, and always comes."""
    wanted = query.fields(
        FIELDS, "Unknown deploy template field(s) {unknown}; known: {known}", also=("links",)
    )
    return None if wanted is None else [f for f in wanted if f != "links"]


LIST_TEMPLATES = Contract(
    "List deploy templates (from 1.55)",
    {
        200: obj(
            {"deploy_templates": array(TEMPLATE), "next": string()},
            required=("deploy_templates",),
            additional=False,
        )
    },
    query=TEMPLATE_QUERY,
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/deploy_templates")
@declare(LIST_TEMPLATES)
async def list_templates(request: Request) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:get")
    LIST_TEMPLATES.check_query(request)
    query = Query(request, IRONIC)
    detail = query.flag("detail") or False
    fields = _fields(query)
    if detail and fields is not None:
        raise Invalid("Can not specify ?detail=True and fields in the same request.")
    asked = fields is not None
    fields = fields or (list(FIELDS) if detail else ["uuid", "name"])
    limit = query.page_size()
    marker = request.query_params.get("marker")  # a UUID; anything else is a 404 (the store)
    sort_key, sort_dir = query.sort(store.SORT_KEYS, "id")
    rows = await run(
        request, lambda c: store.list_all(c, limit, marker, sort_dir, sort_key), write=False
    )
    top = root(request)
    body: dict[str, Any] = {"deploy_templates": [_body(r, fields, top, asked) for r in rows]}
    if is_full(rows, limit):
        url = f"{top}/v1/deploy_templates"
        body["next"] = next_href(request, url, limit=limit, marker=rows[-1]["uuid"])
    return body


SHOW_TEMPLATE = Contract(
    "Show a deploy template (by UUID or name)",
    {200: TEMPLATE},
    query={"fields": FIELDS_LIST},
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/deploy_templates/{ident}")
@declare(SHOW_TEMPLATE)
async def show_template(request: Request, ident: str) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:get")
    SHOW_TEMPLATE.check_query(request)
    asked = _fields(Query(request, IRONIC))
    fields = asked or list(FIELDS)
    check_ident(ident)
    row = await run(request, lambda c: store.find(c, ident), write=False)
    return _body(row, fields, root(request), asked is not None)


CREATE_TEMPLATE = Contract(
    "Create a deploy template",
    {201: TEMPLATE},
    body=TEMPLATE_CREATE,
    errors=(*IRONIC_WRITE, 405, 409),
)


@router.post("/v1/deploy_templates", status_code=201)
@declare(CREATE_TEMPLATE)
async def create_template(request: Request, response: Response) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:create")
    CREATE_TEMPLATE.check_query(request)
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
    out = _body(row, list(FIELDS), top)
    # As Ironic: a priority sent as a string of digits (or as 10.0) is stored as an integer,
    # and the create's answer echoes it as sent.
    for step, sent in zip(out["steps"], body["steps"], strict=False):
        if isinstance(sent["priority"], str | float):
            step["priority"] = sent["priority"]
    return out


UPDATE_TEMPLATE = Contract(
    "Update a deploy template with a JSON patch",
    {200: TEMPLATE},
    body=JSON_PATCH_BODY,
    patch=True,
    errors=(*IRONIC_WRITE, 404, 405, 409),
)


@router.patch("/v1/deploy_templates/{ident}")
@declare(UPDATE_TEMPLATE)
async def update_template(request: Request, ident: str) -> dict[str, Any]:
    _require(request, "baremetal:deploy_template:update")
    UPDATE_TEMPLATE.check_query(request)
    check_ident(ident)
    patch = await json_body(request)

    def work(connection: Connection) -> dict[str, Any]:
        row = store.find(connection, ident, lock=True)
        return store.save(connection, row, apply_patch(row, patch))

    row = await run(request, work, write=True)
    return _body(row, list(FIELDS), root(request))


DELETE_TEMPLATE = Contract("Delete a deploy template", {204: None}, errors=(*IRONIC_READ, 404, 405))


@router.delete("/v1/deploy_templates/{ident}", status_code=204)
@declare(DELETE_TEMPLATE)
async def delete_template(request: Request, ident: str) -> Response:
    _require(request, "baremetal:deploy_template:delete")
    DELETE_TEMPLATE.check_query(request)
    check_ident(ident)
    await run(request, lambda c: store.remove(c, store.find(c, ident, lock=True)), write=True)
    return Response(status_code=204)
