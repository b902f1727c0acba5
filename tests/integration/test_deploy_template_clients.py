"""Deploy templates through the real `openstack baremetal deploy template` CLI and through
openstacksdk, against a live server (SQLite).

The CLI (python-ironicclient) has no --description option, so descriptions are only checked
to come back empty; openstacksdk's DeployTemplate has no description attribute at all."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from openstack import exceptions as sdk_exceptions

from tests.integration.clients import OpenStack, sdk, unique_trait

RAID = {
    "interface": "raid",
    "step": "apply_configuration",
    "args": {"raid_config": {"logical_disks": [{"size_gb": "MAX", "raid_level": "1"}]}},
    "priority": 90,
}
BIOS = {
    "interface": "bios",
    "step": "apply_configuration",
    "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
    "priority": 80,
}
RESET = {"interface": "bios", "step": "factory_reset", "args": {}, "priority": 5}
DUPLICATE = (
    "Duplicate deploy steps. A template cannot have multiple deploy steps with the same "
    "interface and step. Duplicates: interface: raid, step: apply_configuration."
)


# ---------------------------------------------------------------- the openstack CLI


@pytest.fixture(scope="module")
def templates(sqlite_server: str) -> OpenStack:
    """`openstack baremetal deploy template ...`"""
    return OpenStack.noauth(sqlite_server, "baremetal", "baremetal", "deploy", "template")


def test_cli_lifecycle(templates: OpenStack, tmp_path: Path) -> None:
    name = unique_trait("CLI")
    created = templates.json(
        "create",
        name,
        "--steps",
        json.dumps([RAID, BIOS]),
        "--extra",
        "owner=ops",
        "--extra",
        "rack=r7",
    )
    template_uuid = created["uuid"]
    assert created == {
        "uuid": template_uuid,
        "name": name,
        "steps": [RAID, BIOS],
        "extra": {"owner": "ops", "rack": "r7"},
        "created_at": created["created_at"],
        "updated_at": None,
    }
    assert created["created_at"].endswith("+00:00")

    assert {"uuid": template_uuid, "name": name} in templates.json("list")
    long = [t for t in templates.json("list", "--long") if t["uuid"] == template_uuid]
    assert long == [created]
    chosen = [t for t in templates.json("list", "--fields", "name", "steps") if t["name"] == name]
    assert chosen == [{"name": name, "steps": [RAID, BIOS]}]

    shown = templates.json("show", name)
    assert shown == created  # no description set: the body is Ironic's, without one
    assert templates.json("show", template_uuid) == shown

    # set: a new name, one more extra key, and the steps from a YAML file, in the file's order.
    steps_file = tmp_path / "steps.yaml"
    steps_file.write_text(
        "- {interface: bios, step: factory_reset, args: {}, priority: 5}\n"
        "- interface: raid\n"
        "  step: apply_configuration\n"
        "  args: {raid_config: {logical_disks: [{size_gb: MAX, raid_level: '1'}]}}\n"
        "  priority: 90\n"
    )
    new_name = unique_trait("CLI_RENAMED")
    assert (
        templates.ok(
            "set",
            name,
            "--name",
            new_name,
            "--extra",
            "tier=gold",
            "--steps",
            str(steps_file),
        )
        == ""
    )
    renamed = templates.json("show", new_name)
    assert renamed["uuid"] == template_uuid
    assert renamed["steps"] == [RESET, RAID]
    assert renamed["extra"] == {"owner": "ops", "rack": "r7", "tier": "gold"}
    assert renamed["created_at"] == created["created_at"]
    assert renamed["updated_at"] is not None
    gone = templates.run("show", name)
    assert gone.returncode != 0
    assert f"Deploy template {name} could not be found. (HTTP 404)" in gone.stderr

    assert templates.ok("unset", new_name, "--extra", "rack", "--extra", "owner") == ""
    unset = templates.json("show", template_uuid)
    assert unset["extra"] == {"tier": "gold"}
    assert unset["updated_at"] > renamed["updated_at"]

    assert templates.ok("delete", new_name) == f"Deleted deploy template {new_name}\n"
    missing = templates.run("show", template_uuid)
    assert missing.returncode != 0
    assert f"Deploy template {template_uuid} could not be found. (HTTP 404)" in missing.stderr
    assert all(t["uuid"] != template_uuid for t in templates.json("list"))


def test_cli_refuses_duplicate_steps(templates: OpenStack) -> None:
    name = unique_trait("CLI_DUP")
    error = templates.error("create", name, "--steps", json.dumps([RAID, {**RAID, "priority": 10}]))
    assert f"{DUPLICATE} (HTTP 400)" in error
    assert all(t["name"] != name for t in templates.json("list"))


def test_cli_refuses_a_rename_to_a_taken_name(templates: OpenStack) -> None:
    taken = unique_trait("CLI_TAKEN")
    mine = unique_trait("CLI_MINE")
    templates.ok("create", taken, "--steps", json.dumps([RAID]))
    templates.ok("create", mine, "--steps", json.dumps([BIOS]))
    result = templates.run("set", mine, "--name", taken)
    assert result.returncode != 0
    assert f"A deploy template with name {taken} already exists. (HTTP 409)" in result.stderr
    assert templates.json("show", mine)["steps"] == [BIOS]


# ---------------------------------------------------------------- openstacksdk


@pytest.fixture
def conn(sqlite_server: str) -> Any:
    return sdk(sqlite_server, "baremetal")


def test_sdk_lifecycle(conn: Any) -> None:
    name = unique_trait("SDK")
    created = conn.baremetal.create_deploy_template(
        name=name, steps=[RAID, BIOS], extra={"owner": "ops"}
    )
    assert (created.name, created.steps, created.extra) == (name, [RAID, BIOS], {"owner": "ops"})
    assert str(uuid.UUID(created.id)) == created.id
    assert created.created_at is not None and created.updated_at is None

    detailed = [t for t in conn.baremetal.deploy_templates(details=True) if t.id == created.id]
    assert [(t.name, t.steps, t.extra) for t in detailed] == [
        (name, [RAID, BIOS], {"owner": "ops"})
    ]
    brief = [t for t in conn.baremetal.deploy_templates() if t.id == created.id]
    assert [(t.name, t.steps) for t in brief] == [(name, None)]

    fetched = conn.baremetal.get_deploy_template(name)
    assert (fetched.id, fetched.steps) == (created.id, [RAID, BIOS])

    patched = conn.baremetal.patch_deploy_template(
        fetched,
        [
            {"op": "add", "path": "/extra/rack", "value": "r7"},
            {"op": "replace", "path": "/steps", "value": [RESET, RAID]},
        ],
    )
    assert (patched.steps, patched.extra) == ([RESET, RAID], {"owner": "ops", "rack": "r7"})
    assert patched.updated_at is not None

    new_name = unique_trait("SDK_RENAMED")
    updated = conn.baremetal.update_deploy_template(
        created.id, name=new_name, steps=[BIOS, RESET], extra={"tier": "gold"}
    )
    assert (updated.name, updated.steps, updated.extra) == (
        new_name,
        [BIOS, RESET],
        {"tier": "gold"},
    )
    again = conn.baremetal.get_deploy_template(created.id)
    assert (again.name, again.steps, again.extra) == (new_name, [BIOS, RESET], {"tier": "gold"})
    with pytest.raises(sdk_exceptions.NotFoundException, match=f"Deploy template {name}"):
        conn.baremetal.get_deploy_template(name)

    conn.baremetal.delete_deploy_template(again)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.get_deploy_template(created.id)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.delete_deploy_template(created.id, ignore_missing=False)
    assert all(t.id != created.id for t in conn.baremetal.deploy_templates())


def test_sdk_errors(conn: Any) -> None:
    with pytest.raises(sdk_exceptions.BadRequestException) as duplicate:
        conn.baremetal.create_deploy_template(
            name=unique_trait("SDK_DUP"), steps=[RAID, {**RAID, "priority": 1}]
        )
    assert DUPLICATE in str(duplicate.value)
    with pytest.raises(sdk_exceptions.BadRequestException, match="Invalid deploy template name"):
        conn.baremetal.create_deploy_template(name="custom_lower", steps=[RAID])

    template = conn.baremetal.create_deploy_template(name=unique_trait("SDK_KEEP"), steps=[RAID])
    with pytest.raises(sdk_exceptions.BadRequestException, match="Cannot remove /steps"):
        conn.baremetal.patch_deploy_template(template, [{"op": "remove", "path": "/steps"}])
    taken = conn.baremetal.create_deploy_template(name=unique_trait("SDK_TAKEN"), steps=[BIOS])
    with pytest.raises(sdk_exceptions.ConflictException, match="already exists"):
        conn.baremetal.update_deploy_template(template.id, name=taken.name)
    kept = conn.baremetal.get_deploy_template(template.id)
    assert (kept.name, kept.steps, kept.updated_at) == (template.name, [RAID], None)
