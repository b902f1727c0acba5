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
    lag_seconds: float, refreshed_at: float | None = None, source: str = "ironic"
) -> None:
    """The hook the Ironic mirror calls after each successful refresh: how far behind
    ``source`` its data is, and when the refresh happened (Unix time; now by default). The
    gauges are absent until the first call, so a service without a mirror shows none."""
    found = metrics.recorded()
    found.mirror_lag.labels(source).set(max(0.0, lag_seconds))
    when = time.time() if refreshed_at is None else refreshed_at
    found.mirror_last_refresh.labels(source).set(when)


def _round(kind: str, outcome: str, seconds: float) -> None:
    metrics.recorded().sync_rounds.labels(kind, outcome).inc()
    metrics.recorded().sync_round_seconds.labels(kind).observe(seconds)
    if outcome == FAILED:
        metrics.recorded().sync_failures.labels(kind).inc()
    elif outcome == OK:
        metrics.recorded().sync_last_success.labels(kind).set(time.time())
