"""The inspection-rule sync plan is a pure diff: every kind of action, with its reason, and a
``needs-hook`` line for each trait rule Ironic cannot run."""

from __future__ import annotations

from typing import Any

from flavorsmith.catalog.model import TraitRule, TraitRuleSet
from flavorsmith.ironic.inspection_rules import MARKER, NeedsHook, Translation, translate
from flavorsmith.sync.kinds import inspection_rules
from flavorsmith.sync.kinds.inspection_rules import KIND, ObservedRule, observed_rule, plan, steps
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES, repository

CATALOG = translate(
    [
        TraitRuleSet(
            "cpu",
            "CUSTOM_CPU_",
            None,
            (
                TraitRule("SGX", {"cpu_flag": "sgx"}, ("CUSTOM_CPU_SGX",)),
                TraitRule("NIC", {"interface": {"driver": "ice"}}, ("CUSTOM_CPU_NIC",)),
            ),
        )
    ]
)
ADD = f"{MARKER}cpu/SGX adds CUSTOM_CPU_SGX"
REMOVE = f"{MARKER}cpu removes CUSTOM_CPU_SGX #1"


def have(body: dict[str, Any], uuid: str, **changes: Any) -> ObservedRule:
    return observed_rule({**body, "uuid": uuid, **changes})


def observed(*rules: ObservedRule) -> dict[str, ObservedRule]:
    return {r.uuid: r for r in rules}


def summary(actions: list[Any]) -> list[tuple[str, str]]:
    return [(a.kind, a.rule) for a in actions]


HOOK = [
    ("needs-hook", "cpu/NIC"),
    ("needs-hook", "CUSTOM_CPU_*"),
]


def test_creates_each_rule_and_notes_what_needs_the_hook() -> None:
    actions = plan(CATALOG, {})
    assert summary(actions) == [
        ("create", "cpu removes CUSTOM_CPU_SGX #1"),
        ("create", "cpu/SGX adds CUSTOM_CPU_SGX"),
        *HOOK,
    ]
    assert actions[1].body == CATALOG.by_description()[ADD]
    assert actions[2].reason.startswith("interface: some network interface must match")
    assert actions[2].as_dict() == {
        "action": "needs-hook",
        "rule": "cpu/NIC",
        "reason": actions[2].reason,
    }
    assert [a.writes for a in actions] == [True, True, False, False]


def test_equal_rules_are_noops_and_a_change_is_one_patch() -> None:
    bodies = CATALOG.by_description()
    same = observed(have(bodies[ADD], "u1"), have(bodies[REMOVE], "u2"))
    assert summary(plan(CATALOG, same)) == [
        ("noop", "cpu removes CUSTOM_CPU_SGX #1"),
        ("noop", "cpu/SGX adds CUSTOM_CPU_SGX"),
        *HOOK,
    ]
    edited = {**bodies[ADD], "priority": 50, "actions": []}
    actions = plan(CATALOG, observed(have(edited, "u1"), have(bodies[REMOVE], "u2")))
    update = actions[1]
    assert (update.kind, update.uuid, update.reason) == (
        "update",
        "u1",
        "actions, priority changed",
    )
    assert update.patch == (
        {"op": "replace", "path": "/actions", "value": bodies[ADD]["actions"]},
        {"op": "replace", "path": "/priority", "value": 0},
    )
    assert update.as_dict()["patch"] == list(update.patch)


