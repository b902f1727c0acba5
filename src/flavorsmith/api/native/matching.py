"""/v1: the nodes of a flavor, the flavors of a node, why a pair does not match, capacity,
and the flavors by node groups matrix.

Each answer is computed on the catalog as the caller may see it (flavorsmith.visibility): a
private flavor hidden from the caller is a 404 here, is never listed as a node's flavor, and
takes no part in capacity, so it shows neither in names nor in the competition counts, nor in
a pool leak (a caller who may not read access lists sees "other projects" for the projects a
leak would name)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response

from flavorsmith.api.context import authorize, call, run, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.links import base
from flavorsmith.api.native.schemas import EXPLAIN_FLAVOR_ANSWER, EXPLAIN_NODE_ANSWER
from flavorsmith.api.paging import next_href
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.query import NATIVE, Query
from flavorsmith.api.schema import ANY_OBJECT, QUERY_BOOL, QUERY_LIMIT, UUID, array, obj, string
from flavorsmith.api.viewers import may_list_access, viewer
from flavorsmith.catalog import trait_use
from flavorsmith.catalog.model import Catalog, Flavor
from flavorsmith.catalog.repo import RepoView
from flavorsmith.db.engine import Connection
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import Forbidden, Invalid, NotFound, ServiceUnavailable
from flavorsmith.ironic.deploy_steps import deploy_plan
from flavorsmith.ironic.runbooks import runbook_plan
from flavorsmith.matching import matrix, reports
from flavorsmith.matching.diagnosis import Context
from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index
from flavorsmith.store import deploy_templates as template_store
from flavorsmith.store import nodes as node_store
from flavorsmith.visibility import may_see, visible_catalog

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:match:get", "role:reader", "Read matches and capacity."),
]


def _authorize(request: Request) -> None:
    authorize(request, "flavorsmith:match:get")


async def _inputs(request: Request, contract: Contract) -> tuple[Catalog, Index]:
    """What most handlers start with: policy, then the query checked against ``contract``,
    then the catalog as the caller may see it and the current index."""
    _authorize(request)
    contract.check_query(request)
    catalog = _served(request).catalog
    index = await call(request, services(request).index_cache.current)
    return visible_catalog(catalog, viewer(request)), index


FLAVOR_NODES = Contract(
    "The nodes a flavor can land on",
    {200: obj(required=("flavor", "count", "generation", "nodes"))},
    query={"limit": QUERY_LIMIT, "marker": UUID, "available": QUERY_BOOL},
    errors=(*READ, 404, 503),
)


@router.get("/flavors/{name}/nodes")
@declare(FLAVOR_NODES)
async def flavor_nodes(request: Request, name: str) -> Response:
    _authorize(request)
    FLAVOR_NODES.check_query(request)
    rule = _visible_rule(request, _served(request), name)
    query = Query(request, NATIVE)
    available = query.flag("available")
    limit = query.page_size()
    marker = query.marker()
    index = await call(request, services(request).index_cache.current)
    page = reports.node_page(index, rule, available=available, marker=marker, limit=limit)
    head = {"flavor": rule.name, "count": page.count, "generation": index.snapshot.generation}
    following = None
    if page.more:
        url = f"{base(request)}/v1/flavors/{name}/nodes"
        last = index.snapshot.nodes[page.positions[-1]].uuid
        following = next_href(request, url, limit=limit, marker=last)
    body = _page_json(head, _entries(index), page.positions, following)
    return Response(body, media_type=JSON)


# The nodes of a flavor are the answer asked for most, and its size grows with the inventory:
# its body is written from each node's JSON text, made once per index, rather than built as
# objects and serialized on every request.
JSON = "application/json"


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _page_json(
    head: dict[str, Any],
    entries: Callable[[int], bytes],
    positions: list[int],
    following: str | None,
) -> bytes:
    """``{**head, "nodes": [...], "next": following}`` as JSON (``next`` only when there is
    one): the document a dict of it serializes to."""
    parts = [_json(head)[:-1], b',"nodes":[', b",".join(map(entries, positions)), b"]"]
    if following is not None:
        parts += [b',"next":', _json(following)]
    parts.append(b"}")
    return b"".join(parts)


# A flavor's nodes are asked for far more often than the catalog or the nodes change: the
# catalog's rules are made once per load, a node's JSON entry once per index (one of each is
# kept).
@dataclass(frozen=True)
class _Served:
    view: RepoView
    catalog: Catalog
    rules: dict[str, tuple[Flavor, FlavorRule]]


_served_cache: _Served | None = None
_entries_cache: tuple[Index, list[bytes | None]] | None = None


def _served(request: Request) -> _Served:
    """The served catalog (every flavor) and its rules; 503 while it has errors."""
    global _served_cache
    view = services(request).catalog.view()
    cached = _served_cache
    if cached is not None and cached.view is view:
        return cached
    if has_errors(view.diagnostics):
        raise ServiceUnavailable(
            "The catalog has errors, so nothing is matched; GET /v1/catalog lists them"
        )
    catalog = view.catalog
    flavors = {f.name: f for f in catalog.flavors}
    rules = {r.name: (flavors[r.name], r) for r in reports.rules_of(catalog)}
    _served_cache = cached = _Served(view, catalog, rules)
    return cached


def _visible_rule(request: Request, served: _Served, name: str) -> FlavorRule:
    """The rule of the flavor ``name`` if the caller may see it (visible_catalog's rule, for
    one flavor), else 404 as for a flavor that does not exist."""
    found = served.rules.get(name)
    if found is None or not may_see(viewer(request), found[0].is_public, found[0].projects):
        raise NotFound(f"No flavor named {name!r} in the catalog")
    return found[1]


def _entries(index: Index) -> Callable[[int], bytes]:
    """The JSON text of the node at a position, made once for ``index``."""
    global _entries_cache
    cached = _entries_cache
    if cached is None or cached[0] is not index:
        cached = (index, [None] * len(index.snapshot.nodes))
        _entries_cache = cached
    made = cached[1]
    nodes = index.snapshot.nodes

    def entry(position: int) -> bytes:
        found = made[position]
        if found is None:
            found = made[position] = _json(reports.node_entry(nodes[position]))
        return found

    return entry


NODE_FLAVORS = Contract(
    "The flavors a node can serve",
    {200: obj(required=("node", "flavors"))},
    errors=(*READ, 404, 503),
)


@router.get("/nodes/{ident}/flavors")
@declare(NODE_FLAVORS)
async def node_flavors(request: Request, ident: str) -> dict[str, Any]:
    catalog, index = await _inputs(request, NODE_FLAVORS)
    node = reports.find_node(index, ident)
    return {
        "node": reports.node_entry(node),
        "flavors": reports.flavors_of(node, reports.rules_of(catalog), reports.known_traits(index)),
    }


EXPLAIN_PAIR = Contract(
    "Whether a flavor can land on a node, and why not",
    {200: ANY_OBJECT},
    errors=(*READ, 404, 503),
)


@router.get("/flavors/{name}/nodes/{ident}")
@declare(EXPLAIN_PAIR)
async def explain_pair(request: Request, name: str, ident: str) -> dict[str, Any]:
    catalog, index = await _inputs(request, EXPLAIN_PAIR)
    rule = reports.find_flavor(reports.rules_of(catalog), name)
    return reports.pair(reports.find_node(index, ident), rule, reports.known_traits(index))


CAPACITY = Contract("Capacity per flavor", {200: ANY_OBJECT}, errors=(*READ, 503))


@router.get("/capacity")
@declare(CAPACITY)
async def capacity(request: Request) -> dict[str, Any]:
    catalog, index = await _inputs(request, CAPACITY)
    names = may_list_access(request)

    def work() -> dict[str, Any]:
        body = reports.capacity(index, reports.rules_of(catalog))
        body["findings"]["pool_leaks"] = reports.pool_leaks(
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
    return Context(project=project, access=reports.access_of(catalog, flavor))


EXPLAIN_FLAVOR = Contract(
    "A flavor's nodes counted by the first reason it cannot land there",
    {200: EXPLAIN_FLAVOR_ANSWER},
    query={"project": string()},
    errors=(*READ, 404, 503),
)


@router.get("/flavors/{name}/explain")
@declare(EXPLAIN_FLAVOR)
async def explain_flavor(request: Request, name: str) -> dict[str, Any]:
    """The flavor's nodes counted by reason: the same as ``flavorsmith explain FLAVOR -f json``."""
    catalog, index = await _inputs(request, EXPLAIN_FLAVOR)
    rule = reports.find_flavor(reports.rules_of(catalog), name)
    context = _explain_context(request, catalog, rule.name)
    return await call(request, lambda: reports.explain_flavor(index, rule, context))


