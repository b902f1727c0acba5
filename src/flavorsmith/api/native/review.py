"""/v1/review: what a change of the catalog the service reads does to what can be sold, on the
service's own nodes — the document ``flavorsmith review -f json`` prints (its format:
docs/reference/review-format.md) — and /v1/review/refs, the revisions to choose from.

``base`` and ``head`` are Git refs of the catalog repository (``head`` defaults to its working
tree), read as the command reads them (flavorsmith.sync.review). A catalog outside Git (a
mounted ConfigMap) has no revisions: 409. Both revisions are matched on the index the capacity
page uses, and seen as the caller may see them (flavorsmith.visibility): a private flavor
hidden from the caller takes no part, and a caller who may not read access lists sees "other
projects" where a pool leak or a Nova access change would name them; a caller who is not an
admin sees the load-balancer flavors that change but not their profiles, as Octavia shows
them, and the network flavors that change but not their service profiles, as Neutron shows
them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, call, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.query import NATIVE, Query
from flavorsmith.api.schema import ANY_OBJECT, array, obj, string
from flavorsmith.api.viewers import may_list_access, viewer
from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.errors import Conflict, Invalid
from flavorsmith.matching import review as diff
from flavorsmith.matching.index import Index
from flavorsmith.matching.pools import Leak
from flavorsmith.sync import review as revisions
from flavorsmith.visibility import Viewer

router = APIRouter()

POLICIES = [
    RuleDefault(
        "flavorsmith:review:get",
        "role:reader",
        "Review what a change of the catalog repository does to capacity.",
    ),
]

OTHER_PROJECTS = "other projects"
REF = string(minLength=1, maxLength=256, pattern="^[^-]")


def _root(request: Request) -> Path:
    """The catalog repository's root; 409 when the service reads no repository in Git."""
    repository = services(request).catalog.repository
    if repository is None:
        raise Conflict("The service reads no catalog repository, so there is nothing to review")
    root = repository.root
    if not revisions.in_git(root):
        raise Conflict(
            f"The catalog the service reads ({root}) is not in a Git repository (a mounted "
            "ConfigMap, say): it has no revisions to review"
        )
    return root


def _ref(query: Query, name: str) -> str | None:
    value = query.get(name)
    if value is None:
        return None
    if not value:
        raise Invalid(f"?{name}= needs a Git ref")
    try:
        return revisions.check_ref(value)
    except Invalid as exc:
        raise Invalid(f"{name}: {exc.message}") from None


REVIEW = Contract(
    "What a change of the catalog repository (base to head, Git refs) does to what can be "
    "sold on the service's nodes: flavorsmith review -f json",
    {
        200: obj(
            {
                "format_version": {"type": "integer"},
                "headline": string(),
                "base": string(),
                "head": string(),
                "fleet": ANY_OBJECT,
                "flavors": array(ANY_OBJECT),
                "unschedulable": array(string()),
                "nodes": ANY_OBJECT,
                "pool_leaks": ANY_OBJECT,
                "nova": array(ANY_OBJECT),
                "runbooks": array(ANY_OBJECT),
                "load_balancer_flavors": obj(
                    {"profiles": array(ANY_OBJECT), "flavors": array(ANY_OBJECT)},
                    required=("profiles", "flavors"),
                ),
                "network_flavors": array(ANY_OBJECT),
                "diagnostics": ANY_OBJECT,
                "gates": array(ANY_OBJECT),
            },
            required=("format_version", "headline", "base", "head", "flavors", "gates"),
        )
    },
    query={"base": REF, "head": REF},
    errors=(*READ, 404, 409),
)


