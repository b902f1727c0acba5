"""The classification plan is pure: each node's action from its stored inventory and the
catalog, with Ironic's resource-class state rule, and the calls that carry it out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.errors import TargetError
from flavorsmith.ironic.nodes import RESOURCE_CLASS_UPDATE_STATES, resource_class_refusal
from flavorsmith.sync import store_target as store
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds.classification import KIND, NodeAction, ObservedNode, plan, steps
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES

SMALL = json.loads((EXAMPLES / "inspection" / "r7615-m1-small.json").read_text())
UNKNOWN = json.loads((EXAMPLES / "inspection" / "near-miss-supermicro.json").read_text())
SMALL_TRAITS = frozenset(
    {
        "CUSTOM_CPU_AVX512",
        "CUSTOM_NIC_MELLANOX_CX5",
        "CUSTOM_NVME",
        "HW_CPU_X86_AMD_SEV",
        "HW_CPU_X86_AVX2",
        "HW_CPU_X86_AVX512F",
    }
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Repository(EXAMPLES, RULES).load().catalog


def node(key: str, **values: Any) -> ObservedNode:
    fields: dict[str, Any] = {
        "uuid": f"uuid-{key}",
        "name": key,
        "provision_state": "manageable",
        "resource_class": None,
        "traits": frozenset(),
        "inventory": SMALL,
    }
    fields.update(values)
    return ObservedNode(**fields)


def one(catalog: Catalog, observed: ObservedNode) -> NodeAction:
    (action,) = plan(catalog, {observed.uuid: observed}, False)
    return action


def test_a_new_node_gets_its_resource_class_and_the_rules_traits(catalog: Catalog) -> None:
    action = one(catalog, node("a"))
    assert (action.kind, action.resource_class, action.new_resource_class) == (
        "update",
        None,
        "m1.small",
    )
    assert set(action.added) == SMALL_TRAITS and action.removed == ()
    assert action.reason.startswith("resource class (none) → m1.small; add CUSTOM_CPU_AVX512")
    assert action.writes and action.classification["device_type"] == "dell-poweredge-r7615"


def test_only_owned_traits_change(catalog: Catalog) -> None:
    have = SMALL_TRAITS | {"CUSTOM_OPERATOR_X", "CUSTOM_NIC_INTEL_E810"}
    action = one(catalog, node("a", resource_class="m1.small", traits=have))
    assert (action.kind, action.new_resource_class, action.added) == ("update", None, ())
    assert action.removed == ("CUSTOM_NIC_INTEL_E810",)  # owned (CUSTOM_NIC), not set: removed
    assert action.reason == "remove CUSTOM_NIC_INTEL_E810"
    done = one(catalog, node("a", resource_class="m1.small", traits=SMALL_TRAITS))
    assert (done.kind, done.writes, done.reason) == (
        "noop",
        False,
        "up to date (resource class m1.small)",
    )


@pytest.mark.parametrize("state", ["active", "deploying", "clean failed", "deploy failed"])
def test_a_resource_class_change_ironic_refuses_is_blocked_not_failed(
    catalog: Catalog, state: str
) -> None:
    action = one(catalog, node("a", provision_state=state, resource_class="baremetal"))
    assert action.kind == "blocked" and not action.writes
    assert (action.resource_class, action.new_resource_class) == ("baremetal", "m1.small")
    assert action.reason.startswith("blocked: resource class baremetal → m1.small: Node ")
    assert action.reason.endswith(f"Current state is '{state}'.")
    # the traits are planned, but a blocked node is left wholly alone
    assert set(action.added) == SMALL_TRAITS


@pytest.mark.parametrize("state", RESOURCE_CLASS_UPDATE_STATES)
def test_ironic_changes_resource_classes_in_its_own_states(catalog: Catalog, state: str) -> None:
    action = one(catalog, node("a", provision_state=state, resource_class="baremetal"))
    assert (action.kind, action.new_resource_class) == ("update", "m1.small")


def test_the_state_rule_is_ironic_39s() -> None:
    assert RESOURCE_CLASS_UPDATE_STATES == (
        "enroll",
        "inspecting",
        "inspect wait",
        "manageable",
        "available",
    )
    assert resource_class_refusal("n", None, "active") is None  # a first one: any state
    assert resource_class_refusal("n", "", "active") is None
    assert resource_class_refusal("n", "rc", "available") is None
    refusal = resource_class_refusal("n", "rc", "active")
    assert refusal == (
        "Node n can not have resource_class updated unless it is in one of allowed (enroll, "
        "inspecting, inspect wait, manageable, available) states. Current state is 'active'."
    )


def test_an_active_node_without_a_resource_class_gets_one(catalog: Catalog) -> None:
    action = one(catalog, node("a", provision_state="active"))
    assert (action.kind, action.new_resource_class) == ("update", "m1.small")


def test_traits_change_on_an_active_node_whose_resource_class_is_right(catalog: Catalog) -> None:
    action = one(catalog, node("a", provision_state="active", resource_class="m1.small"))
    assert action.kind == "update" and set(action.added) == SMALL_TRAITS


def test_no_device_type_leaves_the_resource_class_and_still_sets_traits(catalog: Catalog) -> None:
    action = one(catalog, node("a", resource_class="custom", inventory=UNKNOWN))
    assert (action.kind, action.new_resource_class) == ("update", None)
    assert "CUSTOM_NIC_INTEL_E810" in action.added
    assert "resource class left alone: no device type matches" in action.reason
    # a blocked state does not matter when the resource class does not change
    active = one(
        catalog, node("a", provision_state="active", resource_class="c", inventory=UNKNOWN)
    )
    assert active.kind == "update"


def test_no_inventory_and_an_unusable_one(catalog: Catalog) -> None:
    bare = one(catalog, node("a", inventory=None))
    assert (bare.kind, bare.writes) == ("no-inventory", False)
    assert "no inspection inventory" in bare.reason
    bad = one(catalog, node("a", inventory=["not", "an", "inventory"]))
    assert bad.kind == "conflict" and "cannot be classified" in bad.reason
    unreadable = one(catalog, node("a", inventory=None, unreadable="GET …: 500 boom"))
    assert (unreadable.kind, unreadable.reason) == ("conflict", "GET …: 500 boom")


def test_the_plan_is_in_name_order_and_uuid_when_unnamed(catalog: Catalog) -> None:
    nodes = [node("b"), node("a"), node("0", name=None), node("c", name=None)]
    actions = plan(catalog, {n.uuid: n for n in nodes}, False)
    assert [a.node for a in actions] == ["uuid-0", "uuid-c", "a", "b"]


class Calls:
    calls = 0

    def __init__(self) -> None:
        self.made: list[tuple[str, ...]] = []

    def set_resource_class(self, uuid: str, value: str) -> None:
        self.made.append(("rc", uuid, value))

    def add_trait(self, uuid: str, trait: str) -> None:
        self.made.append(("add", uuid, trait))

    def remove_trait(self, uuid: str, trait: str) -> None:
        self.made.append(("remove", uuid, trait))


def test_the_resource_class_first_then_one_call_per_trait(catalog: Catalog) -> None:
    action = one(catalog, node("a", resource_class="x", traits=frozenset({"CUSTOM_NVME_OLD"})))
    target: Any = Calls()
    for step in steps(action, target):
        step()
    assert target.made[0] == ("rc", "uuid-a", "m1.small")
    assert sorted(target.made[1:-1]) == sorted(("add", "uuid-a", t) for t in SMALL_TRAITS)
    assert target.made[-1] == ("remove", "uuid-a", "CUSTOM_NVME_OLD")


def test_the_kind_has_no_store_target_and_says_so(catalog: Catalog) -> None:
    assert KIND.store_target is None and not KIND.watched
    with pytest.raises(TargetError) as raised:
        store.target(KIND, object())  # type: ignore[arg-type]
    assert str(raised.value) == (
        "classification cannot be synced into the service's own database, only into a real "
        "cloud's baremetal service"
    )


def test_the_engine_runs_it_on_an_observed_fleet(catalog: Catalog) -> None:
    class Fleet(Calls):
        def observe(self) -> dict[str, ObservedNode]:
            return {
                n.uuid: n
                for n in (node("a"), node("b", provision_state="active", resource_class="x"))
            }

    target = Fleet()
    view = Repository(EXAMPLES, RULES).load()
    result = run(KIND, view, target, prune=False, execute=True)
    assert result.report is not None and result.error is None
    assert [(o.action.subject, o.ok, o.error) for o in result.report.outcomes] == [
        ("a", True, None),
        ("b", False, None),  # blocked: skipped, not failed
    ]
    assert {call[1] for call in target.made} == {"uuid-a"}
