"""One deploy-template sync round: the shared round (nova.sync.sync_round: never a catalog
with errors, never a prune that empties the kind unless allowed) with the flavor sync's apply
rules (each template on its own, transient failures retried, every outcome reported)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flavorsmith.catalog.repo import Repository
from flavorsmith.deploy.reconcile import TemplateAction, plan
from flavorsmith.deploy.targets import TemplateTarget
from flavorsmith.nova.apply import Report, carry_out
from flavorsmith.nova.sync import Round, sync_round


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


def run(
    repository: Repository,
    target: TemplateTarget,
    *,
    prune: bool,
    execute: bool,
    allow_empty: bool = False,
) -> Round:
    return sync_round(
        repository,
        noun="deploy templates",
        desired=lambda catalog: [t.as_api() for t in catalog.deploy_templates],
        observe=target.observe,
        plan_of=lambda desired, observed: plan(desired, observed, prune=prune),
        apply_all=lambda actions: apply(list(actions), target),
        execute=execute,
        allow_empty=allow_empty,
    )
