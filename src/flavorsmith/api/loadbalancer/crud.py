"""The five Octavia handlers a flavor profile and a flavor both have (list, show, create,
update, delete), made from one description of the resource: Octavia 19 serves both with the
same controller shape (api/v2/controllers/flavor_profiles.py and flavors.py), so they differ
only in names, fields, policy, what a write calls and the errors it may answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.context import authorize, run, services
from flavorsmith.api.contract import READ, WRITE, Contract, declare
from flavorsmith.api.loadbalancer.common import (
    ROOTS,
    fields_of,
    listing,
    select_fields,
    wrapped_body,
)
from flavorsmith.api.loadbalancer.schemas import octavia_list, octavia_list_query
from flavorsmith.api.schema import Schema, array, obj, string
from flavorsmith.api.services import Services
from flavorsmith.db.engine import Connection

Row = dict[str, Any]


@dataclass(frozen=True)
class Resource:
    """One Octavia collection: its names, shapes, policy, store and service calls."""

    name: str  # in the handlers' route names (list_<name>s, show_<name>, ...)
    policy: str  # the rules' prefix: "<policy>:get_all", ":get_one", ":post", ":put", ":delete"
    kind: str  # the store's name for the rows (service_flavors.page)
    collection: str  # the path segment and the list's key
    member: str  # one row's key in a body
    links_key: str
    fields: tuple[str, ...]
    schema: Schema
    create_body: Schema
    update_body: Schema
    create_fields: frozenset[str]
    update_fields: frozenset[str]
    summaries: tuple[str, str, str, str, str]  # list, show, create, update, delete
    find: Callable[[Connection, str], Row]
    create: Callable[[Connection, Services, Row], Row]
    update: Callable[[Connection, Services, str, Row], Row]
    delete: Callable[[Connection, str], None]
    write_errors: tuple[int, ...] = ()  # what creates and updates may answer besides 409
    delete_errors: tuple[int, ...] = ()  # what a delete may answer besides 404
    shown: Callable[[Row], Row] = dict  # a row as Octavia shows it


def router_for(resource: Resource) -> APIRouter:
    """The resource's five handlers, each declared with its contract, on every root."""
    r = resource
    one = obj({r.member: r.schema}, required=(r.member,))
    list_summary, show_summary, create_summary, update_summary, delete_summary = r.summaries
    listed = Contract(
        list_summary,
        {200: octavia_list(r.collection, r.schema)},
        query=octavia_list_query(r.fields),
        errors=(*READ, 404),
        query_array=("fields",),
    )
    showed = Contract(
        show_summary,
        {200: one},
        query={"fields": array(string(enum=list(r.fields)))},
        errors=(*READ, 404),
        query_array=("fields",),
    )
    created = Contract(
        create_summary,
        {201: one},
        body=r.create_body,
        errors=(*WRITE, 409, *r.write_errors),
    )
    updated = Contract(
        update_summary,
        {200: one},
        body=r.update_body,
        errors=(*WRITE, 404, 409, *r.write_errors),
    )
    deleted = Contract(delete_summary, {204: None}, errors=(*READ, 404, *r.delete_errors))

    @declare(listed)
    async def list_rows(request: Request) -> dict[str, Any]:
        authorize(request, f"{r.policy}:get_all")
        return await listing(
            request,
            r.kind,
            collection=r.collection,
            links_key=r.links_key,
            known=r.fields,
            filterable=r.fields,
            shown=r.shown,
        )

    @declare(showed)
    async def show_row(request: Request, ident: str) -> dict[str, Any]:
        authorize(request, f"{r.policy}:get_one")
        showed.check_query(request)
        row = await run(request, lambda c: r.find(c, ident), write=False)
        return {r.member: select_fields(r.shown(row), fields_of(request, r.fields))}

    async def write(
        request: Request,
        action: str,
        contract: Contract,
        allowed: frozenset[str],
        work: Callable[[Connection, Services, Row], Row],
    ) -> dict[str, Any]:
        """A create or an update: policy, query, the wrapped body, ``work`` in a transaction."""
        authorize(request, f"{r.policy}:{action}")
        contract.check_query(request)
        values = await wrapped_body(request, r.member, allowed)
        shared = services(request)
        row = await run(request, lambda c: work(c, shared, values), write=True)
        return {r.member: r.shown(row)}

    @declare(created)
    async def create_row(request: Request, response: Response) -> dict[str, Any]:
        body = await write(request, "post", created, r.create_fields, r.create)
        response.status_code = 201
        return body

    @declare(updated)
    async def update_row(request: Request, ident: str) -> dict[str, Any]:
        def work(c: Connection, shared: Services, values: Row) -> Row:
            return r.update(c, shared, ident, values)

        return await write(request, "put", updated, r.update_fields, work)

    @declare(deleted)
    async def delete_row(request: Request, ident: str) -> Response:
        authorize(request, f"{r.policy}:delete")
        deleted.check_query(request)
        await run(request, lambda c: r.delete(c, ident), write=True)
        return Response(status_code=204)

    router = APIRouter()
    for root in ROOTS:
        rows = f"{root}/{r.collection}"
        row = f"{rows}/{{ident}}"
        router.add_api_route(rows, list_rows, methods=["GET"], name=f"list_{r.name}s")
        router.add_api_route(rows, create_row, methods=["POST"], name=f"create_{r.name}")
        router.add_api_route(row, show_row, methods=["GET"], name=f"show_{r.name}")
        router.add_api_route(row, update_row, methods=["PUT"], name=f"update_{r.name}")
        router.add_api_route(
            row, delete_row, methods=["DELETE"], status_code=204, name=f"delete_{r.name}"
        )
    return router
