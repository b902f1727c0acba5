"""The deploy-template sync plan is a pure diff: every kind of action, with its reason."""

from __future__ import annotations

from typing import Any

from flavorsmith.sync.kinds.deploy_templates import MARKER, ObservedTemplate, desired_body, plan

STEPS = [
    {"interface": "bios", "step": "apply_configuration", "args": {"settings": []}, "priority": 9}
]


def want(name: str = "CUSTOM_T", **changes: Any) -> dict[str, Any]:
    return {"name": name, "steps": STEPS, "description": "D", "extra": {}, **changes}


def have(name: str = "CUSTOM_T", managed: bool = True, **changes: Any) -> ObservedTemplate:
    values: dict[str, Any] = {
        "uuid": f"uuid-{name}",
        "name": name,
        "steps": STEPS,
        "extra": {MARKER: "true"} if managed else {},
        "description": "D",
    }
    values.update(changes)
    return ObservedTemplate(**values)


def kinds(actions: list[Any]) -> list[tuple[str, str]]:
    return [(a.kind, a.name) for a in actions]


def test_create_carries_the_marker_and_noop_when_equal() -> None:
    (action,) = plan([want()], {})
    assert action.kind == "create"
    assert action.body == {
        "name": "CUSTOM_T",
        "steps": STEPS,
        "description": "D",
        "extra": {MARKER: "true"},
    }
    assert kinds(plan([want()], {"CUSTOM_T": have()})) == [("noop", "CUSTOM_T")]


def test_update_is_one_patch_of_what_changed() -> None:
    steps = [dict(STEPS[0], priority=20)]
    observed = have(extra={MARKER: "true", "owner": "x"}, description="Old")
    (action,) = plan([want(steps=steps)], {"CUSTOM_T": observed})
    assert action.kind == "update" and action.uuid == "uuid-CUSTOM_T"
    assert list(action.patch) == [
        {"op": "replace", "path": "/steps", "value": steps},
        {"op": "replace", "path": "/extra", "value": {MARKER: "true"}},
        {"op": "replace", "path": "/description", "value": "D"},
    ]
    assert action.reason == "steps changed; extra changed; description changed"


def test_a_target_that_drops_descriptions_is_never_asked_again() -> None:
    observed = have(description=None, keeps_description=False)
    assert kinds(plan([want()], {"CUSTOM_T": observed})) == [("noop", "CUSTOM_T")]
    (action,) = plan([want()], {"CUSTOM_T": have(description=None)})
    assert list(action.patch) == [{"op": "add", "path": "/description", "value": "D"}]
    (action,) = plan([want(description=None)], {"CUSTOM_T": have()})
    assert list(action.patch) == [{"op": "remove", "path": "/description"}]


def test_unmanaged_templates_are_conflicts_or_left_alone() -> None:
    (action,) = plan([want()], {"CUSTOM_T": have(managed=False)})
    assert action.kind == "conflict" and f"no extra {MARKER}=true" in action.reason
    assert kinds(plan([], {"CUSTOM_X": have("CUSTOM_X", managed=False)})) == [
        ("unmanaged", "CUSTOM_X")
    ]


def test_gone_from_the_catalog_is_kept_unless_pruned() -> None:
    observed = {"CUSTOM_OLD": have("CUSTOM_OLD")}
    assert kinds(plan([], observed)) == [("keep", "CUSTOM_OLD")]
    (action,) = plan([], observed, prune=True)
    assert (action.kind, action.uuid) == ("delete", "uuid-CUSTOM_OLD")


def test_only_write_actions_write() -> None:
    actions = plan(
        [want("CUSTOM_A"), want("CUSTOM_B")],
        {"CUSTOM_B": have("CUSTOM_B"), "CUSTOM_C": have("CUSTOM_C")},
        prune=True,
    )
    assert [(a.kind, a.writes) for a in actions] == [
        ("create", True),
        ("noop", False),
        ("delete", True),
    ]


def test_desired_body_keeps_the_operators_extra() -> None:
    body = desired_body(want(extra={"team": "infra"}))
    assert body["extra"] == {"team": "infra", MARKER: "true"}
