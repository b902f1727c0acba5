"""The catalog a long-running process classifies with: loaded once, and again whenever a file
under hardware/ changes (a cheap fingerprint is compared on every use). A catalog with errors
is never used: until it is fixed there is no catalog, and the reason says why."""

from __future__ import annotations

import logging
import threading

from flavorsmith.catalog.fingerprint import fingerprint
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.diagnostics import Severity

SHOWN_ERRORS = 5  # the log names this many of a broken catalog's errors


class LiveCatalog:
    """The catalog of ``repository``, reloaded when its files change; thread-safe."""

    def __init__(self, repository: Repository, log: logging.Logger) -> None:
        self.repository = repository
        self._log = log
        self._lock = threading.Lock()
        self._fingerprint: str | None = None
        self._catalog: Catalog | None = None
        self.problem: str | None = None  # why there is no catalog to use, if there is none
        self.loads = 0

    def current(self) -> Catalog | None:
        """The catalog as its files are now; None when it cannot be used (``problem`` says
        why, and the load that found it logged each error once)."""
        with self._lock:
            seen = fingerprint(self.repository.root)
            if seen != self._fingerprint:
                # Files changing while it loads change the fingerprint again: the next use
                # loads once more, so the catalog never lags a settled change.
                self._catalog, self.problem = self._load()
                self._fingerprint = seen
                self.loads += 1
            return self._catalog

    def _load(self) -> tuple[Catalog | None, str | None]:
        root = self.repository.root
        try:
            view = self.repository.load()
        except Exception as exc:  # an unreadable catalog must never break the caller
            problem = f"the catalog at {root} could not be loaded: {type(exc).__name__}: {exc}"
            self._log.error("%s", problem)
            return None, problem
        errors = [d for d in view.diagnostics if d.severity is Severity.ERROR]
        if errors:
            problem = f"the catalog at {root} has {len(errors)} error(s); it is not used"
            shown = "\n".join(f"  {d.render()}" for d in errors[:SHOWN_ERRORS])
            more = len(errors) - SHOWN_ERRORS
            tail = f"\n  ... and {more} more" if more > 0 else ""
            self._log.error("%s until they are fixed:\n%s%s", problem, shown, tail)
            return None, problem
        catalog = view.catalog
        warnings = len(view.diagnostics)
        self._log.info(
            "loaded the catalog at %s: %d device type(s), %d trait rule file(s)%s",
            root,
            len(catalog.device_types),
            len(catalog.trait_rules),
            f", {warnings} warning(s)" if warnings else "",
        )
        return catalog, None
