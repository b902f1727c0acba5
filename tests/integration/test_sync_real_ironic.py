"""The deploy-template sync against a real Ironic 39 (installed and started by the test
support in tests/support/ironic_api.py): the example templates created through the `sync`
command, zero writes on a second apply, an edit patched in place, the operator's own template
left alone, prune, and a node deployed with the spec's instance traits validating."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.ironic.deploy_steps import deploy_problem
from flavorsmith.ironic.deploy_templates import Step, Template
from flavorsmith.sync.kinds.deploy_templates import MARKER
from tests.conftest import EXAMPLES, Invoke
from tests.support.ironic_api import running_ironic, sdk_connection

MIRROR = "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"
EXAMPLE_TEMPLATES = [
    "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
    "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
    MIRROR,
    "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE",
]


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


def templates(conn: Any) -> dict[str, Any]:
    return {t.name: t for t in conn.baremetal.deploy_templates(details=True)}


def test_sync_deploy_templates_into_real_ironic(ironic: str, tmp_path: Path, cli: Invoke) -> None:
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    conn = sdk_connection(ironic)
    steps = [{"interface": "bios", "step": "factory_reset", "args": {}, "priority": 5}]
    conn.baremetal.create_deploy_template(name="CUSTOM_OPERATOR_MADE", steps=steps)
    args = ["--only", "deploy-templates", "--endpoint", ironic, "--repo", str(repo)]

    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    assert [(a["action"], a["template"]) for a in planned["actions"]] == [
        *[("create", name) for name in EXAMPLE_TEMPLATES],
        ("unmanaged", "CUSTOM_OPERATOR_MADE"),
    ]
    applied = cli("sync", "apply", *args, "--yes", "-f", "json")
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    assert json.loads(applied.stdout)["writes"] == 4
    found = templates(conn)
    assert sorted(found) == sorted([*EXAMPLE_TEMPLATES, "CUSTOM_OPERATOR_MADE"])
    assert found[MIRROR].extra == {MARKER: "true"}
    assert found[MIRROR].steps == [
        {
            "interface": "raid",
            "step": "apply_configuration",
            "args": {
                "raid_config": {
                    "logical_disks": [{"size_gb": "MAX", "raid_level": "1", "is_root_volume": True}]
                },
                "delete_existing": True,
            },
            "priority": 140,
        }
    ]

    # Idempotent, although the real Ironic drops the descriptions we sent.
    again = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert again["writes"] == 0 and again["api_calls"] == 1

    # An edit is one PATCH; a template gone from the catalog is kept, then pruned.
    path = repo / "hardware" / "deploy-templates" / f"{MIRROR}.yaml"
    path.write_text(path.read_text().replace("priority: 140", "priority: 145"))
    kust = repo / "hardware" / "base" / "kustomization.yaml"
    gone = "CUSTOM_BM_CONFIG_BIOS_VMX_OFF"
    (repo / "hardware" / "deploy-templates" / f"{gone}.yaml").unlink()
    kust.write_text(
        kust.read_text().replace(f"  - {gone}.yaml=../deploy-templates/{gone}.yaml\n", "")
    )
    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    actions = {a["template"]: a["action"] for a in planned["actions"]}
    assert actions[MIRROR] == "update" and actions[gone] == "keep"
    pruned = json.loads(cli("sync", "apply", *args, "--prune", "--yes", "-f", "json").stdout)
    assert pruned["writes"] == 2 and pruned["failed"] == 0, pruned
    found = templates(conn)
    assert gone not in found and "CUSTOM_OPERATOR_MADE" in found
    assert found[MIRROR].steps[0]["priority"] == 145
    final = json.loads(cli("sync", "plan", *args, "--prune", "-f", "json").stdout)
    assert {a["action"] for a in final["actions"]} == {"noop", "unmanaged"}

    # The spec's flow on the real Ironic: node traits, instance traits, validation passes.
    node = conn.baremetal.create_node(driver="fake-hardware", name="vmx-mirror-node")
    conn.baremetal.set_node_traits(node, ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", MIRROR])
    wanted = ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", MIRROR]
    patch = [{"op": "add", "path": "/instance_info/traits", "value": wanted}]
    conn.baremetal.patch_node(node.id, patch)
    validation = conn.baremetal.validate_node(node.id, required=())
    assert validation["deploy"].result, validation["deploy"].reason

    # Two matching templates asking for one step the driver has: Ironic refuses, and so does
    # our own validation of the same node.
    off = [{"interface": "deploy", "step": "deploy", "args": {}, "priority": 0}]
    for name in ("CUSTOM_NO_DEPLOY_A", "CUSTOM_NO_DEPLOY_B"):
        conn.baremetal.create_deploy_template(name=name, steps=off)
    both = ["CUSTOM_NO_DEPLOY_A", "CUSTOM_NO_DEPLOY_B"]
    conn.baremetal.set_node_traits(node, both)
    patch = [{"op": "replace", "path": "/instance_info/traits", "value": both}]
    conn.baremetal.patch_node(node.id, patch)
    validation = conn.baremetal.validate_node(node.id, required=())
    assert not validation["deploy"].result
    theirs = str(validation["deploy"].reason)
    assert theirs.startswith(
        "Validation of deploy steps from deploy templates matching this node's instance traits "
        "failed. Matching deploy templates: CUSTOM_NO_DEPLOY_A,CUSTOM_NO_DEPLOY_B. Errors: deploy "
        "steps from all deploy templates matching this node's instance traits cannot have the "
        "same interface and step. Duplicate deploy steps for deploy.deploy"
    )
    templates_ = [Template(name, (Step("deploy", "deploy", {}, 0),)) for name in both]
    ours = deploy_problem("fake-hardware", templates_, both)
    assert ours.startswith(theirs)
