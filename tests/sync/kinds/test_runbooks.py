"""The runbook sync plan is a pure diff: every kind of action with its reason, the patch and
the traits it sends, the changes a reviewer reads, and the replace where Ironic refuses the
change in place."""

from __future__ import annotations

from typing import Any

from flavorsmith.ironic.runbooks import PUBLIC_OWNER, patch_refusal, resets_owner
from flavorsmith.sync.kinds.runbooks import (
    MARKER,
    ObservedRunbook,
    RunbookAction,
    desired_body,
    plan,
    steps,
)
from flavorsmith.sync.report import Change

RESET = {"interface": "bios", "step": "factory_reset", "args": {}, "order": 5}
APPLY = {
    "interface": "bios",
    "step": "apply_configuration",
    "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
    "order": 10,
}


def want(name: str = "bios-reset", **changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": name,
        "description": "D",
        "traits": ["CUSTOM_B", "CUSTOM_A"],
        "steps": [APPLY, RESET],  # the catalog's order; Ironic runs them by "order"
        "public": False,
        "owner": None,
        "extra": {},
    }
    values.update(changes)
    return values


def have(name: str = "bios-reset", managed: bool = True, **changes: Any) -> ObservedRunbook:
    item: dict[str, Any] = {
        "uuid": f"uuid-{name}",
        "name": name,
        "description": "D",
        "traits": ["CUSTOM_A", "CUSTOM_B"],
        "steps": [APPLY, RESET],  # as Ironic may list them: in no fixed order
        "public": False,
        "owner": None,
        "extra": {MARKER: "true"} if managed else {},
    }
    item.update(changes)
    return ObservedRunbook.of(item)


def kinds(actions: list[RunbookAction]) -> list[tuple[str, str]]:
    return [(a.kind, a.name) for a in actions]


def test_create_carries_the_marker_and_sets_the_traits_apart() -> None:
    (action,) = plan([want()], {})
    assert action.kind == "create" and action.reason == "in the catalog, not in Ironic"
    assert action.body == {
        "name": "bios-reset",
        "steps": [RESET, APPLY],
        "extra": {MARKER: "true"},
        "public": False,
        "description": "D",
    }
    assert action.traits == ("CUSTOM_A", "CUSTOM_B")
    assert action.changes == (
        Change("add", "steps[0]", new=RESET),
        Change("add", "steps[1]", new=APPLY),
        Change("add", "traits", new="CUSTOM_A"),
        Change("add", "traits", new="CUSTOM_B"),
        Change("add", f"extra.{MARKER}", new="true"),
        Change("add", "description", new="D"),
    )
    assert action.as_dict() == {
        "action": "create",
        "runbook": "bios-reset",
        "reason": "in the catalog, not in Ironic",
        "traits": ["CUSTOM_A", "CUSTOM_B"],
    }


def test_equal_in_any_step_or_trait_order_is_a_noop() -> None:
    observed = have(steps=[RESET, APPLY], traits=["CUSTOM_B", "CUSTOM_A"])
    assert kinds(plan([want()], {"bios-reset": observed})) == [("noop", "bios-reset")]
    assert observed.steps == [RESET, APPLY] and observed.traits == ["CUSTOM_A", "CUSTOM_B"]


def test_a_changed_step_is_one_patch_and_a_diff_of_that_step() -> None:
    changed = dict(APPLY, args={"settings": [{"name": "LogicalProc", "value": "Disabled"}]})
    (action,) = plan([want(steps=[changed, RESET])], {"bios-reset": have()})
    assert (action.kind, action.uuid, action.reason) == (
        "update",
        "uuid-bios-reset",
        "steps changed",
    )
    assert list(action.patch) == [{"op": "replace", "path": "/steps", "value": [RESET, changed]}]
    assert action.traits is None
    assert action.changes == (Change("change", "steps[1].args", APPLY["args"], changed["args"]),)


