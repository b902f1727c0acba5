"""Runbooks through the real `openstack baremetal runbook` CLI (python-ironicclient) and
through openstacksdk, against a live server (SQLite): create, list, show, set, traits,
delete, and Ironic's refusals as the clients show them."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from openstack import exceptions as sdk_exceptions

from tests.integration.clients import OpenStack, sdk

RESET = {"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}
BIOS = {
    "interface": "bios",
    "step": "apply_configuration",
    "args": {"settings": [{"name": "LogicalProc", "value": "Enabled"}]},
    "order": 2,
}
RAID = {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 3}


def unique(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:8]}"


# ---------------------------------------------------------------- the openstack CLI


@pytest.fixture(scope="module")
def runbooks(sqlite_server: str) -> OpenStack:
    """`openstack baremetal runbook ...`"""
    return OpenStack.noauth(sqlite_server, "baremetal", "baremetal", "runbook")


def test_cli_lifecycle(runbooks: OpenStack) -> None:
    name = unique("cli")
    created = runbooks.json(
        "create",
        "--name",
        name,
        "--description",
        "firmware window",
        "--steps",
        json.dumps([RESET, BIOS]),
        "--extra",
        "rack=r7",
    )
    ident = created["uuid"]
    assert (created["name"], created["description"], created["steps"]) == (
        name,
        "firmware window",
        [RESET, BIOS],
    )
    assert (created["extra"], created["public"], created["owner"], created["traits"]) == (
        {"rack": "r7"},
        False,
        None,
        [],
    )
    assert {"uuid": ident, "name": name} in runbooks.json("list")
    long = [r for r in runbooks.json("list", "--long") if r["uuid"] == ident]
    assert [(r["name"], r["steps"], r["traits"]) for r in long] == [(name, [RESET, BIOS], [])]
    assert runbooks.json("show", name) == created
    assert runbooks.json("show", ident) == created

    assert runbooks.ok("set", name, "--steps", json.dumps([RAID]), "--description", "raid") == ""
    changed = runbooks.json("show", ident)
    assert (changed["steps"], changed["description"]) == ([RAID], "raid")
    assert changed["updated_at"] is not None

    added = runbooks.ok("trait", "add", name, "CUSTOM_FIRMWARE", "CUSTOM_RAID")
    assert added == "Added trait CUSTOM_FIRMWARE\nAdded trait CUSTOM_RAID\n"
    listed = runbooks.json("trait", "list", name)
    assert listed == [{"traits": "CUSTOM_FIRMWARE"}, {"traits": "CUSTOM_RAID"}]
    assert "CUSTOM_RAID" in runbooks.ok("trait", "remove", name, "CUSTOM_RAID")
    assert runbooks.json("show", name)["traits"] == ["CUSTOM_FIRMWARE"]

    refused = runbooks.run("create", "--name", unique("dup"), "--steps", json.dumps([RESET, RESET]))
    assert refused.returncode != 0
    assert "Duplicate deploy steps" in refused.stderr and "(HTTP 400)" in refused.stderr
    taken = runbooks.run("create", "--name", name, "--steps", json.dumps([RESET]))
    assert f"A runbook with name {name} already exists. (HTTP 409)" in taken.stderr

    assert "Deleted runbook" in runbooks.ok("delete", name)
    gone = runbooks.run("show", ident)
    assert gone.returncode != 0
    assert f"Runbook {ident} could not be found. (HTTP 404)" in gone.stderr
    assert all(r["uuid"] != ident for r in runbooks.json("list"))


# ---------------------------------------------------------------- openstacksdk


@pytest.fixture
def conn(sqlite_server: str) -> Any:
    return sdk(sqlite_server, "baremetal")


def test_sdk_lifecycle(conn: Any) -> None:
    name = unique("sdk")
    created = conn.baremetal.create_runbook(
        name=name, description="d", steps=[RESET, BIOS], extra={"owner": "ops"}
    )
    assert (created.name, created.description, created.steps) == (name, "d", [RESET, BIOS])
    assert str(uuid.UUID(created.id)) == created.id
    assert created.created_at is not None and created.updated_at is None

    detailed = [r for r in conn.baremetal.runbooks(details=True) if r.id == created.id]
    assert [(r.name, r.steps, r.extra) for r in detailed] == [
        (name, [RESET, BIOS], {"owner": "ops"})
    ]
    brief = [r for r in conn.baremetal.runbooks() if r.id == created.id]
    assert [(r.name, r.steps) for r in brief] == [(name, None)]

    conn.baremetal.set_runbook_traits(created, ["CUSTOM_B", "CUSTOM_A"])
    conn.baremetal.add_runbook_trait(created, "CUSTOM_C")
    conn.baremetal.remove_runbook_trait(created, "CUSTOM_B")
    fetched = conn.baremetal.get_runbook(name)
    assert (fetched.id, fetched.traits) == (created.id, ["CUSTOM_A", "CUSTOM_C"])

    patched = conn.baremetal.patch_runbook(
        fetched, [{"op": "replace", "path": "/steps", "value": [RAID]}]
    )
    assert patched.steps == [RAID] and patched.updated_at is not None
    updated = conn.baremetal.update_runbook(created.id, name=name + "-2", extra={})
    assert (updated.name, updated.extra) == (name + "-2", {})
    with pytest.raises(sdk_exceptions.NotFoundException, match=f"Runbook {name} could not"):
        conn.baremetal.get_runbook(name)
    with pytest.raises(sdk_exceptions.BadRequestException, match="Cannot patch /traits"):
        conn.baremetal.patch_runbook(
            created.id, [{"op": "add", "path": "/traits", "value": ["CUSTOM_X"]}]
        )

    conn.baremetal.delete_runbook(created.id)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.get_runbook(created.id)
    with pytest.raises(sdk_exceptions.NotFoundException):
        conn.baremetal.delete_runbook(created.id, ignore_missing=False)