EXPLAIN_NODE = Contract(
    "Every reason a flavor cannot land on a node: catalog, Ironic, Placement, access",
    {200: EXPLAIN_NODE_ANSWER},
    query={"project": string()},
    errors=(*READ, 404, 503),
)


@router.get("/flavors/{name}/nodes/{ident}/explain")
@declare(EXPLAIN_NODE)
async def explain_node(request: Request, name: str, ident: str) -> dict[str, Any]:
    """Every reason the flavor cannot land on the node: ``flavorsmith explain FLAVOR NODE``."""
    catalog, index = await _inputs(request, EXPLAIN_NODE)
    rule = reports.find_flavor(reports.rules_of(catalog), name)
    node = reports.find_node(index, ident)
    context = _explain_context(request, catalog, rule.name)
    return await call(request, lambda: reports.explain_node(index, rule, node, context))


FLAVOR_NODE_MATRIX = Contract(
    "Flavors by node groups (same resource class and traits): the nodes of each group "
    "each flavor can land on, filtered by the nodes' resource class, traits and "
    "provision state, the groups paged",
    {
        200: obj(
            {
                "generation": {"type": "integer"},
                "nodes": {"type": "integer"},
                "group_count": {"type": "integer"},
                "groups": array(ANY_OBJECT),
                "flavors": array(ANY_OBJECT),
                "next": string(),
            },
            required=("generation", "nodes", "group_count", "groups", "flavors"),
        )
    },
    query={
        "resource_class": string(),
        "trait": string(),
        "provision_state": string(),
        "limit": QUERY_LIMIT,
        "marker": string(),
    },
    errors=(*READ, 503),
)


