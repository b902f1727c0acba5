"""Who may see a flavor (Nova's rule) or a runbook (Ironic's), in one place for /compute and
every /v1 view of either.

An admin sees every flavor; anyone else sees the public flavors and the private ones whose
access list holds their project. A flavor the viewer may not see does not exist for them: it
is absent from lists, counts and cross-references, and a direct URL answers 404."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import RepoView
from flavorsmith.diagnostics import Diagnostic


@dataclass(frozen=True)
class Viewer:
    """Who is looking: ``admin`` as Nova's ``context.is_admin``, and the caller's project."""

    admin: bool
    project_id: str | None


# The command line reads the catalog and database directly, with an operator's rights.
OPERATOR = Viewer(admin=True, project_id=None)


def may_see(viewer: Viewer, is_public: bool, projects: Collection[str]) -> bool:
    """Nova's flavor visibility rule."""
    if viewer.admin or is_public:
        return True
    return viewer.project_id is not None and viewer.project_id in projects


class Shared(Protocol):
    @property
    def is_public(self) -> bool: ...

    @property
    def projects(self) -> tuple[str, ...]: ...


S = TypeVar("S", bound=Shared)


def visible(viewer: Viewer, flavors: Iterable[S]) -> list[S]:
    """The flavors the viewer may see, in their order."""
    return [f for f in flavors if may_see(viewer, f.is_public, f.projects)]


def may_see_runbook(viewer: Viewer, public: bool, owner: str | None) -> bool:
    """Ironic's runbook rule: an admin sees every runbook, anyone else the public ones and
    those their project owns."""
    return may_see(viewer, public, (owner,) if owner else ())


def visible_catalog(catalog: Catalog, viewer: Viewer) -> Catalog:
    """The catalog as the viewer may see it: the same, without the flavors and runbooks hidden
    from them."""
    if viewer.admin:
        return catalog
    return dataclasses.replace(
        catalog,
        flavors=tuple(visible(viewer, catalog.flavors)),
        runbooks=tuple(r for r in catalog.runbooks if may_see_runbook(viewer, r.public, r.owner)),
    )


def _declared(data: object) -> tuple[str | None, bool, tuple[str, ...]]:
    """Name, is_public and projects as a flavor file declares them, even one that does not
    validate (so a broken private flavor stays as private as a good one)."""
    if not isinstance(data, dict):
        return None, True, ()
    name = data.get("name")
    projects = data.get("projects")
    return (
        name if isinstance(name, str) else None,
        data.get("is_public", True) is True,
        tuple(p for p in projects if isinstance(p, str)) if isinstance(projects, list) else (),
    )


def visible_diagnostics(view: RepoView, viewer: Viewer) -> tuple[list[Diagnostic], int]:
    """The diagnostics the viewer may read, and how many were withheld: those in the file of a
    flavor hidden from them, and those naming such a flavor or one of its projects."""
    if viewer.admin:
        return list(view.diagnostics), 0
    hidden_files: set[str] = set()
    hidden_words: set[str] = set()
    for loaded in view.loaded:
        if loaded.kind is not FLAVOR or loaded.doc is None:
            continue
        name, is_public, projects = _declared(loaded.doc.data)
        if may_see(viewer, is_public, projects):
            continue
        hidden_files.add(loaded.doc.display)
        hidden_words.update(w for w in (name, *projects) if w)
    shown = [
        d
        for d in view.diagnostics
        if d.path not in hidden_files and not any(w in d.message for w in hidden_words)
    ]
    return shown, len(view.diagnostics) - len(shown)
