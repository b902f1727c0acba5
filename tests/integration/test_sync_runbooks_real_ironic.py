"""The runbook sync against a real Ironic 39 (tests/support/ironic_api.py), at API 1.112: three
catalog runbooks created with their traits through the ``sync`` command, an empty second
plan, a changed step shown as a diff and patched, traits replaced, a saved plan refused once
Ironic changed behind it, a removed runbook kept until ``--prune``, the all-gone guard; and
Ironic's one refusal by state (an owner on a public runbook) met with a replace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog.repo import Repository
from flavorsmith.ironic.runbooks import PUBLIC_OWNER, patch_refusal
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds.runbooks import KIND, MARKER, SdkRunbooks
from tests.conftest import Invoke
from tests.support.catalogs import RULES
from tests.support.ironic_api import running_ironic, sdk_connection
from tests.support.runbook_catalog import NAMES, edit, remove, runbook_catalog

VERSION = "1.112"
OPERATORS = "operator-made"


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


def call(conn: Any, method: str, path: str, body: Any = None) -> Any:
    """One request to the real Ironic at 1.112; its status and JSON body."""
    response = conn.baremetal.request(
        path, method, json=body, microversion=VERSION, raise_exc=False
    )
    return response.status_code, (response.json() if response.content else None)


def runbooks(conn: Any) -> dict[str, dict[str, Any]]:
    status, body = call(conn, "GET", "/runbooks?detail=True")
    assert status == 200
    return {r["name"]: r for r in body["runbooks"]}


def steps_in_order(runbook: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(runbook["steps"], key=lambda s: s["order"])


def test_sync_runbooks_into_real_ironic(ironic: str, tmp_path: Path, cli: Invoke) -> None:
    repo = runbook_catalog(tmp_path / "deploy")
    conn = sdk_connection(ironic)
    theirs = [{"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}]
    status, _ = call(conn, "POST", "/runbooks", {"name": OPERATORS, "steps": theirs})
    assert status == 201
    args = ["--only", "runbooks", "--endpoint", ironic, "--repo", str(repo)]

    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    assert [(a["action"], a["runbook"]) for a in planned["actions"]] == [
        *[("create", name) for name in NAMES],
        ("unmanaged", OPERATORS),
    ]
    applied = cli("sync", "apply", *args, "--yes", "-f", "json")
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    result = json.loads(applied.stdout)
    assert (result["writes"], result["failed"], result["api_calls"]) == (3, 0, 7)
    found = runbooks(conn)
    assert sorted(found) == sorted([*NAMES, OPERATORS])
    raid = found["raid-rebuild"]
    assert raid["extra"] == {MARKER: "true"} and raid["traits"] == ["CUSTOM_NVME"]
    assert raid["description"] == "The RAID set up again from scratch"
    assert steps_in_order(raid) == [
        {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 10},
        {
            "interface": "raid",
            "step": "create_configuration",
            "args": {"create_root_volume": True},
            "order": 20,
        },
    ]
    assert sorted(found["firmware-update"]["traits"]) == ["CUSTOM_GPU", "CUSTOM_NVME"]
    assert found["bios-servicing"]["public"] is True
    assert found[OPERATORS]["extra"] == {} and found[OPERATORS]["traits"] == []

    # The second plan is empty, and applying it reads the runbooks once.
    again = cli("sync", "plan", *args)
    assert again.exit_code == 0 and again.stdout.endswith(
        "No changes. 3 up to date, 1 unmanaged.\n"
    )
    applied = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert (applied["writes"], applied["api_calls"]) == (0, 1)

    # A changed step is a diff of that step, one PATCH; changed traits one PUT of them all.
    edit(repo, "raid-rebuild", "create_root_volume: true", "create_root_volume: false")
    edit(repo, "firmware-update", "[CUSTOM_NVME, CUSTOM_GPU]", "[CUSTOM_NVME]")
    diff = cli("sync", "plan", *args)
    assert diff.exit_code == 0, diff.stdout + diff.stderr
    assert diff.stdout == (
        "~ update runbook firmware-update\n"
        '    - traits: "CUSTOM_GPU"\n'
        "~ update runbook raid-rebuild\n"
        '    ~ steps[1].args: {"create_root_volume": true} → {"create_root_volume": false}\n'
        "  unmanaged (left alone): operator-made\n"
        "Plan: 2 changes (2 to update). 1 up to date, 1 unmanaged.\n"
    )
    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    by_name = {a["runbook"]: a for a in planned["actions"]}
    assert by_name["raid-rebuild"]["reason"] == "steps changed"
    assert by_name["firmware-update"]["traits"] == ["CUSTOM_NVME"]
    assert "patch" not in by_name["firmware-update"]

    # A saved plan is refused once Ironic changed behind it; a fresh one applies.
    saved = tmp_path / "plan.json"
    assert cli("sync", "plan", *args, "--out", str(saved)).exit_code == 0
    uuid = found["raid-rebuild"]["uuid"]
    touch = [{"op": "replace", "path": "/description", "value": "edited by hand"}]
    assert call(conn, "PATCH", f"/runbooks/{uuid}", touch)[0] == 200
    refused = cli("sync", "apply", str(saved), *args[2:], "--yes")
    assert refused.exit_code != 0
    assert "raid-rebuild" in refused.stdout + refused.stderr
    assert runbooks(conn)["raid-rebuild"]["steps"] == found["raid-rebuild"]["steps"]
    assert cli("sync", "plan", *args, "--out", str(saved)).exit_code == 0
    applied = cli("sync", "apply", str(saved), *args[2:], "--yes", "-f", "json")
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    assert json.loads(applied.stdout)["writes"] == 2
    found = runbooks(conn)
    assert steps_in_order(found["raid-rebuild"])[1]["args"] == {"create_root_volume": False}
    assert found["raid-rebuild"]["description"] == "The RAID set up again from scratch"
    assert found["firmware-update"]["traits"] == ["CUSTOM_NVME"]
    assert json.loads(cli("sync", "plan", *args, "-f", "json").stdout)["summary"] == {
        "noop": 3,
        "unmanaged": 1,
    }

    # A runbook gone from the catalog is kept, then deleted only with --prune.
    remove(repo, "bios-servicing")
    kept = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert kept["writes"] == 0
    assert [a["action"] for a in kept["actions"] if a["runbook"] == "bios-servicing"] == ["keep"]
    assert "bios-servicing" in runbooks(conn)
    pruned = json.loads(cli("sync", "apply", *args, "--prune", "--yes", "-f", "json").stdout)
    assert (pruned["writes"], pruned["failed"]) == (1, 0)
    assert sorted(runbooks(conn)) == sorted(["firmware-update", "raid-rebuild", OPERATORS])

    # Pruning every managed runbook is refused unless allowed explicitly.
    for name in ("firmware-update", "raid-rebuild"):
        remove(repo, name)
    guarded = cli("sync", "apply", *args, "--prune", "--yes", "-f", "json")
    assert guarded.exit_code != 0
    body = json.loads(guarded.stdout)
    assert body["refused_deletes"] == 2
    assert "pruning would delete all 2 managed runbooks" in body["error"]
    assert sorted(runbooks(conn)) == sorted(["firmware-update", "raid-rebuild", OPERATORS])
    emptied = cli("sync", "apply", *args, "--prune", "--allow-empty", "--yes", "-f", "json")
    assert json.loads(emptied.stdout)["writes"] == 2
    assert sorted(runbooks(conn)) == [OPERATORS]


def test_ironic_refuses_what_the_rule_says_and_the_plan_replaces_it(
    ironic: str, tmp_path: Path
) -> None:
    """Each patch of the rule's cases sent to the real Ironic: refused exactly when
    ``patch_refusal`` says so, in its words. Then a catalog owner on a public runbook: the
    plan replaces it, and a system-scoped client (as a system administrator's token is;
    Ironic refuses a project-scoped one an owner other than its own project) carries it
    out."""
    conn = sdk_connection(ironic)
    steps = [{"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}]
    owner = {"op": "replace", "path": "/owner", "value": "p1"}
    no_owner = {"op": "replace", "path": "/owner", "value": None}
    drop_owner = {"op": "remove", "path": "/owner"}
    public = {"op": "replace", "path": "/public", "value": True}
    private = {"op": "replace", "path": "/public", "value": False}
    new_steps = {"op": "replace", "path": "/steps", "value": [dict(steps[0], order=2)]}
    cases = [
        (False, [owner]),
        (True, [owner]),
        (True, [no_owner]),
        (True, [drop_owner]),
        (True, [private, owner]),
        (False, [public, owner]),
        (False, [public, drop_owner]),
        (True, [new_steps]),
        (False, [new_steps]),
    ]
    for number, (was_public, patch) in enumerate(cases):
        name = f"rule-{number}"
        created = {"name": name, "steps": steps, "public": was_public}
        status, made = call(conn, "POST", "/runbooks", created)
        assert status == 201, made
        status, answer = call(conn, "PATCH", f"/runbooks/{made['uuid']}", patch)
        ours = patch_refusal(was_public, patch)
        assert (status == 400) == (ours is not None), (patch, answer)
        if ours is not None:
            assert ours in json.loads(answer["error_message"])["faultstring"]
        assert call(conn, "DELETE", f"/runbooks/{made['uuid']}")[0] == 204

    repo = runbook_catalog(tmp_path / "deploy")
    remove(repo, "firmware-update")
    remove(repo, "raid-rebuild")
    system = sdk_connection(ironic)
    system.session.additional_headers["OpenStack-System-Scope"] = "all"
    target = SdkRunbooks(system)
    first = run(KIND, Repository(repo, RULES), target, prune=False, execute=True)
    assert first.report is not None and first.report.writes == 1
    edit(repo, "bios-servicing", "public: true\n", "public: true\nowner: p2\n")
    planned = run(KIND, Repository(repo, RULES), target, prune=False, execute=False)
    (action,) = [a for a in planned.actions if a.subject == "bios-servicing"]
    assert action.kind == "replace" and PUBLIC_OWNER in action.reason
    before = runbooks(conn)["bios-servicing"]
    done = run(KIND, Repository(repo, RULES), target, prune=False, execute=True)
    assert done.report is not None and not done.report.failed and done.report.writes == 1
    after = runbooks(conn)["bios-servicing"]
    assert after["uuid"] != before["uuid"]
    assert (after["public"], after["owner"], after["traits"]) == (True, "p2", ["CUSTOM_GPU"])
    again = run(KIND, Repository(repo, RULES), target, prune=False, execute=False)
    assert {a.kind for a in again.actions} == {"noop", "unmanaged"}