def test_traits_alone_are_one_put_of_them_all() -> None:
    (action,) = plan([want(traits=["CUSTOM_A", "CUSTOM_C"])], {"bios-reset": have()})
    assert action.kind == "update" and action.patch == () and action.reason == "traits changed"
    assert action.traits == ("CUSTOM_A", "CUSTOM_C")
    assert action.changes == (
        Change("add", "traits", new="CUSTOM_C"),
        Change("remove", "traits", old="CUSTOM_B"),
    )
    assert action.as_dict()["traits"] == ["CUSTOM_A", "CUSTOM_C"]


def test_extra_and_description_are_patched() -> None:
    observed = have(extra={MARKER: "true", "team": "old"}, description=None)
    (action,) = plan([want(extra={"team": "infra"})], {"bios-reset": observed})
    assert list(action.patch) == [
        {"op": "replace", "path": "/extra", "value": {"team": "infra", MARKER: "true"}},
        {"op": "add", "path": "/description", "value": "D"},
    ]
    assert action.reason == "extra changed; description changed"
    (action,) = plan([want(description=None)], {"bios-reset": have()})
    assert list(action.patch) == [{"op": "remove", "path": "/description"}]
    assert action.changes == (Change("remove", "description", old="D"),)


def test_making_a_runbook_public_drops_its_owner_in_one_patch() -> None:
    (action,) = plan([want(public=True)], {"bios-reset": have(owner="p1")})
    assert action.kind == "update"
    assert list(action.patch) == [
        {"op": "replace", "path": "/public", "value": True},
        {"op": "remove", "path": "/owner"},
    ]
    assert action.reason == "public false -> true; owner p1 -> none"


def test_a_patch_of_public_sets_the_owner_again_as_ironic_clears_it() -> None:
    (action,) = plan([want(owner="p1")], {"bios-reset": have(public=True, owner="p1")})
    assert action.kind == "update" and action.reason == "public true -> false"
    assert list(action.patch) == [
        {"op": "replace", "path": "/public", "value": False},
        {"op": "replace", "path": "/owner", "value": "p1"},
    ]
    assert action.changes == (Change("change", "public", True, False),)


def test_an_owner_on_a_public_runbook_is_a_replace_that_says_why() -> None:
    changed = dict(RESET, order=7)
    catalog = want(public=True, owner="p2", steps=[APPLY, changed])
    (action,) = plan([catalog], {"bios-reset": have(public=True, owner="p1")})
    assert action.kind == "replace" and action.uuid == "uuid-bios-reset"
    assert action.reason == (
        f"steps changed; owner p1 -> p2: Ironic refuses that change in place ({PUBLIC_OWNER!r}), "
        "so the runbook is deleted and created again"
    )
    assert action.body == desired_body(catalog) and action.body["owner"] == "p2"
    assert action.traits == ("CUSTOM_A", "CUSTOM_B") and action.patch == ()
    assert action.changes == (
        Change("change", "steps[0].order", 5, 7),
        Change("change", "owner", "p1", "p2", forces=True),
    )
    (action,) = plan([want(public=True, owner="p1")], {"bios-reset": have(owner="p1")})
    assert action.kind == "replace"
    assert action.changes == (Change("change", "public", False, True, forces=True),)


def test_unmanaged_runbooks_are_conflicts_or_left_alone() -> None:
    (action,) = plan([want()], {"bios-reset": have(managed=False)})
    assert action.kind == "conflict" and f"no extra {MARKER}=true" in action.reason
    assert kinds(plan([], {"theirs": have("theirs", managed=False)})) == [("unmanaged", "theirs")]


def test_gone_from_the_catalog_is_kept_unless_pruned() -> None:
    observed = {"old": have("old")}
    assert kinds(plan([], observed)) == [("keep", "old")]
    (action,) = plan([], observed, prune=True)
    assert (action.kind, action.uuid) == ("delete", "uuid-old")
    assert not action.changes


class Calls:
    """Records each call a step makes (the steps' own contract, no target behind it)."""

    calls = 0

    def __init__(self) -> None:
        self.made: list[tuple[Any, ...]] = []

    def observe(self) -> dict[str, ObservedRunbook]:
        return {}

    def create(self, body: dict[str, Any]) -> None:
        self.made.append(("create", body["name"]))

    def update(self, ident: str, patch: Any) -> None:
        self.made.append(("update", ident, len(patch)))

    def set_traits(self, ident: str, traits: Any) -> None:
        self.made.append(("traits", ident, tuple(traits)))

    def delete(self, ident: str) -> None:
        self.made.append(("delete", ident))


