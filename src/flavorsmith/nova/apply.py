"""Carrying out a sync plan: each flavor on its own, transient failures retried with backoff,
every outcome reported."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

from flavorsmith.nova.reconcile import Action, desired_specs
from flavorsmith.nova.targets import Target, TargetError


class Planned(Protocol):
    """One planned action of any sync (flavors, deploy templates)."""

    @property
    def kind(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def writes(self) -> bool: ...
    def as_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Outcome:
    action: Planned
    ok: bool
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = self.action.as_dict()
        out["outcome"] = "done" if self.ok else ("skipped" if self.error is None else "failed")
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    calls: int = 0

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok and o.error]

    @property
    def writes(self) -> int:
        return sum(1 for o in self.outcomes if o.ok and o.action.writes)


def retrying(operation: Callable[[], None], attempts: int, backoff: float) -> None:
    for attempt in range(attempts):
        try:
            operation()
            return
        except TargetError as exc:
            if not exc.transient or attempt == attempts - 1:
                raise
            time.sleep(backoff * (2**attempt))


def _steps(action: Action, target: Target) -> list[Callable[[], None]]:
    flavor_id = action.flavor
    want = action.desired
    steps: list[Callable[[], None]] = []
    if action.kind in ("create", "replace"):
        assert want is not None
        if action.kind == "replace":
            steps.append(partial(target.delete, flavor_id))
        steps.append(partial(target.create, want))
        steps.append(partial(target.set_specs, flavor_id, desired_specs(want)))
        if not want.is_public:
            steps += [partial(target.add_project, flavor_id, p) for p in want.projects]
    elif action.kind == "update":
        if action.change_description:
            steps.append(partial(target.set_description, flavor_id, action.description))
        if action.set_specs:
            steps.append(partial(target.set_specs, flavor_id, action.set_specs))
        steps += [partial(target.unset_spec, flavor_id, k) for k in action.unset_specs]
    elif action.kind == "access":
        steps += [partial(target.add_project, flavor_id, p) for p in action.add_projects]
        steps += [partial(target.remove_project, flavor_id, p) for p in action.remove_projects]
    elif action.kind == "delete":
        steps.append(partial(target.delete, flavor_id))
    return steps


P = TypeVar("P", bound=Planned)


def carry_out(
    actions: Sequence[P],
    steps_of: Callable[[P], list[Callable[[], None]]],
    calls: Callable[[], int],
    *,
    attempts: int = 4,
    backoff: float = 0.2,
) -> Report:
    """Any sync's plan: each action on its own, transient failures retried with backoff,
    conflicts and non-writes reported without a call; ``calls`` reads the target's count."""
    report = Report()
    for action in actions:
        if action.kind == "conflict":
            report.outcomes.append(Outcome(action, False, action.reason))
            continue
        if not action.writes:
            report.outcomes.append(Outcome(action, False, None))
            continue
        try:
            for step in steps_of(action):
                retrying(step, attempts, backoff)
        except TargetError as exc:
            report.outcomes.append(Outcome(action, False, str(exc)))
            continue
        report.outcomes.append(Outcome(action, True))
    report.calls = calls()
    return report


def apply(
    actions: Sequence[Action], target: Target, *, attempts: int = 4, backoff: float = 0.2
) -> Report:
    return carry_out(
        actions,
        lambda action: _steps(action, target),
        lambda: target.calls,
        attempts=attempts,
        backoff=backoff,
    )
