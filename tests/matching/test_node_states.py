"""Nova 34's ironic-driver rule on a node's states: its inventory absent, used, reserved or
schedulable, each reason in words, and the index's ``available`` bitmap following it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from flavorsmith.matching.index import Index, positions
from flavorsmith.matching.snapshot import NodeInfo, Snapshot, from_records

READY = NodeInfo("u1", "n1", "m1.small", frozenset())


def kinds(node: NodeInfo) -> list[str]:
    return [hold.kind for hold in node.holds]


def test_an_available_powered_node_is_schedulable() -> None:
    assert READY.holds == () and READY.inventory_state == "schedulable" and READY.available
    # Ironic's NOSTATE provision state is as good as available for Nova.
    assert replace(READY, provision_state=None).available
    assert replace(READY, power_state="power on").available


@pytest.mark.parametrize(
    ("changes", "expected", "state"),
    [
        ({"maintenance": True}, ["maintenance"], "reserved"),
        ({"power_state": None}, ["power-state"], "reserved"),
        ({"power_state": "error"}, ["power-state"], "reserved"),
        ({"provision_state": "manageable"}, ["provision-state"], "reserved"),
        (
            {"provision_state": "enroll", "power_state": None},
            ["power-state", "provision-state"],
            "reserved",
        ),
        (
            {"provision_state": "active", "power_state": "power on", "instance_uuid": "i-1"},
            ["instance", "provision-state"],
            "used",
        ),
        # Nova counts a node used only by its instance: an active node without one is reserved.
        ({"provision_state": "active", "provisioned": True}, ["provision-state"], "reserved"),
        # A node built by hand as provisioned, without Ironic states saying more.
        ({"provisioned": True}, ["provisioned"], "used"),
    ],
)
def test_nova_reports_the_inventory_reserved(
    changes: dict[str, object], expected: list[str], state: str
) -> None:
    node = replace(READY, **changes)  # type: ignore[arg-type]
    assert kinds(node) == expected
    assert node.inventory_state == state and not node.available


def test_the_words_say_what_nova_does() -> None:
    (hold,) = replace(READY, power_state=None).holds
    assert hold.detail.startswith(
        "power state is none: Nova's ironic driver reports the node reserved"
    )
    (hold,) = replace(READY, provision_state="manageable").holds
    assert "provision state is 'manageable', not 'available'" in hold.detail


def test_a_node_without_resource_class_has_no_inventory() -> None:
    node = replace(READY, resource_class=None)
    assert node.inventory_state == "absent" and not node.available


def test_records_without_a_power_state_read_as_none() -> None:
    """Ironic's list always carries power_state; a record lacking it reads as Ironic's null."""
    snapshot = from_records(
        [
            {"uuid": "a", "resource_class": "rc", "provision_state": "available"},
            {
                "uuid": "b",
                "resource_class": "rc",
                "provision_state": "available",
                "power_state": "power off",
                "owner": "p1",
                "lessee": "p2",
            },
        ]
    )
    first, second = snapshot.nodes
    assert first.power_state is None and not first.available
    assert second.available and (second.owner, second.lessee) == ("p1", "p2")
    index = Index.build(snapshot)
    assert list(positions(index.available)) == [1]


def test_the_index_available_bitmap_is_placement_schedulable() -> None:
    nodes = (
        READY,
        replace(READY, uuid="u2", name="n2", power_state=None),
        replace(READY, uuid="u3", name="n3", maintenance=True),
        replace(READY, uuid="u4", name="n4", provision_state="active", instance_uuid="i"),
        replace(READY, uuid="u5", name="n5", resource_class=None),
    )
    assert list(positions(Index.build(Snapshot(nodes)).available)) == [0]
