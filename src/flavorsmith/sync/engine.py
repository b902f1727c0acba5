"""The sync engine: one round of any kind — load and validate the catalog, derive the desired
state, observe the target, plan (a pure function of the two), and optionally apply — with the
rules that keep a wrong path or a half-checked-out repository from deleting anything: a
catalog that failed to load or has errors is never applied, and a prune that would delete
every managed object of a kind is refused unless the caller allows it explicitly, and so is
an apply that would delete or replace an object servers use (as far as the target can count
them) unless the caller forces it. Applying
takes each action on its own, retries transient failures with jittered backoff (the sleep
is injected), and reports every outcome. Only one applier runs at a time per database."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import tenacity

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository, RepoView
from flavorsmith.db import locks
from flavorsmith.db.engine import Engine
from flavorsmith.diagnostics import Diagnostic, has_errors
from flavorsmith.errors import TargetError
from flavorsmith.sync import metrics as sync_metrics
from flavorsmith.sync.fingerprint import fingerprints
from flavorsmith.sync.report import Outcome, Planned, Report, Round, servers_of

LOCK = "sync"
ALLOW_EMPTY_HINT = "--allow-empty, or allow_empty=true over the API"
# Only the command line forces: /v1/sync writes the service's own compute API, which holds no
# servers, and a watcher never forces.
FORCE_HINT = "--force"
REMOVING = ("delete", "replace")  # the actions that delete an object (replace: then create it)

Step = Callable[[], None]

Guard = Callable[[Round], str | None]
"""Given the round planned (not yet applied), why it must not be applied, or None: how
``sync apply FILE`` refuses a saved plan when the target or the catalog changed."""

SpecCheck = Callable[[str, str], str | None]
"""``(key, value) -> why`` when the target refuses that extra spec, else None. Built by
:func:`flavorsmith.extra_specs.validation.refusal` (the one extra-spec validation path) from a
registry and a mode: the service's own flavors refuse what its compute API refuses; a real
Nova's target writes the keys stock Nova refuses at a microversion that does not validate
them. Kinds without extra specs ignore it."""


ProjectCheck = Callable[[str], bool | None]
"""``project_id -> known``: whether Keystone knows that project (None when it cannot tell, as
when it does not let the service look). Given to the service's own flavor target under
Keystone, so a catalog flavor shared with a mistyped project id is refused before anything is
written, as Nova refuses adding access for a project that does not exist."""


def refuses_nothing(key: str, value: str) -> str | None:
    return None


class Owned(Protocol):
    """An object a target holds; ``managed`` when this service created it."""

    @property
    def managed(self) -> bool: ...


class Target(Protocol):
    """Where a kind writes: it observes what it holds (by identity) and counts its calls."""

    calls: int

    def observe(self) -> Mapping[str, Owned]: ...


D = TypeVar("D")
O = TypeVar("O", bound=Owned)  # noqa: E741
A = TypeVar("A", bound=Planned)
T = TypeVar("T", bound=Target)


@dataclass(frozen=True)
class Kind(Generic[D, O, A, T]):
    """One kind of object a sync keeps equal to the catalog, with everything a sync of it
    needs: its module in ``sync.kinds`` defines all of it, targets included."""

    name: str  # the registry key: --only on the command line, only= over the API
    noun: str  # plural, in messages ("flavors", "deploy templates")
    subject: str  # one of them, as a column heading
    service: str  # the openstacksdk service type of a real target ("compute", "baremetal")
    desired: Callable[[Catalog], D]  # pure: the catalog's objects of this kind
    plan: Callable[[D, Mapping[str, O], bool], Sequence[A]]  # pure: (desired, observed, prune)
    steps: Callable[[A, T], list[Step]]  # the target calls that carry out one action
    # The service's own database as its target; None: the kind syncs only into a real cloud.
    store_target: Callable[[Engine, SpecCheck], T] | None
    sdk_target: Callable[[Any, SpecCheck], T]  # an openstacksdk connection as its target
    # Whether the watcher (``serve --sync``, ``sync apply --watch``) keeps it in sync; a kind
    # that writes what others own too (nodes) is synced only when asked for by name.
    watched: bool = True
    # After the pure plan: the actions with what the target says about them (flavors: how many
    # servers use each flavor a plan deletes or replaces). Never fails: what it cannot learn,
    # it says it could not.
    count_servers: Callable[[Sequence[A], T], Sequence[A]] | None = None
    # After observing, before planning: what the target says the catalog may not ask for
    # (load-balancer flavors: flavor data the real provider has no capability for), as
    # diagnostics naming the catalog's files; an error among them blocks the round.
    check: Callable[[D, Mapping[str, O]], list[Diagnostic]] | None = None
    # What the in-use refusal tells the operator to do first.
    in_use_hint: str = "Resize those servers to another flavor first"


AnyKind = Kind[Any, Any, Any, Any]


@dataclass(frozen=True)
class Retry:
    """How transient failures are retried: ``attempts`` in all, sleeping a random time up to
    backoff * 2**n before retry n (full jitter: appliers that failed together do not retry
    together). tenacity runs it; ``sleep`` is injected so tests never sleep."""

    attempts: int = 4
    backoff: float = 0.2
    sleep: Callable[[float], None] = time.sleep

    def __call__(self, step: Step) -> None:
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.attempts),
            wait=tenacity.wait_random_exponential(multiplier=self.backoff),
            retry=tenacity.retry_if_exception(_transient),
            sleep=self.sleep,
            reraise=True,
        )
        retrying(step)


def _transient(error: BaseException) -> bool:
    return isinstance(error, TargetError) and error.transient


def carry_out(
    actions: Sequence[A],
    steps_of: Callable[[A], list[Step]],
    calls: Callable[[], int],
    retry: Retry | None = None,
    progress: Callable[[Outcome], None] | None = None,
) -> Report:
    """Each action on its own, transient failures retried; conflicts and non-writes reported
    without a call; ``calls`` reads the target's count at the end; ``progress`` hears each
    outcome as it is known."""
    retry = retry or Retry()
    report = Report()
    for action in actions:
        report.outcomes.append(_carry_out_one(action, steps_of, retry))
        if progress is not None:
            progress(report.outcomes[-1])
    report.calls = calls()
    return report


def _carry_out_one(action: A, steps_of: Callable[[A], list[Step]], retry: Retry) -> Outcome:
    if action.kind == "conflict":
        return Outcome(action, False, action.reason)
    if not action.writes:
        return Outcome(action, False, None)
    try:
        for step in steps_of(action):
            retry(step)
    except TargetError as exc:
        return Outcome(action, False, str(exc))
    return Outcome(action, True)


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


def in_use_refusal(
    actions: Sequence[Planned],
    noun: str,
    hint: str = "Resize those servers to another flavor first",
) -> tuple[dict[str, int], str | None]:
    """({object: servers}, why refused) when ``actions`` would delete or replace objects that
    servers (or what else uses them: ``Servers.noun``) use, as counted; an unknown count
    refuses nothing. ``hint``: what to do first."""
    users = {
        a.subject: found
        for a in actions
        if a.kind in REMOVING and (found := servers_of(a)) is not None and found.in_use
    }
    used = {subject: found.in_use for subject, found in users.items()}
    if not used:
        return {}, None
    listed = ", ".join(
        f"{subject} ({found.in_use} {found.noun}{'' if found.in_use == 1 else 's'})"
        for subject, found in users.items()
    )
    what = f"a {noun.rstrip('s')} in use" if len(used) == 1 else f"{len(used)} {noun} in use"
    return used, (
        f"refused: the plan deletes or replaces {what}: {listed}; nothing applied. {hint}, "
        f"or apply anyway with {FORCE_HINT}"
    )


def run(
    kind: Kind[D, O, A, T],
    catalog: Repository | RepoView,
    target: T,
    *,
    prune: bool,
    execute: bool,
    allow_empty: bool = False,
    retry: Retry | None = None,
    guard: Guard | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
) -> Round:
    """One round of ``kind`` from ``catalog``: loaded already, or a repository read once now (a
    missing hardware/ folder is an error then, not "empty"); see the module's rules. An
    applied round (``execute``) is counted in the service's metrics; ``guard`` may refuse
    to apply the round planned; ``progress`` hears (writes carried out, writes planned);
    ``force`` applies a round that deletes or replaces objects in use."""
    view = catalog.load() if isinstance(catalog, Repository) else catalog
    if not execute:
        return _round(kind, view, target, prune, False, allow_empty, retry, guard)
    started = time.perf_counter()
    try:
        result = _round(kind, view, target, prune, True, allow_empty, retry, guard, progress, force)
    except Exception:
        sync_metrics.round_failed(kind.name, time.perf_counter() - started)
        raise
    sync_metrics.round_applied(kind.name, result, time.perf_counter() - started)
    return result


def _round(
    kind: Kind[D, O, A, T],
    view: RepoView,
    target: T,
    prune: bool,
    execute: bool,
    allow_empty: bool,
    retry: Retry | None,
    guard: Guard | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
) -> Round:
    result = Round(kind=kind.name, prune=prune)
    result.diagnostics = view.diagnostics
    if has_errors(result.diagnostics):
        return result
    wanted = kind.desired(view.catalog)
    try:
        observed: Mapping[str, Any] = target.observe()
    except TargetError as exc:
        result.error = f"cannot read the target's {kind.noun}: {exc}"
        return result
    result.observed = fingerprints(observed)
    if kind.check is not None:
        found = kind.check(wanted, observed)
        if found:
            result.diagnostics = [*result.diagnostics, *found]
        if has_errors(found):
            return result
    actions = kind.plan(wanted, observed, prune)
    if kind.count_servers is not None:
        actions = kind.count_servers(actions, target)
    result.actions = actions
    if not allow_empty:
        result.refused, result.error = prune_refusal(actions, observed, kind.noun)
        if result.error is not None:
            return result
    if execute and not force:
        result.in_use, result.error = in_use_refusal(actions, kind.noun, kind.in_use_hint)
        if result.error is not None:
            return result
    if guard is not None:
        result.error = guard(result)
        if result.error is not None:
            return result
    if execute:
        result.report = carry_out(
            actions,
            lambda action: kind.steps(action, target),
            lambda: target.calls,
            retry,
            None if progress is None else _counting(actions, progress),
        )
    return result


def _counting(
    actions: Sequence[Planned], progress: Callable[[int, int], None]
) -> Callable[[Outcome], None]:
    """An outcome listener that tells ``progress`` (writes carried out, writes planned)."""
    planned = sum(1 for action in actions if action.writes)
    done = 0

    def heard(outcome: Outcome) -> None:
        nonlocal done
        if outcome.action.writes:
            done += 1
            progress(done, planned)

    return heard


def exclusive(engine: Engine, *, wait: bool) -> AbstractContextManager[bool]:
    """Yield True when this process holds the sync lock (False: another applier runs)."""
    return locks.exclusive(engine, LOCK, wait=wait)


def sdk_target(kind: AnyKind, connection: Any, *, spec_check: SpecCheck | None = None) -> Any:
    """The cloud behind ``connection`` (an openstacksdk connection) as the target of ``kind``;
    ``spec_check`` tells which extra specs a real Nova refuses (none, when not given)."""
    return kind.sdk_target(connection, spec_check or refuses_nothing)
