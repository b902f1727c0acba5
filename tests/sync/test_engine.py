"""The engine's own rules, without a database: retries with an injected sleep (nothing really
sleeps), each action on its own, the prune refusal, and the registry of kinds."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from flavorsmith.errors import TargetError
from flavorsmith.sync.engine import Retry, carry_out, prune_refusal
from flavorsmith.sync.kinds import (
    BY_NAME,
    KINDS,
    NAMES,
    WATCHED,
    UnknownKind,
    choose,
    classification,
    deploy_templates,
    inspection_rules,
    load_balancer_flavors,
    network_flavors,
    nova_flavors,
    runbooks,
)
from flavorsmith.sync.watch import watch


@dataclass(frozen=True)
class Act:
    kind: str
    subject: str
    reason: str = "because"

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "delete")

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.kind, "thing": self.subject}


@dataclass(frozen=True)
class Thing:
    managed: bool


def failing(times: int, *, transient: bool = True) -> tuple[Callable[[], None], list[int]]:
    calls: list[int] = []

    def step() -> None:
        calls.append(1)
        if len(calls) <= times:
            raise TargetError("busy", transient=transient, status=503)

    return step, calls


def jittered(slept: list[float], backoff: float) -> bool:
    """Each sleep a random time up to backoff * 2**n (full jitter)."""
    return all(0 <= s <= backoff * 2**n for n, s in enumerate(slept))


def test_transient_failures_are_retried_with_jittered_doubling_backoff() -> None:
    slept: list[float] = []
    step, calls = failing(2)
    Retry(sleep=slept.append)(step)
    assert (len(calls), len(slept)) == (3, 2)
    assert jittered(slept, 0.2)
    # Jittered: many appliers failing together do not all retry together.
    many: list[float] = []
    for _ in range(20):
        Retry(sleep=many.append)(failing(1)[0])
    assert len(set(many)) > 1 and all(0 <= s <= 0.2 for s in many)


def test_retries_stop_after_the_last_attempt_and_never_retry_a_refusal() -> None:
    slept: list[float] = []
    step, calls = failing(10)
    with pytest.raises(TargetError, match="busy"):
        Retry(attempts=3, backoff=1.0, sleep=slept.append)(step)
    assert (len(calls), len(slept)) == (3, 2)
    assert jittered(slept, 1.0)
    slept.clear()
    step, calls = failing(1, transient=False)
    with pytest.raises(TargetError):
        Retry(sleep=slept.append)(step)
    assert (len(calls), slept) == (1, [])


def test_each_action_on_its_own_and_every_outcome_reported() -> None:
    slept: list[float] = []
    flaky, _ = failing(1)
    broken, _ = failing(99, transient=False)
    steps = {"a": [flaky], "b": [broken], "c": []}
    actions = [
        Act("create", "a"),
        Act("create", "b"),
        Act("conflict", "x", "someone else's"),
        Act("noop", "y"),
        Act("delete", "c"),
    ]
    heard: list[str] = []
    report = carry_out(
        actions,
        lambda a: steps[a.subject],
        lambda: 7,
        Retry(sleep=slept.append),
        progress=lambda outcome: heard.append(outcome.action.subject),
    )
    assert heard == ["a", "b", "x", "y", "c"]  # each outcome as it is known, in order
    assert [(o.action.subject, o.ok, o.error) for o in report.outcomes] == [
        ("a", True, None),
        ("b", False, "busy"),
        ("x", False, "someone else's"),
        ("y", False, None),
        ("c", True, None),
    ]
    assert (report.writes, len(report.failed), report.calls, len(slept)) == (2, 2, 7, 1)
    assert jittered(slept, 0.2)


def test_a_prune_that_empties_a_kind_is_refused() -> None:
    observed = {"a": Thing(True), "b": Thing(True), "u": Thing(False)}
    one = [Act("delete", "a")]
    both = [Act("delete", "a"), Act("delete", "b")]
    assert prune_refusal(one, observed, "widgets") == (0, None)
    deletes, why = prune_refusal(both, observed, "widgets")
    assert deletes == 2 and why is not None
    assert why.startswith("refused: pruning would delete all 2 managed widgets and leave none")
    _, why = prune_refusal(one, {"a": Thing(True)}, "widgets")
    assert why is not None and "the only managed widget " in why


def test_the_registry_names_every_kind_once() -> None:
    assert KINDS == (
        nova_flavors.KIND,
        deploy_templates.KIND,
        runbooks.KIND,
        classification.KIND,
        inspection_rules.KIND,
        load_balancer_flavors.KIND,
        network_flavors.KIND,
    )
    assert NAMES == (
        "flavors",
        "deploy-templates",
        "runbooks",
        "classification",
        "inspection-rules",
        "load-balancer-flavors",
        "network-flavors",
    )
    assert {name: kind.name for name, kind in BY_NAME.items()} == {n: n for n in NAMES}
    assert choose("deploy-templates") is deploy_templates.KIND
    with pytest.raises(UnknownKind) as raised:
        choose("nodes")
    assert str(raised.value) == (
        "cannot sync 'nodes': choose one of flavors, deploy-templates, runbooks, "
        "classification, inspection-rules, load-balancer-flavors, network-flavors"
    )


def test_the_watcher_keeps_only_the_kinds_that_are_watched() -> None:
    """Classification writes nodes others write too: the watcher (serve --sync) never retypes
    a fleet because a catalog file changed; it runs only when named."""
    assert WATCHED == (nova_flavors.KIND, deploy_templates.KIND, runbooks.KIND)
    assert not classification.KIND.watched
    assert not inspection_rules.KIND.watched
    assert inspect.signature(watch).parameters["kinds"].default == WATCHED
