"""/v1: the nodes of a flavor, the flavors of a node, why a pair does not match, capacity.

Each answer is computed on the catalog as the caller may see it (flavorsmith.visibility): a
private flavor hidden from the caller is a 404 here, is never listed as a node's flavor, and
takes no part in capacity, so it shows neither in names nor in the competition counts, nor in
a pool leak (a caller who may not read access lists sees "other projects" for the projects a
leak would name)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, call, services
from flavorsmith.api.links import base
from flavorsmith.api.paging import cut, next_href
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.query import NATIVE, Query
from flavorsmith.api.requests import check_query
from flavorsmith.api.viewers import may_list_access, viewer
from flavorsmith.catalog.model import Catalog
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import Forbidden, Invalid, ServiceUnavailable
from flavorsmith.matching import views
from flavorsmith.matching.diagnosis import Context
from flavorsmith.matching.index import Index
from flavorsmith.visibility import visible_catalog

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:match:get", "role:reader", "Read matches and capacity."),
]


def _authorize(request: Request) -> None:
    authorize(request, "flavorsmith:match:get")


async def _inputs(request: Request) -> tuple[Catalog, Index]:
    shared = services(request)
    view = shared.catalog.view()
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is matched; GET /v1/catalog lists them"
        )
    index = await call(request, shared.index_cache.current)
    return visible_catalog(view.catalog, viewer(request)), index


@router.get("/flavors/{name}/nodes")
async def flavor_nodes(request: Request, name: str) -> dict[str, Any]:
    _authorize(request)
    check_query(request, ("limit", "marker", "available"))
    catalog, index = await _inputs(request)
    rule = views.find_flavor(views.rules_of(catalog), name)
    query = Query(request, NATIVE)
    nodes = views.nodes_of(index, rule)
    available = query.flag("available")
    if available is not None:
        nodes = [n for n in nodes if n.available == available]
    limit = query.page_size()
    page = cut(
        nodes,
        lambda n: n.uuid,
        marker=query.marker(),
        limit=limit,
        missing=lambda marker: Invalid(f"Marker {marker!r} is not one of this flavor's nodes"),
    )
    body: dict[str, Any] = {
        "flavor": rule.name,
        "count": len(nodes),
        "generation": index.snapshot.generation,
        "nodes": [views.node_entry(n) for n in page.items],
    }
    if page.more_forward:
        url = f"{base(request)}/v1/flavors/{name}/nodes"
        body["next"] = next_href(request, url, limit=limit, marker=page.items[-1].uuid)
    return body


@router.get("/nodes/{ident}/flavors")
async def node_flavors(request: Request, ident: str) -> dict[str, Any]:
    _authorize(request)
    check_query(request, ())
    catalog, index = await _inputs(request)
    node = views.find_node(index, ident)
    return {
        "node": views.node_entry(node),
        "flavors": views.flavors_of(node, views.rules_of(catalog), views.known_traits(index)),
    }


@router.get("/flavors/{name}/nodes/{ident}")
async def explain_pair(request: Request, name: str, ident: str) -> dict[str, Any]:
    _authorize(request)
    check_query(request, ())
    catalog, index = await _inputs(request)
    rule = views.find_flavor(views.rules_of(catalog), name)
    return views.pair(views.find_node(index, ident), rule, views.known_traits(index))


@router.get("/capacity")
async def capacity(request: Request) -> dict[str, Any]:
    _authorize(request)
    check_query(request, ())
    catalog, index = await _inputs(request)
    names = may_list_access(request)

    def work() -> dict[str, Any]:
        body = views.capacity(index, views.rules_of(catalog))
        body["findings"]["pool_leaks"] = views.pool_leaks(
            catalog.flavors, index, name_projects=names
        )
        return body

    return await call(request, work)


def _explain_context(request: Request, catalog: Catalog, flavor: str) -> Context:
    """Who boots: ``?project=`` (another project than the caller's only for those who may
    read flavor access lists), else the caller's project (none for an admin)."""
    asked = Query(request, NATIVE).get("project")
    who = viewer(request)
    if asked is not None and asked != who.project_id and not may_list_access(request):
        raise Forbidden(
            f"Explaining for project {asked!r} needs the right to read flavor access; "
            "omit ?project= to explain for your own project"
        )
    if asked == "":
        raise Invalid("?project= needs a project ID")
    project = asked if asked is not None else (None if who.admin else who.project_id)
    return Context(project=project, access=views.access_of(catalog, flavor))


@router.get("/flavors/{name}/explain")
async def explain_flavor(request: Request, name: str) -> dict[str, Any]:
    """The flavor's nodes counted by reason: the same as ``flavorsmith explain FLAVOR -f json``."""
    _authorize(request)
    check_query(request, ("project",))
    catalog, index = await _inputs(request)
    rule = views.find_flavor(views.rules_of(catalog), name)
    context = _explain_context(request, catalog, rule.name)
    return await call(request, lambda: views.explain_flavor(index, rule, context))


@router.get("/flavors/{name}/nodes/{ident}/explain")
async def explain_node(request: Request, name: str, ident: str) -> dict[str, Any]:
    """Every reason the flavor cannot land on the node: ``flavorsmith explain FLAVOR NODE``."""
    _authorize(request)
    check_query(request, ("project",))
    catalog, index = await _inputs(request)
    rule = views.find_flavor(views.rules_of(catalog), name)
    node = views.find_node(index, ident)
    context = _explain_context(request, catalog, rule.name)
    return await call(request, lambda: views.explain_node(index, rule, node, context))
