"""What the handlers share, built once per application by api.app.create_app: the engine, the
policy, the served catalog, the matcher's index, the extra-spec registry and the providers."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from flavorsmith.api.policy import Enforcer
from flavorsmith.catalog.repo import Repository, RepoView
from flavorsmith.config import Settings
from flavorsmith.db.engine import Engine
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.inventory.index_cache import IndexCache
from flavorsmith.providers.registry import Registry as ProviderRegistry


class CatalogState:
    """The catalog repository the service serves, loaded once and reloaded on demand."""

    def __init__(self, root: Path | None) -> None:
        self.repository = Repository(root) if root is not None else None
        self._lock = threading.Lock()
        self._view: RepoView | None = None

    def view(self) -> RepoView:
        with self._lock:
            if self._view is None:
                self._view = self._load()
            return self._view

    def reload(self) -> RepoView:
        with self._lock:
            self._view = self._load()
            return self._view

    def _load(self) -> RepoView:
        if self.repository is None:
            return RepoView()
        return self.repository.load()


@dataclass
class Services:
    """Everything handlers need, reached through api.context."""

    settings: Settings
    engine: Engine
    enforcer: Enforcer
    catalog: CatalogState
    index_cache: IndexCache
    registry: Registry
    providers: ProviderRegistry
