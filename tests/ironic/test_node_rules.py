"""The node rules without a database: create, JSON patch, validation."""

from __future__ import annotations

from typing import Any

import pytest

from flavorsmith.errors import Conflict, Invalid
from flavorsmith.ironic import nodes as rules

LENGTHS = {"uuid": 36, "name": 255, "driver": 255, "resource_class": 80}
ROW: dict[str, Any] = {
    **{field: None for field in rules.PATCHABLE},  # every patchable field, null unless below
    "uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
    "name": "n1",
    "driver": "ipmi",
    "driver_info": {},
    "extra": {},
    "instance_info": {},
    "maintenance": False,
    "properties": {},
    "provision_state": "available",
    "network_data": {},
    "conductor_group": "",
    "protected": False,
    "retired": False,
    "disable_power_off": False,
}


def test_new_node_fills_fake_hardware_interfaces_and_refuses_unknown_fields() -> None:
    body = {"driver": "fake-hardware", "resource_class": "gpu", "deploy_interface": "direct"}
    node = rules.new_node(body, LENGTHS, enroll=True)
    assert node["provision_state"] == "enroll" and node["resource_class"] == "gpu"
    assert node["deploy_interface"] == "direct"  # named: kept
    assert node["network_interface"] == "noop" and node["vendor_interface"] == "fake"
    ipmi = rules.new_node({"driver": "ipmi"}, LENGTHS, enroll=False)
    assert ipmi["provision_state"] == "available" and "boot_interface" not in ipmi
    with pytest.raises(Invalid, match="Unknown node field 'power_state'"):
        rules.new_node({**body, "power_state": "on"}, LENGTHS, enroll=True)
    with pytest.raises(Invalid, match="Unknown node field 'protected'"):
        rules.new_node({**body, "protected": True}, LENGTHS, enroll=True)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            {"retired": "yes", "automated_clean": "False"},
            {"retired": True, "automated_clean": False},
        ),
        ({"retired": None, "automated_clean": None}, {"retired": False, "automated_clean": None}),
        ({"conductor_group": "Rack-1.A_b"}, {"conductor_group": "rack-1.a_b"}),
        (
            {"conductor_group": None, "network_data": None},
            {"conductor_group": "", "network_data": {}},
        ),
        ({"chassis_uuid": "{1BE26C0B-03F2-4D2E-AE87-C02D7F33C123}"}, {"chassis_uuid": ROW["uuid"]}),
        ({"owner": "p1", "boot_interface": None}, {"owner": "p1", "boot_interface": None}),
    ],
)
def test_data_fields_are_normalised(values: dict[str, Any], expected: dict[str, Any]) -> None:
    checked = rules.checked_node({"driver": "ipmi", **values}, LENGTHS)
    assert {k: checked[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"retired": "maybe"}, "retired", "'retired' must be true or false"),
        ({"maintenance": 1}, "maintenance", "'maintenance' must be true or false"),
        ({"conductor_group": "a b"}, "conductor_group", "Expected a conductor group"),
        ({"owner": 5}, "owner", "'owner' must be a string or null"),
        ({"boot_interface": ""}, "boot_interface", "must name an interface"),
        ({"instance_name": ""}, "instance_name", "at least 1 character"),
        ({"network_data": []}, "network_data", "'network_data' must be an object"),
        ({"chassis_uuid": "rack"}, "chassis_uuid", "Expected a UUID for chassis_uuid"),
        ({"shard": "s" * 256}, "shard", "at most 255"),
    ],
)
def test_data_fields_are_refused_by_name(values: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(rules.FieldInvalid, match=message) as caught:
        rules.checked_node({"driver": "ipmi", **values}, {**LENGTHS, "shard": 255})
    assert caught.value.field == field


def test_protection_and_retirement_follow_ironics_update_rules() -> None:
    active = {**ROW, "provision_state": "active"}
    protect = [
        {"op": "add", "path": "/protected", "value": True},
        {"op": "add", "path": "/protected_reason", "value": "prod"},
    ]
    assert rules.apply_patch(active, protect, LENGTHS) == {
        "protected": True,
        "protected_reason": "prod",
    }
    with pytest.raises(Conflict, match="only be made protected in provision states"):
        rules.apply_patch(ROW, protect, LENGTHS)
    with pytest.raises(Invalid, match="protected_reason field can only be set when protected"):
        rules.apply_patch(active, protect[1:], LENGTHS)
    protected = {**active, "protected": True, "protected_reason": "prod"}
    unprotect = [{"op": "replace", "path": "/protected", "value": False}]
    assert rules.apply_patch(protected, unprotect, LENGTHS) == {
        "protected": False,
        "protected_reason": None,
    }
    retire = [{"op": "add", "path": "/retired", "value": True}]
    assert rules.apply_patch({**ROW, "provision_state": "manageable"}, retire, LENGTHS) == {
        "retired": True
    }
    with pytest.raises(Conflict, match="can not have 'retired' set in provision state"):
        rules.apply_patch(ROW, retire, LENGTHS)
    removed = rules.apply_patch(
        {**ROW, "conductor_group": "g", "retired": True, "provision_state": "manageable"},
        [{"op": "remove", "path": "/conductor_group"}, {"op": "remove", "path": "/retired"}],
        LENGTHS,
    )
    assert removed == {"conductor_group": "", "retired": False}


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


def test_leaving_maintenance_clears_its_reason_and_interfaces_change_only_when_allowed() -> None:
    down = {**ROW, "maintenance": True, "maintenance_reason": "fan"}
    leave = [{"op": "replace", "path": "/maintenance", "value": False}]
    assert rules.apply_patch(down, leave, LENGTHS) == {
        "maintenance": False,
        "maintenance_reason": None,
    }
    boot = [{"op": "add", "path": "/boot_interface", "value": "pxe"}]
    assert rules.apply_patch(ROW, boot, LENGTHS) == {"boot_interface": "pxe"}  # available
    active = {**ROW, "provision_state": "active"}
    with pytest.raises(Conflict, match="can not have boot_interface updated unless"):
        rules.apply_patch(active, boot, LENGTHS)
    in_maintenance = {**active, "maintenance": True}
    assert rules.apply_patch(in_maintenance, boot, LENGTHS) == {"boot_interface": "pxe"}
