"""What the handlers share, built once per application by api.app.create_app: the engine, the
policy, the served catalog, the matcher's index, the providers and the Ironic mirror."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from flavorsmith.api.auth import Credentials
from flavorsmith.api.policy import Enforcer
from flavorsmith.catalog.repo import Repository, RepoView
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.config import Settings
from flavorsmith.db.engine import Engine
from flavorsmith.db.immediate import ImmediateWriter
from flavorsmith.extra_specs.factory import completed
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.nodes.index_cache import IndexCache
from flavorsmith.providers.registry import DriverRegistry


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


class Background(Protocol):
    """The leader election of the background loops (serving/leader.py), as ``/readyz`` shows
    it."""

    def state(self) -> dict[str, Any]: ...


class MirrorState(Protocol):
    """The Ironic mirror (sync/mirror.py), as ``/v1/nodes/source`` and ``/readyz`` show it."""

    def state(self) -> dict[str, Any]: ...

    def not_ready(self) -> str | None: ...


class Warming:
    """The first warming of a served process (``api.warm``): until it has finished,
    ``/readyz`` answers 503 with what it is doing, so a load balancer sends no request that
    would wait seconds for the index. Later warmings (after a change) never make the process
    unready again: the previous index, groups and report answer meanwhile."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._doing: str | None = "warming: starting"
        self.failure: str | None = None  # the last failed attempt's error, until one succeeds

    def doing(self, what: str) -> None:
        """What the first warming does now (shown by ``/readyz``); nothing once it finished."""
        with self._lock:
            if self._doing is not None:
                self._doing = f"warming: {what}"

    def finished(self) -> None:
        with self._lock:
            self._doing = None
            self.failure = None

    def pending(self) -> str | None:
        """Why the process is not ready yet (what it warms, and the last error, if any), or
        None once the first warming finished."""
        with self._lock:
            if self._doing is None:
                return None
            if self.failure is not None:
                return f"{self._doing} (the last attempt failed: {self.failure}; trying again)"
            return self._doing


@dataclass
class Services:
    """Everything handlers need, reached through api.context. ``mirror`` is set when the
    nodes are a real Ironic's (``serve --ironic-endpoint`` / ``--ironic-cloud``): node writes
    are refused then, and ``/readyz`` waits for its first load (by whichever process leads).
    ``leadership`` is set when ``serve`` runs background loops: only the process that leads
    runs them, and ``/readyz`` says which one that is. ``warming`` is set when ``serve`` warms
    the caches on a thread of its own: ``/readyz`` waits for its first round. ``immediate``
    is the engine's immediate writer when the database is a SQLite file (short writes on the
    event loop, and the checkpoints they leave to worker threads: db/immediate.py)."""

    settings: Settings
    engine: Engine
    enforcer: Enforcer
    catalog: CatalogState
    index_cache: IndexCache
    providers: DriverRegistry
    immediate: ImmediateWriter | None = None
    mirror: MirrorState | None = None
    leadership: Background | None = None
    warming: Warming | None = None
    # Under Keystone: (project id, the caller's token) -> False when Keystone has no such
    # project, as Nova checks when flavor access is added. None without Keystone.
    verify_project: Callable[[str, str | None], bool] | None = None
    # Under Keystone: a password login's project-scoped token (``POST /v1/login``; it blocks
    # on Keystone). None without Keystone: no login is offered.
    login: Callable[[Credentials], dict[str, Any]] | None = None
