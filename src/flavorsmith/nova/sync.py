"""One sync round of any kind (flavors, deploy templates, ...): load and validate the
catalog, derive, observe, plan, and optionally apply — with the rules that keep a wrong path
or a half-checked-out repository from deleting anything: a catalog that failed to load or has
errors is never applied, and a prune that would delete every managed object of a kind is
refused unless the caller allows it explicitly. Only one applier runs at a time per database
(a PostgreSQL advisory lock, or a lock file beside the SQLite database)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.diagnostics import Diagnostic, has_errors
from flavorsmith.nova.apply import Planned, Report, apply
from flavorsmith.nova.derive import derive
from flavorsmith.nova.reconcile import plan
from flavorsmith.nova.targets import Target, TargetError

LOCK_KEY = int.from_bytes(hashlib.sha256(b"flavorsmith-sync").digest()[:7], "big")
ALLOW_EMPTY_HINT = "--allow-empty, or allow_empty=true over the API"


@dataclass
class Round:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    actions: Sequence[Planned] = field(default_factory=list)
    report: Report | None = None
    error: str | None = None
    refused: int = 0  # deletions a refused prune would have made

    @property
    def blocked(self) -> bool:
        return has_errors(self.diagnostics) or self.error is not None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "diagnostics": [d.as_dict() for d in self.diagnostics],
            "actions": [a.as_dict() for a in self.actions],
        }
        if self.error:
            out["error"] = self.error
        if self.refused:
            out["refused_deletes"] = self.refused
        if self.report is not None:
            out["results"] = [o.as_dict() for o in self.report.outcomes]
            out["api_calls"] = self.report.calls
            out["writes"] = self.report.writes
            out["failed"] = len(self.report.failed)
        return out


class Owned(Protocol):
    """An object a target holds; ``managed`` when this service created it."""

    @property
    def managed(self) -> bool: ...


D = TypeVar("D")
O = TypeVar("O", bound=Owned)  # noqa: E741
A = TypeVar("A", bound=Planned)


def prune_refusal(
    actions: Sequence[Planned], observed: Mapping[str, Owned], noun: str
) -> tuple[int, str | None]:
    """(deletions, why refused) when ``actions`` would delete every managed object."""
    managed = sum(1 for o in observed.values() if o.managed)
    deletes = sum(1 for a in actions if a.kind == "delete")
    if deletes == 0 or deletes < managed:
        return 0, None
    what = (
        f"the only managed {noun.rstrip('s')}" if deletes == 1 else f"all {deletes} managed {noun}"
    )
    return deletes, (
        f"refused: pruning would delete {what} and leave none (is the catalog path right, or "
        f"are files missing?); to delete them all, allow it explicitly ({ALLOW_EMPTY_HINT})"
    )


def sync_round(
    repository: Repository,
    *,
    noun: str,
    desired: Callable[[Catalog], D],
    observe: Callable[[], Mapping[str, O]],
    plan_of: Callable[[D, Mapping[str, O]], Sequence[A]],
    apply_all: Callable[[Sequence[A]], Report],
    execute: bool,
    allow_empty: bool = False,
) -> Round:
    """The one round every kind of sync runs; see the module's rules."""
    result = Round()
    view = repository.load()  # a missing hardware/ folder is an error here, not "empty"
    result.diagnostics = view.diagnostics
    if has_errors(result.diagnostics):
        return result
    wanted = desired(view.catalog)
    try:
        observed = observe()
    except TargetError as exc:
        result.error = f"cannot read the target's {noun}: {exc}"
        return result
    actions = plan_of(wanted, observed)
    result.actions = actions
    if not allow_empty:
        result.refused, result.error = prune_refusal(actions, observed, noun)
        if result.error is not None:
            return result
    if execute:
        result.report = apply_all(actions)
    return result


def run(
    repository: Repository,
    target: Target,
    *,
    prune: bool,
    execute: bool,
    allow_empty: bool = False,
) -> Round:
    return sync_round(
        repository,
        noun="flavors",
        desired=lambda catalog: derive(catalog)[0],
        observe=target.observe,
        plan_of=lambda flavors, observed: plan(flavors, observed, prune=prune),
        apply_all=lambda actions: apply(actions, target),
        execute=execute,
        allow_empty=allow_empty,
    )


@contextlib.contextmanager
def exclusive(engine: Engine, *, wait: bool) -> Iterator[bool]:
    """Yield True when this process holds the sync lock (False: another applier runs)."""
    url = make_url(str(engine.url))
    if url.get_backend_name() == "postgresql":
        with engine.connect() as connection:
            if wait:
                connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": LOCK_KEY})
                got = True
            else:
                got = bool(
                    connection.execute(
                        text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY}
                    ).scalar()
                )
            try:
                yield got
            finally:
                if got:
                    connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
                    connection.commit()
        return
    database = url.database or ""
    path = Path(f"{database}.sync.lock") if database not in ("", ":memory:") else None
    if path is None:
        yield True
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            got = True
        except BlockingIOError:
            got = False
        try:
            yield got
        finally:
            if got:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
