"""What a sync round, and the Ironic mirror, tell the service's metrics
(flavorsmith.metrics): rounds by result, the actions that write, failures, the time of the
last round that applied everything, and the mirror's lag."""

from __future__ import annotations

import time

from flavorsmith import metrics
from flavorsmith.diagnostics import has_errors
from flavorsmith.sync.report import Round

OK, FAILED, BLOCKED, SKIPPED = "ok", "failed", "blocked", "skipped"


def result_of(result: Round) -> str:
    """ok: everything applied; blocked: the catalog has errors or a prune was refused
    (nothing applied, by design); failed: the target could not be read or an action failed."""
    if has_errors(result.diagnostics) or result.refused:
        return BLOCKED
    if result.error is not None:
        return FAILED
    if result.report is not None and result.report.failed:
        return FAILED
    return OK


def round_applied(kind: str, result: Round, seconds: float) -> None:
    """An applied round of ``kind`` (dry runs are not rounds here)."""
    outcome = result_of(result)
    _round(kind, outcome, seconds)
    if result.report is not None:
        for done in result.report.outcomes:
            if done.ok and done.action.writes:
                metrics.recorded().sync_actions.labels(kind, done.action.kind, "done").inc()
            elif done.error is not None:
                metrics.recorded().sync_actions.labels(kind, done.action.kind, FAILED).inc()


def round_failed(kind: str, seconds: float = 0.0) -> None:
    """A round of ``kind`` that raised before it had a result (the catalog did not load)."""
    _round(kind, FAILED, seconds)


def round_skipped(kind: str) -> None:
    """A round of ``kind`` not run: another process held the sync lock."""
    metrics.recorded().sync_rounds.labels(kind, SKIPPED).inc()


def mirror_refreshed(
    *, ok: bool, started: float, seconds: float, nodes: int | None, source: str = "ironic"
) -> None:
    """Hook for the mirror (sync.mirror), called after each refresh: whether it succeeded,
    when it started (Unix time: the data is as of then), how long it took and, when it
    succeeded, how many nodes it mirrors. The lag (now minus the start of the last good
    refresh) is computed when scraped (flavorsmith.metrics)."""
    found = metrics.recorded()
    found.mirror_refreshes.labels(source, OK if ok else FAILED).inc()
    found.mirror_refresh_seconds.labels(source).observe(seconds)
    if ok:
        found.mirror_last_refresh.labels(source).set(started)
        if nodes is not None:
            found.mirror_nodes.labels(source).set(nodes)


def _round(kind: str, outcome: str, seconds: float) -> None:
    metrics.recorded().sync_rounds.labels(kind, outcome).inc()
    metrics.recorded().sync_round_seconds.labels(kind).observe(seconds)
    if outcome == FAILED:
        metrics.recorded().sync_failures.labels(kind).inc()
    elif outcome == OK:
        metrics.recorded().sync_last_success.labels(kind).set(time.time())