def test_the_operators_rules_are_left_alone_and_gone_ones_kept_until_pruned() -> None:
    bodies = CATALOG.by_description()
    theirs = have({"description": "mine", "conditions": [], "actions": []}, "u9")
    anonymous = have({"conditions": [], "actions": []}, "u8")
    gone = have({**bodies[ADD], "description": f"{MARKER}cpu/old adds CUSTOM_CPU_OLD"}, "u7")
    twice = have(bodies[ADD], "u6")
    held = observed(have(bodies[ADD], "u1"), have(bodies[REMOVE], "u2"), theirs, anonymous, gone)
    held[twice.uuid] = twice
    actions = plan(CATALOG, held)
    assert summary(actions) == [
        ("noop", "cpu removes CUSTOM_CPU_SGX #1"),
        ("noop", "cpu/SGX adds CUSTOM_CPU_SGX"),
        ("keep", "cpu/old adds CUSTOM_CPU_OLD"),
        ("unmanaged", "u8"),
        ("keep", "cpu/SGX adds CUSTOM_CPU_SGX"),  # the second rule of one description
        ("unmanaged", "u9 (mine)"),
        *HOOK,
    ]
    assert (
        actions[2].reason
        == "managed by Flavorsmith and no longer in the catalog; --prune deletes it"
    )
    assert (
        actions[4].reason == "a second managed rule with the same description; --prune deletes it"
    )
    assert actions[3].reason == (
        "not created by Flavorsmith (its description does not start with 'flavorsmith:'); "
        "left alone"
    )
    pruned = plan(CATALOG, held, prune=True)
    deleted = [(a.rule, a.uuid) for a in pruned if a.kind == "delete"]
    assert {uuid for _, uuid in deleted} == {"u6", "u7"}
    assert {a.uuid for a in pruned if a.kind == "unmanaged"} == {"u8", "u9"}


def test_a_sensitive_managed_rule_is_a_conflict() -> None:
    hidden = have(
        {**CATALOG.by_description()[ADD], "conditions": None, "actions": None},
        "u1",
        sensitive=True,
    )
    action = plan(CATALOG, observed(hidden))[1]
    assert (action.kind, action.writes) == ("conflict", False)
    assert "sensitive" in action.reason


def test_steps_call_the_target_once_per_write() -> None:
    calls: list[tuple[str, Any]] = []

    class Target:
        calls = 0

        def observe(self) -> dict[str, ObservedRule]:
            return {}

        def create(self, body: dict[str, Any]) -> None:
            calls.append(("create", body["description"]))

        def update(self, uuid: str, patch: Any) -> None:
            calls.append(("update", uuid))

        def delete(self, uuid: str) -> None:
            calls.append(("delete", uuid))

    bodies = CATALOG.by_description()
    gone = have({**bodies[ADD], "description": f"{MARKER}cpu/old adds CUSTOM_CPU_OLD"}, "u7")
    changed = have({**bodies[REMOVE], "priority": 3}, "u2")
    for action in plan(CATALOG, observed(changed, gone), prune=True):
        for step in steps(action, Target()):
            step()
    assert calls == [("update", "u2"), ("create", ADD), ("delete", "u7")]


def test_the_kind_has_no_store_target_and_is_not_watched() -> None:
    assert (KIND.name, KIND.service, KIND.store_target, KIND.watched) == (
        "inspection-rules",
        "baremetal",
        None,
        False,
    )
    assert inspection_rules.MICROVERSION == (1, 96)


def test_the_examples_translate_their_cpu_rules_and_note_the_rest() -> None:
    wanted = KIND.desired(repository(EXAMPLES, RULES).load().catalog)
    assert isinstance(wanted, Translation)
    adds = [r["description"] for r in wanted.rules if "adds" in r["description"]]
    assert [d.removeprefix(MARKER) for d in adds] == [
        "cpu-standard/AVX2 adds HW_CPU_X86_AVX2",
        "cpu-standard/AVX-512 foundation adds HW_CPU_X86_AVX512F",
        "cpu-standard/AMD SEV adds HW_CPU_X86_AMD_SEV",
        "cpu/AVX-512 adds CUSTOM_CPU_AVX512",
        "cpu/Intel SGX adds CUSTOM_CPU_SGX",
    ]
    assert len(wanted.rules) == 10  # and one removal for each of those five traits
    hooked = {n.subject for n in wanted.needs_hook}
    assert {"gpus/any NVIDIA GPU", "nics/Intel E810", "storage/NVMe disk"} <= hooked
    assert all(isinstance(n, NeedsHook) for n in wanted.needs_hook)