@router.get("/matrix")
@declare(FLAVOR_NODE_MATRIX)
async def flavor_node_matrix(request: Request) -> dict[str, Any]:
    """Flavors by node groups (same resource class and traits), filtered by the nodes'
    ``resource_class``, ``trait`` (comma-separated: every one) and ``provision_state``; the
    groups paged with ``limit`` and ``marker`` (a group's id)."""
    catalog, index = await _inputs(request, FLAVOR_NODE_MATRIX)
    query = Query(request, NATIVE)
    traits = query.get("trait")
    filters = matrix.Filters(
        resource_class=query.get("resource_class") or None,
        traits=tuple(t for t in (traits or "").split(",") if t),
        provision_state=query.get("provision_state") or None,
    )
    limit = query.page_size()
    marker = query.marker()
    rules = reports.rules_of(catalog)
    page = await call(
        request, lambda: matrix.matrix(index, rules, filters, marker=marker, limit=limit)
    )
    body = page.body
    if page.last is not None:
        url = f"{base(request)}/v1/matrix"
        body["next"] = next_href(request, url, limit=limit, marker=page.last)
    return body


NODE_MATCHES = Contract(
    "A node, and for every flavor whether it can land there and why not",
    {200: obj(required=("generation", "node", "trait_owners", "flavors"))},
    errors=(*READ, 404, 503),
)


@router.get("/nodes/{ident}/matches")
@declare(NODE_MATCHES)
async def node_matches(request: Request, ident: str) -> dict[str, Any]:
    """A node (with its traits, states and what keeps Nova from scheduling on it, and who owns
    each trait), and every
    flavor the caller may see: whether the matcher lets it land there, and why not (the
    dashboard's node page; ``explain FLAVOR NODE`` has the reasons by layer)."""
    catalog, index = await _inputs(request, NODE_MATCHES)
    node = reports.find_node(index, ident)
    known = reports.known_traits(index)
    detail = reports.node_detail(node)
    return {
        "generation": index.snapshot.generation,
        "node": detail,
        # Who decides each trait: the trait-rule file owning it, Nova, or "by hand".
        "trait_owners": [o.as_dict() for o in trait_use.owners(catalog, detail["traits"])],
        "flavors": [reports.pair(node, rule, known) for rule in reports.rules_of(catalog)],
    }


