"""One sync round: load and validate the catalog, derive, observe, plan, and optionally apply.
Only one applier runs at a time per database (a PostgreSQL advisory lock, or a lock file
beside the SQLite database)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from flavorsmith.catalog.repo import Repository
from flavorsmith.diagnostics import Diagnostic, has_errors
from flavorsmith.nova.apply import Planned, Report, apply
from flavorsmith.nova.derive import NovaFlavor, derive
from flavorsmith.nova.reconcile import plan
from flavorsmith.nova.targets import Target, TargetError

LOCK_KEY = int.from_bytes(hashlib.sha256(b"flavorsmith-sync").digest()[:7], "big")


@dataclass
class Round:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    actions: Sequence[Planned] = field(default_factory=list)
    report: Report | None = None
    error: str | None = None

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
        if self.report is not None:
            out["results"] = [o.as_dict() for o in self.report.outcomes]
            out["api_calls"] = self.report.calls
            out["writes"] = self.report.writes
            out["failed"] = len(self.report.failed)
        return out


def desired(repository: Repository) -> tuple[list[NovaFlavor], list[Diagnostic]]:
    """The catalog's Nova flavors; none at all when the catalog has any error."""
    view = repository.load()
    if has_errors(view.diagnostics):
        return [], view.diagnostics
    flavors, _ = derive(view.catalog)
    return flavors, view.diagnostics


def run(repository: Repository, target: Target, *, prune: bool, execute: bool) -> Round:
    result = Round()
    flavors, result.diagnostics = desired(repository)
    if has_errors(result.diagnostics):
        return result
    try:
        observed = target.observe()
    except TargetError as exc:
        result.error = f"cannot read the target's flavors: {exc}"
        return result
    result.actions = plan(flavors, observed, prune=prune)
    if execute:
        result.report = apply(result.actions, target)
    return result


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
