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
                metrics.SYNC_ACTIONS.labels(kind, done.action.kind, "done").inc()
            elif done.error is not None:
                metrics.SYNC_ACTIONS.labels(kind, done.action.kind, FAILED).inc()


def round_failed(kind: str, seconds: float = 0.0) -> None:
    """A round of ``kind`` that raised before it had a result (the catalog did not load)."""
    _round(kind, FAILED, seconds)


def round_skipped(kind: str) -> None:
    """A round of ``kind`` not run: another process held the sync lock."""
    metrics.SYNC_ROUNDS.labels(kind, SKIPPED).inc()


def mirror_refreshed(lag_seconds: float, refreshed_at: float | None = None) -> None:
    """The hook the Ironic mirror calls after each successful refresh: how far behind Ironic
    its data is, and when the refresh happened (Unix time; now by default)."""
    metrics.MIRROR_LAG.set(max(0.0, lag_seconds))
    metrics.MIRROR_LAST_REFRESH.set(time.time() if refreshed_at is None else refreshed_at)


def _round(kind: str, outcome: str, seconds: float) -> None:
    metrics.SYNC_ROUNDS.labels(kind, outcome).inc()
    metrics.SYNC_ROUND_SECONDS.labels(kind).observe(seconds)
    if outcome == FAILED:
        metrics.SYNC_FAILURES.labels(kind).inc()
    elif outcome == OK:
        metrics.SYNC_LAST_SUCCESS.labels(kind).set(time.time())
