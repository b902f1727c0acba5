"""Deploy templates in the catalog (validate, deploy-template add/list/show/delete, schema),
``deploy plan``, and ``sync --only deploy-templates`` into the service, on the CLI and /v1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.conftest import Invoke

TEMPLATES = Path("hardware/deploy-templates")
KUST = Path("hardware/base/kustomization.yaml")
MIRROR = "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"
NEW = """\
name: CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET
description: Factory secure boot keys
steps:
  - interface: management
    step: reset_secure_boot_keys_to_default
    args: {}
    priority: 160
"""


def validate(cli: Invoke) -> list[str]:
    result = cli("validate")
    return [line for line in result.stdout.splitlines() if line.startswith("hardware/")]


def test_the_example_templates_are_clean_and_listed(example_repo: Path, cli: Invoke) -> None:
    assert cli("validate").stdout == "35 files: 0 errors, 0 warnings\n"
    listed = json.loads(cli("deploy-template", "list", "-f", "json").stdout)
    assert [t["name"] for t in listed] == [
        "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
        MIRROR,
        "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE",
    ]
    assert listed[2]["steps"] == ["raid.apply_configuration (priority 140)"]
    shown = json.loads(cli("deploy-template", "show", MIRROR, "-f", "json").stdout)
    assert shown["flavors"] == ["c2.large.vmx-mirror"]
    assert shown["steps"][0]["args"]["raid_config"]["logical_disks"][0]["raid_level"] == "1"
    schema = json.loads(cli("schema", "deploy-template").stdout)
    assert schema["required"] == ["name", "steps"]


def test_a_flavor_requiring_a_missing_template_is_a_warning(
    example_repo: Path, cli: Invoke
) -> None:
    (TEMPLATES / f"{MIRROR}.yaml").unlink()
    kust = KUST.read_text()
    KUST.write_text(kust.replace(f"  - {MIRROR}.yaml=../deploy-templates/{MIRROR}.yaml\n", ""))
    result = cli("validate")
    assert result.exit_code == 0
    assert validate(cli) == [
        "hardware/flavors/c2.large.vmx-mirror.yaml:10:12: traits[1].trait: warning: "
        f"{MIRROR} is named like a deploy template but no hardware/deploy-templates/ file "
        "defines it: Ironic will configure nothing for it"
    ]


def test_a_template_no_flavor_requests_is_a_warning(example_repo: Path, cli: Invoke) -> None:
    Path("hardware/flavors/c2.large.vmx-mirror.yaml").unlink()
    KUST.write_text(
        KUST.read_text().replace(
            "  - c2.large.vmx-mirror.yaml=../flavors/c2.large.vmx-mirror.yaml\n", ""
        )
    )
    lines = validate(cli)
    assert [line.split(": ", 1)[0] for line in lines] == [
        "hardware/deploy-templates/CUSTOM_BM_CONFIG_BIOS_VMX_ON.yaml:4:7",
        f"hardware/deploy-templates/{MIRROR}.yaml:7:7",
    ]
    assert lines[1].endswith(
        f"name: warning: no flavor requires the trait {MIRROR}, so Nova never asks for this "
        "template (add it to a flavor's traits as required)"
    )


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (
            "  - {interface: raid, step: create_configuration, args: {}, priority: 10}\n",
            "steps[0].step: warning: raid.create_configuration is not a deploy step of any "
            "known driver",
        ),
        (
            "  - {interface: bios, step: apply_configuration, args: {setting: []}, priority: 9}\n",
            "steps[0].args: bios.apply_configuration does not accept setting: it takes settings",
        ),
        (
            "  - {interface: raid, step: apply_configuration, args: {}, priority: 9}\n",
            "steps[0].args: raid.apply_configuration needs the argument(s) raid_config",
        ),
        (
            "  - {interface: deploy, step: deploy, args: {}, priority: 50}\n",
            "steps[0].priority: deploy.deploy is a core step: a template may only disable it",
        ),
        (
            "  - {interface: raid, step: delete_configuration, args: {}, priority: 9}\n"
            "  - {interface: raid, step: delete_configuration, args: {}, priority: 8}\n",
            "steps[1].step: raid.delete_configuration is already steps[0]",
        ),
        (
            "  - {interface: raid, step: delete_configuration, args: {}, priority: -1}\n",
            "steps[0].priority: -1 is too small",
        ),
        (
            "  - {interface: disk, step: wipe, args: {}, priority: 1}\n",
            "steps[0].interface: 'disk' is not allowed",
        ),
    ],
)
def test_step_problems_name_the_field(
    example_repo: Path, cli: Invoke, steps: str, expected: str
) -> None:
    (TEMPLATES / f"{MIRROR}.yaml").write_text(f"name: {MIRROR}\nsteps:\n{steps}")
    lines = validate(cli)
    assert any(
        line.startswith(f"hardware/deploy-templates/{MIRROR}.yaml:") and expected in line
        for line in lines
    ), lines


def test_a_name_without_custom_gets_a_hint(example_repo: Path, cli: Invoke) -> None:
    text = (TEMPLATES / f"{MIRROR}.yaml").read_text().replace(f"name: {MIRROR}", "name: BM_X")
    (TEMPLATES / f"{MIRROR}.yaml").write_text(text)
    assert any(
        "name: 'BM_X' is not a trait Ironic accepts as a deploy template name" in line
        and "(did you mean 'CUSTOM_BM_X'?)" in line
        for line in validate(cli)
    )
    assert cli("validate").exit_code == 1


def test_two_templates_of_one_flavor_requesting_one_step_is_an_error(
    example_repo: Path, cli: Invoke
) -> None:
    path = TEMPLATES / "CUSTOM_BM_CONFIG_BIOS_VMX_ON.yaml"
    path.write_text(path.read_text().replace("interface: bios", "interface: raid"))
    path.write_text(
        path.read_text().replace(
            "settings:\n        - name: ProcVirtualization\n          value: Enabled",
            "raid_config: {}",
        )
    )
    lines = validate(cli)
    assert lines == [
        "hardware/flavors/c2.large.vmx-mirror.yaml:10:12: traits[1].trait: deploy templates "
        f"CUSTOM_BM_CONFIG_BIOS_VMX_ON and {MIRROR} both request raid.apply_configuration: "
        "Ironic refuses to deploy this flavor"
    ]


def test_add_and_delete(example_repo: Path, tmp_path: Path, cli: Invoke) -> None:
    source = tmp_path / "new.yaml"
    source.write_text(NEW)
    added = cli("deploy-template", "add", str(source))
    assert added.exit_code == 0, added.stderr
    written = TEMPLATES / "CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET.yaml"
    assert written.is_file()
    assert (
        "CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET.yaml=../deploy-templates/"
        "CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET.yaml" in KUST.read_text()
    )
    assert (
        "no flavor requires the trait CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET"
        in added.stderr + added.stdout
    )
    again = cli("deploy-template", "add", str(source))
    assert again.exit_code == 1
    deleted = cli("deploy-template", "delete", "CUSTOM_BM_CONFIG_SECURE_BOOT_KEYS_RESET")
    assert deleted.exit_code == 0, deleted.stderr
    assert not written.exists() and "SECURE_BOOT" not in KUST.read_text()
    assert cli("validate").stdout == "35 files: 0 errors, 0 warnings\n"


def test_deploy_plan_from_the_catalog_and_from_the_service(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    database = f"sqlite:///{tmp_path / 'plan.db'}"
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(
        "nodes:\n"
        "  - name: n1\n    driver: redfish\n    resource_class: c2.large\n"
        "    traits: [CUSTOM_BM_CONFIG_BIOS_VMX_ON, CUSTOM_BM_CONFIG_RAID_DISK_MIRROR]\n"
        "  - name: n2\n    driver: ipmi\n    resource_class: c2.large\n"
        "    traits: [CUSTOM_BM_CONFIG_BIOS_VMX_ON, CUSTOM_BM_CONFIG_RAID_DISK_MIRROR]\n"
    )
    assert cli("node", "import", str(nodes), "--database", database).exit_code == 0
    args = ["--database", database, "-f", "json"]
    result = cli("deploy", "plan", "n1", "--flavor", "c2.large.vmx-mirror", "--catalog", *args)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [(s["interface"], s["step"], s["priority"], s["source"]) for s in report["steps"]][
        :3
    ] == [
        ("bios", "apply_configuration", 150, "CUSTOM_BM_CONFIG_BIOS_VMX_ON"),
        ("raid", "apply_configuration", 140, MIRROR),
        ("deploy", "deploy", 100, "default"),
    ]
    assert report["errors"] == []
    # The service has no templates yet: the traits only steer scheduling.
    result = cli("deploy", "plan", "n1", "--flavor", "c2.large.vmx-mirror", *args)
    report = json.loads(result.stdout)
    assert report["steps"][0]["step"] == "deploy"
    assert {t["reason"] for t in report["templates"]} == {
        "no deploy template has this name: the trait only steers scheduling"
    }
    assert (
        cli(
            "sync", "apply", "--only", "deploy-templates", "--yes", "--database", database
        ).exit_code
        == 0
    )
    result = cli("deploy", "plan", "n1", "--flavor", "c2.large.vmx-mirror", *args)
    assert json.loads(result.stdout)["steps"][0]["source"] == "CUSTOM_BM_CONFIG_BIOS_VMX_ON"
    # IPMI has no BIOS interface: Ironic would refuse, and so does the plan.
    refused = cli("deploy", "plan", "n2", "--flavor", "c2.large.vmx-mirror", *args)
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["errors"] == [
        "deploy step bios.apply_configuration requested by deploy template "
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON is not a deploy step of driver ipmi"
    ]
    # A flavor whose traits the node lacks.
    missing = cli(
        "deploy", "plan", "n1", "--flavor", "c2.large.novmx-stripe", "--database", database
    )
    assert missing.exit_code == 1
    assert (
        "is missing traits CUSTOM_BM_CONFIG_BIOS_VMX_OFF, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"
        in missing.stderr
    )
    # A flavor of another resource class: Nova would never schedule it onto the node.
    elsewhere = cli("deploy", "plan", "n1", "--flavor", "m1.small", "--database", database)
    assert elsewhere.exit_code == 1
    assert elsewhere.stderr == (
        "error: node n1 has resource class c2.large; flavor m1.small needs m1.small: "
        "Nova would never place it there\n"
    )
    unknown = cli("deploy", "plan", "n1", "--flavor", "nope", "--database", database)
    assert unknown.exit_code == 1 and "error: no flavor 'nope' in the catalog" in unknown.stderr
    no_node = cli("deploy", "plan", "ghost", "--database", database)
    assert (no_node.exit_code, no_node.stderr) == (1, "error: Node ghost could not be found.\n")


def test_sync_plan_apply_idempotence_and_prune(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    args = ["--only", "deploy-templates", "--database", f"sqlite:///{tmp_path / 's.db'}"]
    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    assert [(a["action"], a["template"]) for a in planned["actions"]] == [
        ("create", "CUSTOM_BM_CONFIG_BIOS_VMX_OFF"),
        ("create", "CUSTOM_BM_CONFIG_BIOS_VMX_ON"),
        ("create", MIRROR),
        ("create", "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"),
    ]
    refused = cli("sync", "apply", *args)
    assert (refused.exit_code, refused.stderr) == (
        2,
        "error: 4 changes to apply; pass --yes to apply without a terminal\n",
    )
    applied = cli("sync", "apply", *args, "--yes")
    assert applied.exit_code == 0 and applied.stdout.splitlines()[-1] == (
        "4 changes, 0 failed, 5 API calls"
    )
    again = json.loads(cli("sync", "apply", *args, "--yes", "-f", "json").stdout)
    assert again["writes"] == 0 and {a["action"] for a in again["actions"]} == {"noop"}
    # Change one step's priority and drop one template from the catalog.
    path = TEMPLATES / f"{MIRROR}.yaml"
    path.write_text(path.read_text().replace("priority: 140", "priority: 145"))
    (TEMPLATES / "CUSTOM_BM_CONFIG_BIOS_VMX_OFF.yaml").unlink()
    gone = "  - CUSTOM_BM_CONFIG_BIOS_VMX_OFF.yaml=../deploy-templates/CUSTOM_BM_CONFIG_BIOS_VMX_OFF.yaml\n"
    KUST.write_text(KUST.read_text().replace(gone, ""))
    planned = json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    by_name = {a["template"]: a for a in planned["actions"]}
    assert by_name[MIRROR]["action"] == "update"
    assert by_name[MIRROR]["patch"][0]["value"][0]["priority"] == 145
    assert by_name["CUSTOM_BM_CONFIG_BIOS_VMX_OFF"]["action"] == "keep"
    pruned = json.loads(cli("sync", "apply", *args, "--prune", "--yes", "-f", "json").stdout)
    assert pruned["writes"] == 2 and pruned["failed"] == 0
    final = json.loads(cli("sync", "plan", *args, "--prune", "-f", "json").stdout)
    assert {a["action"] for a in final["actions"]} == {"noop"} and len(final["actions"]) == 3


def test_sync_over_the_api(example_repo: Path, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'api.db'}")
    migrate.upgrade(engine)
    latest = {"X-OpenStack-Ironic-API-Version": "latest"}
    with TestClient(build_app(engine, repo=example_repo)) as client:
        plan = client.get("/v1/sync/plan?only=deploy-templates").json()
        assert [a["action"] for a in plan["actions"]] == ["create"] * 4
        applied = client.post("/v1/sync/apply?only=deploy-templates")
        assert applied.status_code == 200 and applied.json()["writes"] == 4
        shown = client.get(f"/baremetal/v1/deploy_templates/{MIRROR}", headers=latest).json()
        assert shown["extra"] == {"flavorsmith:managed": "true"}
        assert shown["description"] == "One RAID-1 root volume over both drives"
        assert client.post("/v1/sync/apply?only=deploy-templates").json()["writes"] == 0
        # An operator's own template is never touched; one of ours edited by hand is restored.
        body = {
            "name": "CUSTOM_MINE",
            "steps": [
                {"interface": "raid", "step": "delete_configuration", "args": {}, "priority": 1}
            ],
        }
        assert (
            client.post("/baremetal/v1/deploy_templates", json=body, headers=latest).status_code
            == 201
        )
        patch = [{"op": "replace", "path": "/steps/0/priority", "value": 1}]
        assert (
            client.patch(
                f"/baremetal/v1/deploy_templates/{MIRROR}", json=patch, headers=latest
            ).status_code
            == 200
        )
        result = client.post("/v1/sync/apply?only=deploy-templates&prune=true").json()
        actions = {a["template"]: a["action"] for a in result["actions"]}
        assert actions["CUSTOM_MINE"] == "unmanaged" and actions[MIRROR] == "update"
        shown = client.get(f"/baremetal/v1/deploy_templates/{MIRROR}", headers=latest).json()
        assert shown["steps"][0]["priority"] == 140
    engine.dispose()


@pytest.mark.parametrize(
    ("only", "endpoint", "expected"),
    [
        (
            "deploy-templates",
            "http://127.0.0.1:1",
            "cannot read the target's deploy templates: cannot reach Ironic: ",
        ),
        (
            "flavors",
            "http://127.0.0.1:1/v2.1",
            "cannot read the target's flavors: cannot reach Nova: ",
        ),
    ],
)
def test_an_unreachable_target_is_a_clear_error(
    example_repo: Path, cli: Invoke, only: str, endpoint: str, expected: str
) -> None:
    result = cli("sync", "plan", "--only", only, "--endpoint", endpoint)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {expected}"), result.stderr
    assert "internal error" not in result.stderr
