"""/v1/catalog: the loaded catalog, its diagnostics and its derived Nova flavors, each as the
caller may see it (flavorsmith.visibility): a private flavor hidden from the caller is absent
from counts, lists and diagnostics, and its URL is a 404; its projects are shown only to
callers allowed to list flavor access."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.native.schemas import CATALOG_SUMMARY
from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.schema import ANY_OBJECT, array, obj, string
from flavorsmith.api.services import CatalogState
from flavorsmith.api.viewers import may_list_access, viewer
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import RepoView
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import NotFound
from flavorsmith.extra_specs.registry import Verdict
from flavorsmith.nova.derive import derive, derive_flavor, selected_templates
from flavorsmith.visibility import visible_catalog, visible_diagnostics

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:catalog:get", "role:reader", "Read the catalog and its diagnostics."),
    RuleDefault("flavorsmith:catalog:reload", "role:admin", "Reload the catalog from disk."),
]


def _state(request: Request) -> CatalogState:
    return services(request).catalog


def _summary(request: Request, view: RepoView) -> dict[str, Any]:
    state = _state(request)
    who = viewer(request)
    catalog = visible_catalog(view.catalog, who)
    shown, withheld = visible_diagnostics(view, who)
    body: dict[str, Any] = {
        "repository": str(state.repository.root) if state.repository else None,
        "device_types": len(catalog.device_types),
        "flavors": len(catalog.flavors),
        "valid": not has_errors(view.diagnostics),
        "diagnostics": [d.as_dict() for d in shown],
    }
    if withheld:
        body["diagnostics_withheld"] = withheld
    return body


def _catalog(request: Request) -> Catalog:
    """The loaded catalog as the caller may see it."""
    return visible_catalog(_state(request).view().catalog, viewer(request))


GET_CATALOG = Contract(
    "The loaded catalog and its diagnostics", {200: CATALOG_SUMMARY}, errors=READ
)


@router.get("/catalog")
@declare(GET_CATALOG)
def get_catalog(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:catalog:get")
    GET_CATALOG.check_query(request)
    return _summary(request, _state(request).view())


RELOAD_CATALOG = Contract("Reload the catalog from disk", {200: CATALOG_SUMMARY}, errors=READ)


@router.post("/catalog/reload")
@declare(RELOAD_CATALOG)
def reload_catalog(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:catalog:reload")
    RELOAD_CATALOG.check_query(request)
    return _summary(request, _state(request).reload())


NOVA_FLAVORS = Contract(
    "The Nova flavors the catalog derives",
    {
        200: obj(
            {"nova_flavors": array(ANY_OBJECT), "unresolved": array(string())},
            required=("nova_flavors", "unresolved"),
        )
    },
    errors=READ,
)


@router.get("/catalog/nova-flavors")
@declare(NOVA_FLAVORS)
def nova_flavors(request: Request) -> dict[str, Any]:
    authorize(request, "flavorsmith:catalog:get")
    NOVA_FLAVORS.check_query(request)
    derived, unresolved = derive(_catalog(request))
    access = may_list_access(request)
    flavors = [f.as_dict() for f in derived]
    if not access:
        for entry in flavors:
            del entry["projects"]
    return {"nova_flavors": flavors, "unresolved": [f.name for f in unresolved]}


FLAVOR = Contract(
    "One catalog flavor", {200: obj(required=("name", "traits"))}, errors=(*READ, 404)
)


@router.get("/catalog/flavors/{name}")
@declare(FLAVOR)
def flavor(request: Request, name: str) -> dict[str, Any]:
    authorize(request, "flavorsmith:catalog:get")
    FLAVOR.check_query(request)
    catalog = _catalog(request)
    found = catalog.flavor(name)
    if found is None:
        raise NotFound(f"No flavor named {name!r} in the catalog")
    body: dict[str, Any] = {
        "name": found.name,
        "resource_class": found.resource_class,
        "description": found.description,
        "is_public": found.is_public,
        "traits": [
            {"trait": t.trait, "full_name": t.full_name, "state": t.state} for t in found.traits
        ],
    }
    if may_list_access(request):
        body["projects"] = list(found.projects)
    # Where it is written, each extra spec of the Nova flavor derived from it with the
    # validator's verdict (as the compute API would judge it), and the deploy templates its
    # required traits name.
    body["file"] = found.doc.display if found.doc is not None else None
    resolved = catalog.resource_class(found.resource_class)
    registry = _state(request).registry()
    if resolved is None:
        body["extra_specs"] = []
    else:
        derived = derive_flavor(found, resolved[1], catalog.deploy_templates)
        body["extra_specs"] = [
            _verdict(registry.verdict(k, v)) for k, v in derived.extra_specs.items()
        ]
    chosen = selected_templates(found, catalog.deploy_templates)
    body["deploy_templates"] = [t.as_api() for t in catalog.deploy_templates if t.name in chosen]
    return body


def _verdict(verdict: Verdict) -> dict[str, Any]:
    out = verdict.as_dict()
    out["validator"] = verdict.validator
    out["deprecated"] = verdict.deprecated
    return out
