"""The node rules without a database: create, JSON patch, validation."""

from __future__ import annotations

from typing import Any

import pytest

from flavorsmith.errors import Invalid
from flavorsmith.ironic import nodes as rules

LENGTHS = {"uuid": 36, "name": 255, "driver": 255, "resource_class": 80}
ROW: dict[str, Any] = {
    "uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
    "name": "n1",
    "driver": "ipmi",
    "driver_info": {},
    "extra": {},
    "instance_info": {},
    "instance_uuid": None,
    "maintenance": False,
    "maintenance_reason": None,
    "properties": {},
    "resource_class": None,
    "description": None,
}


def test_new_node_by_version() -> None:
    body = {"driver": "fake-hardware", "resource_class": "gpu"}
    assert rules.new_node(body, LENGTHS, resource_class_allowed=True, enroll=True) == {
        **body,
        "provision_state": "enroll",
    }
    with pytest.raises(Invalid, match=r"1\.21"):
        rules.new_node(body, LENGTHS, resource_class_allowed=False, enroll=False)
    with pytest.raises(Invalid, match="Unknown node field 'power_state'"):
        rules.new_node(
            {**body, "power_state": "on"}, LENGTHS, resource_class_allowed=True, enroll=True
        )


def test_lengths_are_passed_in() -> None:
    with pytest.raises(rules.FieldInvalid, match="at most 3"):
        rules.checked_node({"driver": "ipmi", "resource_class": "gpu4"}, {"resource_class": 3})


def test_patch_returns_only_changes() -> None:
    patch = [
        {"op": "add", "path": "/extra/a", "value": 1},
        {"op": "replace", "path": "/name", "value": "n1"},
    ]
    assert rules.apply_patch(ROW, patch, LENGTHS) == {"extra": {"a": 1}}
    with pytest.raises(Invalid, match="Cannot patch /power_state"):
        rules.apply_patch(ROW, [{"op": "add", "path": "/power_state", "value": "x"}], LENGTHS)
    with pytest.raises(Invalid, match="always has a driver"):
        rules.apply_patch(ROW, [{"op": "remove", "path": "/driver"}], LENGTHS)
    with pytest.raises(rules.FieldInvalid, match="'description' must be a string"):
        rules.apply_patch(ROW, [{"op": "add", "path": "/description", "value": {"a": 1}}], LENGTHS)


def test_validation_reports_missing_driver_info_and_instance_traits() -> None:
    row = {**ROW, "instance_info": {"traits": ["CUSTOM_X"]}}
    results = rules.validation(row, ["CUSTOM_Y"])
    assert results["power"]["result"] is False and "ipmi_address" in results["power"]["reason"]
    assert "missing traits CUSTOM_X" in results["deploy"]["reason"]
    assert results["boot"] == {"result": True}
    assert rules.instance_trait_names(row["instance_info"]) == ["CUSTOM_X"]
