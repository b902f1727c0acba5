"""The service's own database as a sync target, written through the same stores as its API
handlers. This module holds only what every such target shares (one transaction per call, a
store's refusal as a TargetError); each kind's module holds its own target, built on
:class:`StoreTarget`, and names it in its ``Kind``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flavorsmith.db.engine import Engine, writer
from flavorsmith.errors import FlavorsmithError, TargetError
from flavorsmith.sync.engine import AnyKind, ProjectCheck, SpecCheck, refuses_nothing


class StoreTarget:
    """One transaction per call; a store's refusal becomes a TargetError."""

    transient_conflicts = False  # whether a 409 is worth retrying
    project_check: ProjectCheck | None = None  # under Keystone: are project ids real?

    def __init__(self, engine: Engine, spec_check: SpecCheck = refuses_nothing) -> None:
        self.engine = engine
        self.spec_check = spec_check
        self.calls = 0

    def _run(self, work: Callable[[Any], Any], write: bool = True) -> Any:
        self.calls += 1
        try:
            with (writer(self.engine) if write else self.engine).begin() as connection:
                return work(connection)
        except FlavorsmithError as exc:
            transient = self.transient_conflicts and exc.status == 409
            raise TargetError(exc.message, status=exc.status, transient=transient) from None


def target(
    kind: AnyKind,
    engine: Engine,
    *,
    spec_check: SpecCheck | None = None,
    project_check: ProjectCheck | None = None,
) -> Any:
    """The service's own database as the target of ``kind``; ``spec_check`` refuses the extra
    specs its compute API would refuse (none, when not given); ``project_check`` (under
    Keystone) refuses project ids Keystone does not know. A kind with no such target is a
    TargetError that says so."""
    if kind.store_target is None:
        raise TargetError(no_store_target(kind))
    made = kind.store_target(engine, spec_check or refuses_nothing)
    made.project_check = project_check
    return made


def no_store_target(kind: AnyKind) -> str:
    """Why ``kind`` cannot be synced into the service's own database."""
    return (
        f"{kind.name} cannot be synced into the service's own database, only into a real "
        f"cloud's {kind.service} service"
    )
