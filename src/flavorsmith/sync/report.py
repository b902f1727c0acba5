"""What a sync round says: its planned actions (each with the attribute changes it makes), each
action's outcome, the calls it made. ``Round.as_dict`` is the plan format of ``sync plan -f
json``, ``sync plan --out`` and ``/v1/sync/plan``: versioned by ``FORMAT_VERSION``
(docs/reference/plan-format.md). ``Servers`` is how many servers use an object a plan deletes
or replaces, as far as the target could tell."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flavorsmith.diagnostics import Diagnostic, has_errors
from flavorsmith.servers_in_use import Servers

FORMAT_VERSION = 1
OPS = ("add", "remove", "change")


@dataclass(frozen=True)
class Change:
    """One attribute an action sets, removes or changes: ``field`` names it (``vcpus``,
    ``extra_specs.KEY``, ``access`` with one project); ``forces``: it forces a replace."""

    op: str  # one of OPS
    field: str
    old: Any = None
    new: Any = None
    forces: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "field": self.field}
        if self.op != "add":
            out["old"] = self.old
        if self.op != "remove":
            out["new"] = self.new
        if self.forces:
            out["forces_replace"] = True
        return out


def key_changes(
    where: str, old: Mapping[str, Any], new: Mapping[str, Any], keys: Sequence[str]
) -> list[Change]:
    """``where.KEY`` added, removed or changed between two mappings, in the order of ``keys``."""
    out = []
    for key in keys:
        if key not in old:
            out.append(Change("add", f"{where}.{key}", new=new[key]))
        elif key not in new:
            out.append(Change("remove", f"{where}.{key}", old=old[key]))
        elif old[key] != new[key]:
            out.append(Change("change", f"{where}.{key}", old[key], new[key]))
    return out


def position_changes(
    where: str, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
) -> list[Change]:
    """Two lists of mappings (a template's or a runbook's steps) compared by position:
    ``where[N]`` added or removed, or ``where[N].FIELD`` changed."""
    out = []
    for i in range(max(len(old), len(new))):
        if i >= len(old):
            out.append(Change("add", f"{where}[{i}]", new=new[i]))
        elif i >= len(new):
            out.append(Change("remove", f"{where}[{i}]", old=old[i]))
        else:
            was, now = old[i], new[i]
            keys = [*was, *(k for k in now if k not in was)]
            out += key_changes(f"{where}[{i}]", was, now, keys)
    return out


def servers_of(action: Planned) -> Servers | None:
    """The servers counted for ``action`` (None: a kind or action that counts none)."""
    found = getattr(action, "servers", None)
    return found if isinstance(found, Servers) else None


def changes_of(action: Planned) -> tuple[Change, ...]:
    """The attribute changes of ``action``; none for a kind whose actions do not list them."""
    found = getattr(action, "changes", ())
    return tuple(found) if isinstance(found, tuple) else ()


def action_dict(action: Planned) -> dict[str, Any]:
    """One action in the plan format: ``action`` and ``subject``, the kind's own fields, and
    its changes."""
    out = {"action": action.kind, "subject": action.subject, **action.as_dict()}
    out["changes"] = [c.as_dict() for c in changes_of(action)]
    servers = servers_of(action)
    if servers is not None:
        out["servers"] = servers.as_dict()
    return out


class Planned(Protocol):
    """One planned action of any kind."""

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
        out = action_dict(self.action)
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

    def changed(self) -> dict[str, list[str]]:
        """The objects changed, by action (create, update, delete, ...), in order."""
        out: dict[str, list[str]] = {}
        for outcome in self.outcomes:
            if outcome.ok and outcome.action.writes:
                out.setdefault(outcome.action.kind, []).append(outcome.action.subject)
        return out


@dataclass
class Round:
    """One round of one kind: the catalog's diagnostics, the plan, and what applying it did."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    actions: Sequence[Planned] = field(default_factory=list)
    report: Report | None = None
    error: str | None = None
    refused: int = 0  # deletions a refused prune would have made
    # Objects to delete or replace that servers use, with their counts, when that refused it.
    in_use: dict[str, int] = field(default_factory=dict)
    kind: str = ""  # the registry name of the kind planned
    prune: bool = False
    # What the plan was made against: each observed object's fingerprint, by its identity.
    observed: dict[str, str] = field(default_factory=dict)

    @property
    def blocked(self) -> bool:
        return has_errors(self.diagnostics) or self.error is not None

    @property
    def changes(self) -> int:
        """How many actions write."""
        return sum(1 for a in self.actions if a.writes)

    def summary(self) -> dict[str, int]:
        """How many actions of each kind, in the order they first appear."""
        out: dict[str, int] = {}
        for action in self.actions:
            out[action.kind] = out.get(action.kind, 0) + 1
        return out

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "kind": self.kind,
            "prune": self.prune,
            "diagnostics": [d.as_dict() for d in self.diagnostics],
            "actions": [action_dict(a) for a in self.actions],
            "summary": self.summary(),
            "observed": dict(self.observed),
        }
        if self.error:
            out["error"] = self.error
        if self.refused:
            out["refused_deletes"] = self.refused
        if self.in_use:
            out["refused_in_use"] = dict(self.in_use)
        if self.report is not None:
            out["results"] = [o.as_dict() for o in self.report.outcomes]
            out["api_calls"] = self.report.calls
            out["writes"] = self.report.writes
            out["failed"] = len(self.report.failed)
        return out