@router.get("/review")
@declare(REVIEW)
async def review(request: Request) -> dict[str, Any]:
    """The review of ``head`` (default: the working tree) against ``base`` (required)."""
    authorize(request, "flavorsmith:review:get")
    REVIEW.check_query(request)
    query = Query(request, NATIVE)
    base = _ref(query, "base")
    if base is None:
        raise Invalid("?base= is required: the Git ref the change starts from")
    head = _ref(query, "head")
    root = _root(request)
    shared = services(request)
    who = viewer(request)
    named = may_list_access(request)
    index = await call(request, shared.index_cache.current)
    return await call(
        request, lambda: _document(root, base, head, shared.catalog.rules, index, who, named)
    )


def _document(
    root: Path,
    base: str,
    head: str | None,
    rules: CatalogRules,
    index: Index,
    who: Viewer,
    named: bool,
) -> dict[str, Any]:
    with (
        revisions.revision(root, base, rules, viewer=who) as old,
        revisions.revision(root, head, rules, viewer=who) as new,
    ):
        result = diff.review(
            old.catalog,
            new.catalog,
            index,
            base_diagnostics=old.diagnostics,
            head_diagnostics=new.diagnostics,
            lb_replaced=revisions.lb_replaced(old.catalog, new.catalog),
            net_replaced=revisions.net_replaced(old.catalog, new.catalog),
        )
        result.nova.extend(revisions.nova_changes(old.catalog, new.catalog))
        if not who.admin:
            # Octavia shows flavor profiles (provider, flavor data) to its admins only, and
            # Neutron service profiles; their flavors, to every reader.
            lbs = replace(result.load_balancers, profiles=())
            result = replace(
                result,
                load_balancers=lbs,
                network_flavors=_without_profiles(result.network_flavors),
            )
        if not named:
            flavors = (*old.catalog.flavors, *new.catalog.flavors)
            result = _unnamed(result, {p for f in flavors for p in f.projects})
        return revisions.document(result, old.label, new.label, ())


def _without_profiles(flavors: list[diff.NetFlavorDiff]) -> list[diff.NetFlavorDiff]:
    """The network flavors as Neutron shows them to a caller who is not an admin: without
    their service profiles (a profile's driver and metainfo, the ones swapped), and a flavor
    only its profiles changed left out."""
    out = []
    for flavor in flavors:
        changes = tuple(c for c in flavor.changes if not c.field.startswith(diff.PROFILES_FIELD))
        if flavor.status == "changed" and not changes and not flavor.replaced:
            continue
        out.append(replace(flavor, changes=changes, made=(), removed=()))
    return out


def _unnamed(result: diff.Review, projects: set[str]) -> diff.Review:
    """The review for a caller who may not read access lists: "other projects" where a
    leak's audience, or a Nova access change, would name ``projects``."""

    def unnamed(leak: Leak) -> Leak:
        return leak if leak.audience == "public" else replace(leak, audience=OTHER_PROJECTS)

    return replace(
        result,
        leaks_started=[unnamed(x) for x in result.leaks_started],
        leaks_stopped=[unnamed(x) for x in result.leaks_stopped],
        nova=[_scrubbed(entry, projects) for entry in result.nova],
    )


def _scrubbed(value: Any, projects: set[str]) -> Any:
    """``value`` with every project of ``projects`` it names said as "other projects"."""
    if isinstance(value, str):
        for project in projects:
            value = value.replace(project, OTHER_PROJECTS)
        return value
    if isinstance(value, list):
        out = [_scrubbed(v, projects) for v in value]
        return [v for i, v in enumerate(out) if v not in out[:i]]
    if isinstance(value, dict):
        return {k: _scrubbed(v, projects) for k, v in value.items()}
    return value


REFS = Contract(
    "The revisions of the catalog repository to review: its branches and tags, and its "
    "last commits",
    {
        200: obj(
            {"refs": array(ANY_OBJECT), "commits": array(ANY_OBJECT)},
            required=("refs", "commits"),
        )
    },
    errors=(*READ, 409),
)


@router.get("/review/refs")
@declare(REFS)
async def review_refs(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:review:get")
    REFS.check_query(request)
    root = _root(request)
    return await call(request, lambda: revisions.refs(root))
