"""device-type commands: show, list, delete with its reference check."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Invoke


def test_delete_refuses_while_flavors_use_its_resource_classes(
    example_repo: Path, cli: Invoke
) -> None:
    kust = Path("hardware/base/kustomization.yaml").read_text()
    result = cli("device-type", "delete", "hpe-proliant-dl360-gen11")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: device type 'hpe-proliant-dl360-gen11' defines resource classes used by flavors "
        "c2.diskless, c2.large, c2.large.novmx-stripe, c2.large.vmx-mirror; delete those first "
        "or use --force\n"
    )
    assert Path("hardware/device-types/hpe-proliant-dl360-gen11.yaml").exists()
    assert Path("hardware/base/kustomization.yaml").read_text() == kust

    result = cli("device-type", "delete", "--force", "HPE ProLiant DL360 Gen11")
    assert result.exit_code == 0
    assert not Path("hardware/device-types/hpe-proliant-dl360-gen11.yaml").exists()
    assert Path("hardware/base/kustomization.yaml").read_text() == kust.replace(
        "  - hpe-proliant-dl360-gen11.yaml=../device-types/hpe-proliant-dl360-gen11.yaml\n", ""
    )
    # The catalog now reports the orphaned flavors.
    assert cli("validate").exit_code == 1


def test_delete_unused_device_type(example_repo: Path, cli: Invoke) -> None:
    result = cli("device-type", "delete", "cisco-nexus-93180yc-fx3")
    assert (result.exit_code, result.stdout) == (
        0,
        "deleted hardware/device-types/cisco-nexus-93180yc-fx3.yaml\n",
    )
    assert cli("validate").exit_code == 0


def test_list_and_show(example_repo: Path, cli: Invoke) -> None:
    result = cli("device-type", "list", "-f", "value", "-c", "name", "-c", "class")
    assert result.stdout == (
        "cisco-nexus-93180yc-fx3 switch\n"
        "dell-poweredge-r7615 server\n"
        "dell-poweredge-xe9680 server\n"
        "hpe-proliant-dl360-gen11 server\n"
        "palo-alto-networks-pa-5410 firewall\n"
    )
    shown = json.loads(cli("device-type", "show", "hpe-proliant-dl360-gen11", "-f", "json").stdout)
    assert shown["resource_classes"][1] == {
        "name": "c2.diskless",
        "placement_name": "CUSTOM_C2_DISKLESS",
        "cpu": "64 cores Intel Xeon Gold 6430",
        "memory_mb": 524288,
        "drives_gb": [],
        "nic_count": 2,
        "flavors": ["c2.diskless"],
    }
    assert shown["manufacturer"] == "HPE" and shown["power_ports"] == 2


def test_validate_device_type_file(example_repo: Path, tmp_path: Path, cli: Invoke) -> None:
    source = tmp_path / "dt.yaml"
    source.write_text(
        "class: server\nmanufacturer: Acme\nmodel: One\nu_height: 1\nis_full_depth: true\n"
        "resouce_class: []\n"
    )
    result = cli("device-type", "validate", str(source))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{source}:6:1: resouce_class: unknown key 'resouce_class' (did you mean "
        "'resource_class'?); allowed: id, class, manufacturer, model, part_number, comments, "
        "u_height, is_full_depth, interfaces, power-ports, console-ports, module-bays, "
        "resource_class"
    )


def test_validate_outside_a_repository_says_cross_file_checks_were_skipped(
    tmp_path: Path, cli: Invoke
) -> None:
    source = tmp_path / "dt.yaml"
    source.write_text(
        "class: server\nmanufacturer: Acme\nmodel: One\nu_height: 1\nis_full_depth: true\n"
        "resource_class:\n- name: gp2.small\n  cpu: {cores: 8, model: x}\n  memory: {size: 32768}\n"
        "  drives: [{size: 480}]\n  nic_count: 2\n"
    )
    result = cli("device-type", "validate", "--repo", str(tmp_path), str(source))
    assert (result.exit_code, result.stdout) == (
        0,
        f"checks across files skipped: {tmp_path} is not a catalog repository "
        "(no hardware/ found; set --repo)\n"
        "1 file: 0 errors, 0 warnings\n",
    )