def made(action: RunbookAction) -> list[tuple[Any, ...]]:
    calls = Calls()
    for step in steps(action, calls):
        step()
    return calls.made


def test_the_calls_of_each_action() -> None:
    (create,) = plan([want()], {})
    assert made(create) == [
        ("create", "bios-reset"),
        ("traits", "bios-reset", ("CUSTOM_A", "CUSTOM_B")),
    ]
    (update,) = plan([want(description="E", traits=["CUSTOM_A"])], {"bios-reset": have()})
    assert made(update) == [
        ("update", "uuid-bios-reset", 1),
        ("traits", "uuid-bios-reset", ("CUSTOM_A",)),
    ]
    (replace,) = plan([want(public=True, owner="p1")], {"bios-reset": have()})
    assert made(replace) == [
        ("delete", "uuid-bios-reset"),
        ("create", "bios-reset"),
        ("traits", "bios-reset", ("CUSTOM_A", "CUSTOM_B")),
    ]
    (delete,) = plan([], {"old": have("old")}, prune=True)
    assert made(delete) == [("delete", "uuid-old")]
    assert [made(a) for a in plan([want()], {"bios-reset": have()})] == [[]]


def test_ironic_refuses_an_owner_only_on_a_public_runbook() -> None:
    """Ironic 39's rule, case by case (each case is also sent to the real Ironic in
    tests/integration/test_sync_runbooks_real_ironic.py)."""
    owner = {"op": "replace", "path": "/owner", "value": "p"}
    no_owner = {"op": "replace", "path": "/owner", "value": None}
    drop_owner = {"op": "remove", "path": "/owner"}
    public = {"op": "replace", "path": "/public", "value": True}
    private = {"op": "replace", "path": "/public", "value": False}
    assert patch_refusal(False, [owner]) is None
    assert patch_refusal(True, [owner]) == PUBLIC_OWNER
    assert patch_refusal(True, [no_owner]) == PUBLIC_OWNER  # even to none
    assert patch_refusal(True, [drop_owner]) is None
    assert patch_refusal(True, [private, owner]) is None
    assert patch_refusal(False, [public, owner]) == PUBLIC_OWNER
    assert patch_refusal(False, [public, drop_owner]) is None
    steps_patch = [{"op": "replace", "path": "/steps", "value": [RESET]}]
    assert patch_refusal(True, steps_patch) is None
    assert resets_owner([private]) and not resets_owner([owner, drop_owner])


# A vendor step whose argument names a secret: Ironic 39 lists its value as "******".
FIRMWARE = {
    "interface": "management",
    "step": "update_firmware",
    "args": {"url": "https://firmware.example/bios.bin", "auth_token": "s3cr3t"},
    "order": 20,
}


def test_a_secret_argument_is_never_shown_nor_an_update_on_every_run() -> None:
    (created,) = plan([want(steps=[FIRMWARE])], {})
    assert created.body is not None and created.body["steps"] == [FIRMWARE]  # sent as written
    assert created.changes[0] == Change(
        "add", "steps[0]", new=dict(FIRMWARE, args={**FIRMWARE["args"], "auth_token": "******"})
    )
    assert "s3cr3t" not in repr(created.changes)
    # As Ironic (or the service's own API, from its store) shows it afterwards: unchanged.
    shown_by_ironic = dict(FIRMWARE, args={**FIRMWARE["args"], "auth_token": "******"})
    for observed in (have(steps=[shown_by_ironic]), have(steps=[FIRMWARE])):
        assert kinds(plan([want(steps=[FIRMWARE])], {"bios-reset": observed})) == [
            ("noop", "bios-reset")
        ]
    # A change beside the secret is an update whose diff still hides it.
    moved = dict(FIRMWARE, args={**FIRMWARE["args"], "url": "https://firmware.example/b2.bin"})
    (action,) = plan([want(steps=[moved])], {"bios-reset": have(steps=[shown_by_ironic])})
    assert action.kind == "update" and action.patch[0]["value"] == [moved]
    assert "s3cr3t" not in repr(action.changes)
