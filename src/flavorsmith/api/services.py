"""What the handlers share, built once per application by api.app.create_app: the engine, the
policy, the served catalog, the matcher's index, the providers and the Ironic mirror."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flavorsmith.api.policy import Enforcer
from flavorsmith.catalog.repo import Repository, RepoView
from flavorsmith.config import Settings
from flavorsmith.db.engine import Engine
from flavorsmith.extra_specs.factory import completed
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.inventory.index_cache import IndexCache
from flavorsmith.providers.registry import DriverRegistry
from flavorsmith.rulebook import catalog_rules
from flavorsmith.sync.leader import Leadership
from flavorsmith.sync.mirror import Mirror


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

    def rules_registry(self, view: RepoView) -> Registry:
        """The registry ``view`` completes (a catalog loaded outside this state, e.g. a plan's),
        from the same base; the served catalog's is not changed."""
        return completed(self._base, view.catalog.extra_specs)[0]

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
        # Served until the next load: its did-you-mean index is built now, not on the first
        # misspelt key a request sends.
        return view, registry.prepare()


@dataclass
class Services:
    """Everything handlers need, reached through api.context. ``mirror`` is set when the
    nodes are a real Ironic's (``serve --ironic-endpoint`` / ``--ironic-cloud``): node writes
    are refused then, and ``/readyz`` waits for its first load (by whichever process leads).
    ``leadership`` is set when ``serve`` runs background loops: only the process that leads
    runs them, and ``/readyz`` says which one that is."""

    settings: Settings
    engine: Engine
    enforcer: Enforcer
    catalog: CatalogState
    index_cache: IndexCache
    providers: DriverRegistry
    mirror: Mirror | None = None
    leadership: Leadership | None = None
    # Under Keystone: (project id, the caller's token) -> False when Keystone has no such
    # project, as Nova checks when flavor access is added. None without Keystone.
    verify_project: Callable[[str, str | None], bool] | None = None
