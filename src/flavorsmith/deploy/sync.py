"""One deploy-template sync round: load and validate the catalog, observe, plan, and
optionally apply, with the flavor sync's rules (each template on its own, transient
failures retried, every outcome reported)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flavorsmith.catalog.repo import Repository
from flavorsmith.deploy.reconcile import TemplateAction, plan
from flavorsmith.deploy.targets import TemplateTarget
from flavorsmith.diagnostics import has_errors
from flavorsmith.nova.apply import Report, carry_out
from flavorsmith.nova.sync import Round
from flavorsmith.nova.targets import TargetError


def _steps(action: TemplateAction, target: TemplateTarget) -> list[Callable[[], None]]:
    if action.kind == "create":
        assert action.body is not None
        return [partial(target.create, action.body)]
    assert action.uuid is not None
    if action.kind == "update":
        return [partial(target.update, action.uuid, action.patch)]
    if action.kind == "delete":
        return [partial(target.delete, action.uuid)]
    return []


def apply(
    actions: list[TemplateAction],
    target: TemplateTarget,
    *,
    attempts: int = 4,
    backoff: float = 0.2,
) -> Report:
    return carry_out(
        actions,
        lambda action: _steps(action, target),
        lambda: target.calls,
        attempts=attempts,
        backoff=backoff,
    )


def run(repository: Repository, target: TemplateTarget, *, prune: bool, execute: bool) -> Round:
    result = Round()
    view = repository.load()
    result.diagnostics = view.diagnostics
    if has_errors(result.diagnostics):
        return result
    desired = [t.as_api() for t in view.catalog.deploy_templates]
    try:
        observed = target.observe()
    except TargetError as exc:
        result.error = f"cannot read the target's deploy templates: {exc}"
        return result
    actions = plan(desired, observed, prune=prune)
    result.actions = list(actions)
    if execute:
        result.report = apply(actions, target)
    return result