TEMPLATE_SOURCES = ("service", "catalog")


FLAVOR_DEPLOY_PLAN = Contract(
    "The deploy steps provisioning the node with the flavor would run, in order, and "
    "why each deploy template was or was not applied (flavorsmith deploy plan)",
    {
        200: obj(
            {
                "flavor": string(),
                "templates_from": string(enum=["service", "catalog"]),
                "node": string(),
                "driver": string(),
                "instance_traits": array(string()),
                "steps": array(ANY_OBJECT),
                "templates": array(ANY_OBJECT),
                "errors": array(string()),
            },
            required=("flavor", "node", "driver", "steps", "templates", "errors"),
        )
    },
    query={"templates": string(enum=["service", "catalog"])},
    errors=(*READ, 404, 503),
)


@router.get("/flavors/{name}/nodes/{ident}/deploy-plan")
@declare(FLAVOR_DEPLOY_PLAN)
async def flavor_deploy_plan(request: Request, name: str, ident: str) -> dict[str, Any]:
    """The deploy steps provisioning the node with the flavor would run, in order, where each
    comes from, why each deploy template was or was not applied, and what Ironic or Nova would
    refuse: ``flavorsmith deploy plan NODE --flavor FLAVOR``. ``templates=service`` (the
    default) uses the deploy templates this service holds, ``templates=catalog`` the
    catalog's (before a sync)."""
    _authorize(request)
    FLAVOR_DEPLOY_PLAN.check_query(request)
    source = request.query_params.get("templates", "service")
    if source not in TEMPLATE_SOURCES:
        raise Invalid(f"templates must be one of {', '.join(TEMPLATE_SOURCES)}, not {source!r}")
    served = _served(request)
    _visible_rule(request, served, name)
    flavor = served.rules[name][0]
    catalog_templates = [
        template_store.as_template(t.as_api()) for t in served.catalog.deploy_templates
    ]

    def work(connection: Connection) -> dict[str, Any]:
        node = node_store.find(connection, ident, by_name=True)
        traits = node_store.traits_of(connection, [node["id"]])[node["id"]]
        templates = (
            catalog_templates if source == "catalog" else template_store.all_templates(connection)
        )
        return {"flavor": name, "templates_from": source} | deploy_plan(
            node, traits, templates, flavor
        )

    return await run(request, work, write=False)


NODE_RUNBOOKS = Contract(
    "The catalog's runbooks the node may run, because of which of its traits, and the steps "
    "each would run in order on its driver (flavorsmith runbook plan)",
    {
        200: obj(
            {
                "node": string(),
                "driver": string(),
                "traits": array(string()),
                "runbooks": array(
                    obj(
                        {
                            "runbook": string(),
                            "allowed": {"type": "boolean"},
                            "because": array(string()),
                            "reason": string(),
                            "steps": array(ANY_OBJECT),
                        },
                        required=("runbook", "allowed", "because", "reason", "steps"),
                    )
                ),
                "problems": array(string()),
            },
            required=("node", "driver", "traits", "runbooks", "problems"),
        )
    },
    errors=(*READ, 404, 503),
)


@router.get("/nodes/{ident}/runbooks")
@declare(NODE_RUNBOOKS)
async def node_runbooks(request: Request, ident: str) -> dict[str, Any]:
    """Which of the catalog's runbooks the node may run (Ironic's rule: it has one of the
    runbook's traits), because of which traits, the steps each would run in order, and
    ``problems``: a step its driver does not offer (``flavorsmith runbook plan NODE``). A
    caller who is not an admin sees the public runbooks and their project's, as Ironic shows
    them."""
    _authorize(request)
    NODE_RUNBOOKS.check_query(request)
    who = viewer(request)
    runbooks = [
        r.as_api()
        for r in _served(request).catalog.runbooks
        if may_see(who, r.public, (r.owner,) if r.owner else ())
    ]

    def work(connection: Connection) -> dict[str, Any]:
        node = node_store.find(connection, ident, by_name=True)
        traits = node_store.traits_of(connection, [node["id"]])[node["id"]]
        return runbook_plan(node, traits, runbooks)

    return await run(request, work, write=False)
