"""Keeping targets in sync: re-plan every kind when catalog files change (file-system events
wake the watcher, ``changes.py``; bursts debounced) and on a timer; one log line per kind and
round (flavorsmith.logs), naming the objects it changed. A round whose catalog is missing,
failed to load or has errors applies nothing, and neither does one whose prune would delete
every managed object of its kind (unless ``allow_empty``): the round is logged as blocked and
the next change or timer tries again."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from flavorsmith.catalog.fingerprint import fingerprint
from flavorsmith.catalog.repo import Repository
from flavorsmith.db.engine import Engine
from flavorsmith.logs import event
from flavorsmith.sync import metrics as sync_metrics
from flavorsmith.sync.changes import Changes
from flavorsmith.sync.engine import AnyKind, Retry, exclusive, run
from flavorsmith.sync.kinds import WATCHED
from flavorsmith.sync.report import Report, Round, changes_of

log = logging.getLogger("flavorsmith.sync")


def watch(
    repository: Repository,
    make_target: Callable[[AnyKind], object],
    engine: Engine,
    *,
    kinds: Sequence[AnyKind] = WATCHED,
    prune: bool,
    allow_empty: bool = False,
    interval: float = 60.0,
    debounce: float = 2.0,
    poll: float = 1.0,
    stop: threading.Event | None = None,
    rounds: int | None = None,
    clock: Callable[[], float] = time.monotonic,
    retry: Retry | None = None,
) -> int:
    """Run until ``stop`` is set (or ``rounds`` rounds ran); returns the rounds run. Each round
    syncs every kind of ``kinds`` (the registered kinds that are watched, by default) into
    ``make_target(kind)``. The catalog is looked at again when file-system events say it may
    have changed, or every ``poll`` seconds where there are none."""
    stop = stop or threading.Event()
    last = fingerprint(repository.root)
    next_timer = 0.0  # the first round runs at once
    done = 0
    trigger = "start"
    unsettled = False
    with Changes(repository.root, stop) as changes:
        while not stop.is_set() and (rounds is None or done < rounds):
            now = clock()
            if changes.seen() or unsettled:  # only then is the catalog walked again
                current = fingerprint(repository.root)
                unsettled = False
                if current != last:
                    # Wait for the burst to settle: the fingerprint must hold still.
                    if stop.wait(debounce):
                        break
                    settled = fingerprint(repository.root)
                    if settled != current:
                        unsettled = True
                        continue  # still changing: wait again
                    last, trigger, next_timer = settled, "files", 0.0
            if now >= next_timer:
                options = (prune, allow_empty, trigger, done + 1, retry)
                _round(repository, make_target, engine, kinds, *options)
                done += 1
                trigger = "timer"
                next_timer = clock() + interval
            # Events wake it early; without them (polling) it looks every ``poll`` seconds.
            longest = poll if changes.polling else interval
            changes.wait(max(0.0, min(longest, next_timer - clock())))
    return done


def _round(
    repository: Repository,
    make_target: Callable[[AnyKind], object],
    engine: Engine,
    kinds: Sequence[AnyKind],
    prune: bool,
    allow_empty: bool,
    trigger: str,
    number: int,
    retry: Retry | None,
) -> None:
    """One round: the catalog loaded once, then every kind in turn, under the sync lock."""
    started = time.perf_counter()
    with exclusive(engine, wait=False) as mine:
        if not mine:
            for kind in kinds:
                line = _line(kind, number, trigger)
                line["skipped"] = "another process is applying"
                sync_metrics.round_skipped(kind.name)
                _log(line, started)
            return
        try:
            view = repository.load()
        except Exception as exc:  # a round must never kill the watcher
            for kind in kinds:
                line = _line(kind, number, trigger)
                line["error"] = f"{type(exc).__name__}: {exc}"
                sync_metrics.round_failed(kind.name)
                _log(line, started)
            return
        for kind in kinds:
            line = _line(kind, number, trigger)
            try:
                result = run(
                    kind,
                    view,
                    make_target(kind),
                    prune=prune,
                    execute=True,
                    allow_empty=allow_empty,
                    retry=retry,
                )
            except Exception as exc:  # a round must never kill the watcher
                line["error"] = f"{type(exc).__name__}: {exc}"
            else:
                line.update(_summary(result))
            _log(line, started)
            started = time.perf_counter()


def _line(kind: AnyKind, number: int, trigger: str) -> dict[str, object]:
    return {"kind": kind.name, "round": number, "trigger": trigger}


def _summary(result: Round) -> dict[str, object]:
    out: dict[str, object] = {}
    if result.blocked:
        first = next((d for d in result.diagnostics if d.severity == "error"), None)
        out["blocked"] = result.error or (
            f"the catalog has errors: {first.render()}" if first else "blocked"
        )
    out["actions"] = sum(1 for a in result.actions if a.writes)
    report = result.report
    if report is not None:
        out.update(writes=report.writes, failed=len(report.failed), api_calls=report.calls)
        out.update(report.changed())
        fields = _fields_changed(report)
        if fields:
            out["changed"] = fields
        failures = {o.action.subject: o.error for o in report.failed}
        if failures:
            out["failures"] = failures
        if report.failed:  # each names its object and why ("flavor 'x': projects: ...")
            out["errors"] = [_named(o.action.subject, str(o.error)) for o in report.failed]
    return out


def _fields_changed(report: Report) -> dict[str, list[str]]:
    """What each changed object had changed, by name: its attributes as the plan lists them
    (``description``, ``extra_specs.KEY``, ``access``)."""
    out: dict[str, list[str]] = {}
    for outcome in report.outcomes:
        if outcome.ok and outcome.action.writes:
            named = out.setdefault(outcome.action.subject, [])
            named += [c.field for c in changes_of(outcome.action) if c.field not in named]
    return {subject: fields for subject, fields in out.items() if fields}


def _named(subject: str, error: str) -> str:
    """``error``, led by the object it concerns unless it names it already."""
    return error if repr(subject) in error else f"{subject}: {error}"


def _log(line: dict[str, object], started: float) -> None:
    line["ms"] = round((time.perf_counter() - started) * 1000, 1)
    log.info("sync round", extra=event("sync", **line))
