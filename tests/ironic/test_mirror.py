"""The mirror's rules: the delete guard and how one node of Ironic's list is read."""

from __future__ import annotations

import pytest

from flavorsmith.clients.ironic import NODE_FIELDS
from flavorsmith.ironic.mirror import FIELDS, MirrorError, delete_refusal, mirrored, mirrored_all

UUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"


@pytest.mark.parametrize(
    ("stored", "deleting", "refused"),
    [
        (0, 0, False),
        (100, 0, False),
        (100, 10, False),  # exactly 10 % may go
        (100, 11, True),
        (10_000, 1000, False),
        (10_000, 1001, True),
        (9, 1, True),  # a tenth of 9 is less than one node
        (350, 350, True),  # an empty answer never empties the mirror
    ],
)
def test_delete_guard(stored: int, deleting: int, refused: bool) -> None:
    reason = delete_refusal(stored, deleting)
    assert (reason is not None) == refused
    if reason is not None:
        assert f"delete {deleting} of the {stored} mirrored nodes" in reason
        assert "nothing was changed" in reason


def test_the_share_is_a_setting() -> None:
    assert delete_refusal(10, 10, 1.0) is None
    assert delete_refusal(10, 3, 0.25) is not None


def test_a_listed_node_becomes_stored_values() -> None:
    node = mirrored(
        {
            "uuid": UUID.upper(),
            "name": None,
            "traits": ["CUSTOM_A"],
            "provision_state": "active",
            "instance_uuid": "AB1E0000-0000-4000-8000-000000000000",
            "driver": "ipmi",
            "maintenance": True,
            "retired": None,
        }
    )
    assert node.uuid == UUID and node.traits == {"CUSTOM_A"}
    assert node.values["name"] is None and node.values["properties"] == {}
    assert node.values["instance_uuid"] == "ab1e0000-0000-4000-8000-000000000000"
    assert node.values["maintenance"] is True and node.values["retired"] is False


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"uuid": "nope"}, "no valid uuid: 'nope'"),
        ({"uuid": UUID, "traits": "CUSTOM_A"}, f"node {UUID}: traits is 'CUSTOM_A'"),
        ({"uuid": UUID, "properties": []}, f"node {UUID}: properties is []"),
        ({"uuid": UUID, "name": 7}, f"node {UUID}: name is 7, not text"),
    ],
)
def test_a_node_that_cannot_be_mirrored_is_named(record: dict[str, object], message: str) -> None:
    with pytest.raises(MirrorError, match=message.replace("[", r"\[").replace("]", r"\]")):
        mirrored(record)


def test_a_node_listed_twice_is_not_one_answer() -> None:
    with pytest.raises(MirrorError, match="listed twice"):
        mirrored_all([{"uuid": UUID}, {"uuid": UUID.upper()}])


def test_the_node_sources_read_the_mirrors_fields() -> None:
    assert NODE_FIELDS == FIELDS
