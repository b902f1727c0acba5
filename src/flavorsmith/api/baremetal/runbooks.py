"""/baremetal/v1/runbooks (from 1.92): list, show, create, JSON-PATCH update, delete; and
/runbooks/{ident}/traits (from 1.112): list, replace all, add one, remove one, remove all.

As Ironic 39 answers (ironic/api/controllers/v1/runbook.py), with these differences, each
where Ironic 39 has a bug (docs/reference/ironic-api.md): a patch that adds a step without
``args`` stores ``{}`` (Ironic: a 500), a patch keeps the steps in the order it leaves them
(Ironic: unchanged steps first), ``updated_at`` moves when only the steps change, and
``?project=true`` lists the caller's project's runbooks and the public ones (Ironic compares
the owner with ``True``: only public ones)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.auth import Identity
from flavorsmith.api.baremetal.common import root, router_answer
from flavorsmith.api.baremetal.schemas import (
    FIELDS_LIST,
    IRONIC_READ,
    IRONIC_WRITE,
    RUNBOOK,
    RUNBOOK_CREATE,
    RUNBOOK_FIELDS,
    RUNBOOK_QUERY,
    RUNBOOK_TRAITS,
)
from flavorsmith.api.baremetal.serialize import timestamp
from flavorsmith.api.context import context, run
from flavorsmith.api.contract import Contract, declare
from flavorsmith.api.links import link
from flavorsmith.api.microversions import Version
from flavorsmith.api.paging import is_full
from flavorsmith.api.policy import PolicyDenied, RuleDefault
from flavorsmith.api.query import IRONIC, Query
from flavorsmith.api.requests import json_body, microversion
from flavorsmith.api.schema import JSON_PATCH_BODY, array, obj, string
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid
from flavorsmith.ironic import runbooks as rules
from flavorsmith.store import runbooks as store
from flavorsmith.traits import is_valid_node_trait

router = APIRouter()
SINCE = Version(1, 92)
TRAITS_SINCE = Version(1, 112)
READER = "role:reader"
ADMIN = "role:admin"
POLICIES = [
    RuleDefault("baremetal:runbook:get", READER, "Show a runbook."),
    RuleDefault("baremetal:runbook:list", READER, "List the runbooks of the caller's project."),
    RuleDefault("baremetal:runbook:list_all", READER, "List every runbook."),
    RuleDefault("baremetal:runbook:create", ADMIN, "Create a runbook."),
    RuleDefault("baremetal:runbook:update", ADMIN, "Update a runbook or its traits."),
    RuleDefault("baremetal:runbook:update:public", ADMIN, "Make a runbook public or not."),
    RuleDefault("baremetal:runbook:update:owner", ADMIN, "Set or unset a runbook's owner."),
    RuleDefault("baremetal:runbook:delete", ADMIN, "Delete a runbook."),
]
# Patch paths with their own rule, as Ironic checks them (any other path: runbook:update).
PATCH_RULES = (
    ("/owner", "baremetal:runbook:update:owner"),
    ("/public", "baremetal:runbook:update:public"),
)


def _gate(request: Request, rule: str | None = None, *, traits: bool = False) -> Response | None:
    """Ironic's router's own answer below 1.92 (reads 404, writes 405) and, for the traits
    resource, below 1.112 (404); None from those versions.

    With ``rule``, a caller whom the rule refuses even on a runbook their own project owns
    (the best case of every runbook rule) is refused (403) before the request is parsed or
    the runbook looked up, so a caller without the right learns nothing of what exists. The
    rule is checked again on the runbook itself once it is read."""
    version = microversion(request)
    if version < SINCE:
        if request.method == "GET":
            return router_answer(request, 404, "The API version does not allow runbooks")
        return router_answer(request, 405, "The API version does not allow runbooks")
    if traits and version < TRAITS_SINCE:
        return router_answer(request, 404, "The API version does not allow runbook traits")
    if rule is not None:
        ctx = context(request)
        ctx.authorize(rule, {"runbook.owner": _project(ctx.identity)})
    return None


def _target(row: dict[str, Any]) -> dict[str, object]:
    return {"runbook.owner": row["owner"]}


def _project(who: Identity) -> str | None:
    """The caller's project as Ironic's runbook rules see it: only a project-scoped token
    has one (noauth and static tokens have none, as Ironic's noauth context)."""
    return who.project_id if who.scope == "project" else None


def _known(version: Version) -> tuple[str, ...]:
    """The fields a runbook has at ``version``."""
    hidden = () if version >= TRAITS_SINCE else ("description", "traits")
    return tuple(f for f in RUNBOOK_FIELDS if f not in hidden)


def _fields(query: Query, version: Version) -> list[str] | None:
    """``fields=`` (``links`` may be named, and always comes), in Ironic's words."""
    if "fields" not in query.params:
        return None
    known = (*_known(version), "links")
    wanted = [n.strip() for n in query.params["fields"].split(",") if n.strip()]
    unknown = [n for n in dict.fromkeys(wanted) if n not in known]
    if unknown:
        raise Invalid(f'Field(s) "{", ".join(unknown)}" are not valid')
    return [f for f in dict.fromkeys(wanted) if f != "links"]


def _body(
    row: dict[str, Any], fields: list[str] | None, top: str, version: Version
) -> dict[str, Any]:
    """One runbook as Ironic shows it: its fields in Ironic's order (``links`` after
    ``disable_ramdisk``/``description``), only ``fields`` when given."""
    out: dict[str, Any] = {}
    keep = set(fields) if fields is not None else None
    for name in _known(version):
        if name == "steps":
            out["links"] = [
                link(f"{top}/v1/runbooks/{row['uuid']}", "self"),
                link(f"{top}/runbooks/{row['uuid']}", "bookmark"),
            ]
        if keep is not None and name not in keep:
            continue
        value = row[name]
        if name in ("created_at", "updated_at"):
            value = timestamp(value)
        elif name == "steps":
            value = [
                {
                    "interface": s["interface"],
                    "step": s["step"],
                    "args": rules.masked(s["args"]),
                    "order": s["order"],
                }
                for s in value
            ]
        out[name] = value
    return out


LIST_RUNBOOKS = Contract(
    "List runbooks (from 1.92)",
    {
        200: obj(
            {"runbooks": array(RUNBOOK), "next": string()},
            required=("runbooks",),
            additional=False,
        )
    },
    query=RUNBOOK_QUERY,
    errors=(*IRONIC_READ, 404),
)


def _listing_project(request: Request, project_flag: bool | None) -> tuple[str | None, bool]:
    """(the project whose runbooks and the public ones are listed, or None for all; whether
    only the public ones are), as Ironic's list rules: ``list_all`` lists every runbook
    (``?project=true``: the caller's project's and the public ones); else a project-scoped
    caller allowed ``list`` lists its project's and the public ones; anyone else is refused."""
    ctx = context(request)
    who = ctx.identity
    if ctx.allowed("baremetal:runbook:list_all"):
        if project_flag:
            project = _project(who)
            return project, project is None
        return None, False
    if _project(who) is None:
        ctx.authorize("baremetal:runbook:list_all")
    ctx.authorize("baremetal:runbook:list")
    return _project(who), False


@router.get("/v1/runbooks", response_model=None)
@declare(LIST_RUNBOOKS)
async def list_runbooks(request: Request) -> dict[str, Any] | Response:
    if (refused := _gate(request)) is not None:
        return refused
    version = microversion(request)
    query = Query(request, IRONIC)
    project_flag = query.flag("project")
    project, public_only = _listing_project(request, project_flag)
    LIST_RUNBOOKS.check_query(request)
    detail = query.flag("detail")
    fields = _fields(query, version)
    if detail is not None and fields is not None:
        raise Invalid("Can not specify ?detail=True and fields in the same request.")
    fields = fields if fields is not None else (None if detail else ["uuid", "name"])
    limit = query.page_size()
    sort_key = query.params.get("sort_key", "id")
    sort_dir = query.params.get("sort_dir", "asc")
    if sort_dir not in ("asc", "desc"):
        raise Invalid(f"Invalid sort direction: {sort_dir}. Acceptable values are 'asc' or 'desc'")
    if sort_key in ("extra", "steps", "traits"):
        raise Invalid(f"The sort_key value {sort_key} is an invalid field for sorting")
    if sort_key not in store.SORT_KEYS:
        raise Invalid(f'The sort_key value "{sort_key}" is an invalid field for sorting')
    marker = query.params.get("marker")  # a UUID; anything else is a 404 (the store)

    def work(connection: Connection) -> list[dict[str, Any]]:
        return store.list_all(
            connection,
            limit,
            marker,
            sort_dir,
            sort_key,
            project=project,
            public_only=public_only,
        )

    rows = await run(request, work, write=False)
    top = root(request)
    body: dict[str, Any] = {"runbooks": [_body(r, fields, top, version) for r in rows]}
    if is_full(rows, limit):
        # As Ironic builds it: the sort, detail as sent, the fields shown, then the page.
        args = [f"sort_key={sort_key}", f"sort_dir={sort_dir}"]
        if detail is not None:
            args.append(f"detail={detail}")
        if fields:
            args.append(f"fields={','.join(fields)}")
        args += [f"limit={limit}", f"marker={rows[-1]['uuid']}"]
        body["next"] = f"{top}/v1/runbooks?{'&'.join(args)}"
    return body


def _visible(request: Request, row: dict[str, Any], rule: str, *, public: bool) -> None:
    """Refuse (403) unless ``rule`` allows the caller on ``row``; with ``public``, a public
    runbook is shown to anyone (as Ironic's show)."""
    ctx = context(request)
    if ctx.allowed(rule, _target(row)):
        return
    if public and row["public"]:
        return
    raise PolicyDenied(rule)


SHOW_RUNBOOK = Contract(
    "Show a runbook (by UUID or name)",
    {200: RUNBOOK},
    query={"fields": FIELDS_LIST},
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/runbooks/{ident}", response_model=None)
@declare(SHOW_RUNBOOK)
async def show_runbook(request: Request, ident: str) -> dict[str, Any] | Response:
    if (refused := _gate(request, "baremetal:runbook:get")) is not None:
        return refused
    version = microversion(request)
    SHOW_RUNBOOK.check_query(request)
    rules.check_ident(ident)
    row = await run(request, lambda c: store.find(c, ident), write=False)
    _visible(request, row, "baremetal:runbook:get", public=True)
    fields = _fields(Query(request, IRONIC), version)
    return _body(row, fields, root(request), version)


CREATE_RUNBOOK = Contract(
    "Create a runbook (from 1.92)",
    {201: RUNBOOK},
    body=RUNBOOK_CREATE,
    errors=(*IRONIC_WRITE, 405, 409),
)


@router.post("/v1/runbooks", status_code=201, response_model=None)
@declare(CREATE_RUNBOOK)
async def create_runbook(request: Request, response: Response) -> dict[str, Any] | Response:
    if (refused := _gate(request)) is not None:
        return refused
    version = microversion(request)
    ctx = context(request)
    who = ctx.authorize("baremetal:runbook:create")
    CREATE_RUNBOOK.check_query(request)
    body = await json_body(request)
    values = rules.checked_create(body, traits_api=version >= TRAITS_SINCE)
    if who.system_scope != "all":
        # As Ironic: a caller that is not system-scoped creates runbooks its own project
        # owns (none without a project), and never a public one from a project.
        project = _project(who)
        if values["owner"] and values["owner"] != project:
            raise Invalid(
                "Cannot create a runbook as a project scoped admin with an owner other than "
                "your own project."
            )
        if project and values["public"]:
            raise Invalid("Cannot create a public runbook as a project scoped admin.")
        values["owner"] = project
    row = await run(request, lambda c: store.create(c, values), write=True)
    top = root(request)
    response.headers["Location"] = f"{top}/v1/runbooks/{row['uuid']}"
    return _body(row, None, top, version)


UPDATE_RUNBOOK = Contract(
    "Update a runbook with a JSON patch",
    {200: RUNBOOK},
    body=JSON_PATCH_BODY,
    patch=True,
    errors=(*IRONIC_WRITE, 404, 405, 409),
)


def _patch_rules(patch: list[dict[str, Any]]) -> list[str]:
    """The rules a patch needs, as Ironic picks them: /owner's and /public's own, and
    runbook:update for any other path (or an empty patch)."""
    found: list[str] = []
    generic = False
    for operation in patch:
        rule = next((r for p, r in PATCH_RULES if operation["path"].startswith(p)), None)
        if rule is None:
            generic = True
        else:
            found.append(rule)
    if generic or not found:
        found.append("baremetal:runbook:update")
    return found


@router.patch("/v1/runbooks/{ident}", response_model=None)
@declare(UPDATE_RUNBOOK)
async def update_runbook(request: Request, ident: str) -> dict[str, Any] | Response:
    if (refused := _gate(request, "baremetal:runbook:update")) is not None:
        return refused
    version = microversion(request)
    UPDATE_RUNBOOK.check_query(request)
    rules.check_ident(ident)
    patch = await json_body(request)
    traits_api = version >= TRAITS_SINCE
    rules.check_patch_paths(patch, traits_api=traits_api)
    ctx = context(request)

    def work(connection: Connection) -> dict[str, Any]:
        row = store.find(connection, ident, lock=True)
        for rule in _patch_rules(patch):
            ctx.authorize(rule, _target(row))
        return store.save(connection, row, rules.apply_patch(row, patch, traits_api=traits_api))

    row = await run(request, work, write=True)
    return _body(row, None, root(request), version)


DELETE_RUNBOOK = Contract("Delete a runbook", {204: None}, errors=(*IRONIC_READ, 404, 405))


@router.delete("/v1/runbooks/{ident}", status_code=204)
@declare(DELETE_RUNBOOK)
async def delete_runbook(request: Request, ident: str) -> Response:
    if (refused := _gate(request, "baremetal:runbook:delete")) is not None:
        return refused
    DELETE_RUNBOOK.check_query(request)
    rules.check_ident(ident)
    ctx = context(request)

    def work(connection: Connection) -> None:
        row = store.find(connection, ident, lock=True)
        ctx.authorize("baremetal:runbook:delete", _target(row))
        store.remove(connection, row)

    await run(request, work, write=True)
    return Response(status_code=204)


# Traits (from 1.112)

LIST_TRAITS = Contract(
    "List a runbook's traits (from 1.112)",
    {200: obj({"traits": array(string())}, required=("traits",), additional=False)},
    errors=(*IRONIC_READ, 404),
)


@router.get("/v1/runbooks/{ident}/traits", response_model=None)
@declare(LIST_TRAITS)
async def list_traits(request: Request, ident: str) -> dict[str, Any] | Response:
    if (refused := _gate(request, "baremetal:runbook:get", traits=True)) is not None:
        return refused
    LIST_TRAITS.check_query(request)
    rules.check_ident(ident)
    row = await run(request, lambda c: store.find(c, ident), write=False)
    _visible(request, row, "baremetal:runbook:get", public=False)
    return {"traits": row["traits"]}


SET_TRAITS = Contract(
    "Replace a runbook's traits (from 1.112)",
    {204: None},
    body=RUNBOOK_TRAITS,
    errors=(*IRONIC_WRITE, 404, 405),
)
ADD_TRAIT = Contract(
    "Add a trait to a runbook (from 1.112)", {204: None}, errors=(*IRONIC_WRITE, 404, 405)
)
REMOVE_TRAIT = Contract(
    "Remove one of a runbook's traits (from 1.112): one it has not is no change",
    {204: None},
    errors=(*IRONIC_WRITE, 404, 405),
)
CLEAR_TRAITS = Contract(
    "Remove every trait of a runbook (from 1.112)", {204: None}, errors=(*IRONIC_WRITE, 404, 405)
)
_PUT_ONE_OR_ALL = (
    "A single runbook trait may be added via PUT /v1/runbooks/<runbook identifier>/traits/"
    "<trait> with no body, or all runbook traits may be replaced via PUT /v1/runbooks/<runbook "
    "identifier>/traits with the list of traits specified in the request body."
)


def _check_trait(trait: Any, noun: str) -> str:
    """A trait Ironic accepts, else its schema's refusal."""
    if not isinstance(trait, str):
        raise Invalid(f"Schema error for {noun}: {trait!r} is not of type 'string'")
    if not is_valid_node_trait(trait):
        raise Invalid(
            f"Schema error for {noun}: {trait!r} is not valid under any of the given schemas. "
            f"Possible root cause: {trait!r} does not match '^CUSTOM_[A-Z0-9_]+$'"
        )
    return trait


async def _write_traits(request: Request, ident: str, change: Any) -> None:
    rules.check_ident(ident)
    ctx = context(request)

    def work(connection: Connection) -> None:
        row = store.find(connection, ident, lock=True)
        ctx.authorize("baremetal:runbook:update", _target(row))
        change(connection, row)

    await run(request, work, write=True)


@router.put("/v1/runbooks/{ident}/traits", status_code=204)
@declare(SET_TRAITS)
async def set_traits(request: Request, ident: str) -> Response:
    if (refused := _gate(request, "baremetal:runbook:update", traits=True)) is not None:
        return refused
    SET_TRAITS.check_query(request)
    raw = await request.body()
    body = await json_body(request) if raw.strip() else None
    if body is not None and not isinstance(body, dict):
        raise Invalid(f"Schema error for body: {body!r} is not of type 'object'")
    body = body or {}
    unexpected = [k for k in body if k != "traits"]
    if unexpected:
        raise Invalid(
            "Schema error for body: Additional properties are not allowed "
            f"({unexpected[0]!r} was unexpected)"
        )
    traits = body.get("traits")
    if traits is None:
        raise Invalid(_PUT_ONE_OR_ALL)
    if not isinstance(traits, list):
        raise Invalid(f"Schema error for body: {traits!r} is not of type 'array'")
    wanted = [_check_trait(t, "body") for t in traits]
    await _write_traits(request, ident, lambda c, row: store.set_traits(c, row, wanted))
    return Response(status_code=204)


@router.put("/v1/runbooks/{ident}/traits/{trait}", status_code=204)
@declare(ADD_TRAIT)
async def add_trait(request: Request, ident: str, trait: str) -> Response:
    if (refused := _gate(request, "baremetal:runbook:update", traits=True)) is not None:
        return refused
    ADD_TRAIT.check_query(request)
    _check_trait(trait, "trait")
    raw = await request.body()
    if raw.strip():
        body = await json_body(request)
        if isinstance(body, dict) and "traits" in body:
            raise Invalid(_PUT_ONE_OR_ALL)
        if body:
            raise Invalid("No body should be provided when adding a trait")
    await _write_traits(request, ident, lambda c, row: store.add_trait(c, row, trait))
    return Response(
        status_code=204, headers={"Location": f"{root(request)}/v1/runbooks/{ident}/traits/{trait}"}
    )


@router.delete("/v1/runbooks/{ident}/traits/{trait}", status_code=204)
@declare(REMOVE_TRAIT)
async def remove_trait(request: Request, ident: str, trait: str) -> Response:
    if (refused := _gate(request, "baremetal:runbook:update", traits=True)) is not None:
        return refused
    REMOVE_TRAIT.check_query(request)
    await _write_traits(request, ident, lambda c, row: store.remove_trait(c, row, trait))
    return Response(status_code=204)


@router.delete("/v1/runbooks/{ident}/traits", status_code=204)
@declare(CLEAR_TRAITS)
async def clear_traits(request: Request, ident: str) -> Response:
    if (refused := _gate(request, "baremetal:runbook:update", traits=True)) is not None:
        return refused
    CLEAR_TRAITS.check_query(request)
    await _write_traits(request, ident, lambda c, row: store.set_traits(c, row, []))
    return Response(status_code=204)
