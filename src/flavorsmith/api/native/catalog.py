"""/v1/catalog: the loaded catalog, its diagnostics and its derived Nova flavors, each as the
caller may see it (flavorsmith.visibility): a private flavor hidden from the caller is absent
from counts, lists and diagnostics, and its URL is a 404; its projects are shown only to
callers allowed to list flavor access."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.policy import RuleDefault
from flavorsmith.api.requests import check_query, identity
from flavorsmith.api.viewers import may_list_access, viewer
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository, RepoView
from flavorsmith.diagnostics import has_errors
from flavorsmith.errors import NotFound
from flavorsmith.extra_specs.factory import catalog_rules, completed
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.visibility import visible_catalog, visible_diagnostics

router = APIRouter()

POLICIES = [
    RuleDefault("flavorsmith:catalog:get", "role:reader", "Read the catalog and its diagnostics."),
    RuleDefault("flavorsmith:catalog:reload", "role:admin", "Reload the catalog from disk."),
]


class CatalogState:
    """The catalog repository the service serves, loaded once and reloaded on demand, with
    the extra-spec registry its definition files complete (completed again on every load,
    from the base registry the app was composed with)."""

    def __init__(self, root: Path | None, base: Registry) -> None:
        self.rules = catalog_rules(base)
        self.repository = Repository(root, self.rules) if root is not None else None
        self._base = base
        self._lock = threading.Lock()
        self._loaded: tuple[RepoView, Registry] | None = None

    def view(self) -> RepoView:
        return self._current()[0]

    def registry(self) -> Registry:
        """The extra-spec registry of the catalog as last loaded."""
        return self._current()[1]

    def reload(self) -> RepoView:
        with self._lock:
            self._loaded = self._load()
            return self._loaded[0]

    def _current(self) -> tuple[RepoView, Registry]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[RepoView, Registry]:
        view = RepoView() if self.repository is None else self.repository.load()
        registry, _ = completed(self._base, view.catalog.extra_specs)
        return view, registry


def _state(request: Request) -> CatalogState:
    state: CatalogState = request.app.state.services.catalog
    return state


def _authorize(request: Request, rule: str) -> None:
    request.app.state.services.enforcer.authorize(rule, identity(request))


def _summary(request: Request, state: CatalogState, view: RepoView) -> dict[str, Any]:
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


@router.get("/catalog")
def get_catalog(request: Request) -> dict[str, Any]:
    _authorize(request, "flavorsmith:catalog:get")
    check_query(request, ())
    state = _state(request)
    return _summary(request, state, state.view())


@router.post("/catalog/reload")
def reload_catalog(request: Request) -> dict[str, Any]:
    _authorize(request, "flavorsmith:catalog:reload")
    check_query(request, ())
    state = _state(request)
    return _summary(request, state, state.reload())


@router.get("/catalog/nova-flavors")
def nova_flavors(request: Request) -> dict[str, Any]:
    from flavorsmith.nova.derive import derive

    _authorize(request, "flavorsmith:catalog:get")
    check_query(request, ())
    derived, unresolved = derive(_catalog(request))
    access = may_list_access(request)
    flavors = [f.as_dict() for f in derived]
    if not access:
        for entry in flavors:
            del entry["projects"]
    return {"nova_flavors": flavors, "unresolved": [f.name for f in unresolved]}


@router.get("/catalog/flavors/{name}")
def flavor(request: Request, name: str) -> dict[str, Any]:
    _authorize(request, "flavorsmith:catalog:get")
    check_query(request, ())
    found = _catalog(request).flavor(name)
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
    return body
