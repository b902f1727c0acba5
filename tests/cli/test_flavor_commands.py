"""flavor validate/add/list/show/delete through the CLI runner: exit codes and whole output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Invoke

KUST = Path("hardware/base/kustomization.yaml")
NEW_FLAVOR = """\
---
# yaml-language-server: $schema=https://rackerlabs.github.io/understack/schema/flavor.schema.json
name: m1.medium.nvme
resource_class: m1.medium
description: Medium flavor with NVMe
traits:
- trait: NVME
  state: required
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_add_writes_canonical_file_and_one_kustomization_line(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    before = KUST.read_text()
    source = write(tmp_path / "new.yaml", NEW_FLAVOR)
    result = cli("flavor", "add", str(source))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "added hardware/flavors/m1.medium.nvme.yaml\nlisted in hardware/base/kustomization.yaml\n"
    )
    written = Path("hardware/flavors/m1.medium.nvme.yaml").read_text()
    assert written == (
        "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/flavor.schema.json\n"
        + NEW_FLAVOR.replace(
            "# yaml-language-server: $schema=https://rackerlabs.github.io/understack/schema/flavor.schema.json\n",
            "",
        )
    )
    after = KUST.read_text()
    assert after.replace("  - m1.medium.nvme.yaml=../flavors/m1.medium.nvme.yaml\n", "") == before
    assert cli("validate").exit_code == 0

    # delete restores the kustomization byte for byte
    result = cli("flavor", "delete", "m1.medium.nvme")
    assert (result.exit_code, result.stdout) == (
        0,
        "deleted hardware/flavors/m1.medium.nvme.yaml\n",
    )
    assert KUST.read_text() == before
    assert not Path("hardware/flavors/m1.medium.nvme.yaml").exists()


def test_add_refuses_to_overwrite_without_force(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    source = write(
        tmp_path / "x.yaml", "name: m1.small\nresource_class: m1.small\ndescription: changed\n"
    )
    before = Path("hardware/flavors/m1.small.yaml").read_text()
    result = cli("flavor", "add", str(source))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: flavor 'm1.small' already exists at hardware/flavors/m1.small.yaml; "
        "use --force to replace it\n"
    )
    assert Path("hardware/flavors/m1.small.yaml").read_text() == before
    kust = KUST.read_text()
    result = cli("flavor", "add", "--force", str(source))
    assert result.exit_code == 0, result.output
    assert "description: changed" in Path("hardware/flavors/m1.small.yaml").read_text()
    assert KUST.read_text() == kust


def test_add_writes_nothing_when_invalid(example_repo: Path, tmp_path: Path, cli: Invoke) -> None:
    source = write(
        tmp_path / "bad.yaml",
        "name: m1.bad\nresource_class: m1.smal\ntraits:\n- trait: CUSTOM_X\n  state: required\n",
    )
    kust = KUST.read_text()
    result = cli("flavor", "add", str(source))
    assert result.exit_code == 1
    shown = str(source)
    assert result.stderr.splitlines() == [
        f"{shown}:2:17: resource_class: resource class 'm1.smal' is not defined by any device type"
        " (did you mean 'm1.small'?); defined: c2.diskless, c2.large, g1.8xh100, m1.medium, m1.small",
        f"{shown}:4:10: traits[0].trait: 'CUSTOM_X' would be sent as CUSTOM_CUSTOM_X: write X; "
        "CUSTOM_ is added for you",
        "2 errors, 0 warnings",
        f"error: {shown} was not added",
    ]
    assert not Path("hardware/flavors/m1.bad.yaml").exists()
    assert KUST.read_text() == kust


def test_add_creates_the_layout(tmp_path: Path, cli: Invoke, monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    repo = tmp_path / "empty"
    repo.mkdir()
    mp.chdir(repo)
    try:
        device = write(
            tmp_path / "dt.yaml",
            "class: server\nmanufacturer: Acme\nmodel: Box 1\nu_height: 1\nis_full_depth: true\n"
            "resource_class:\n- name: box1\n  cpu: {cores: 8, model: X}\n  memory: {size: 1024}\n"
            "  drives: []\n  nic_count: 1\n",
        )
        assert cli("device-type", "add", str(device)).exit_code == 0
        flavor = write(tmp_path / "f.yaml", "name: box1\nresource_class: box1\n")
        assert cli("flavor", "add", str(flavor)).exit_code == 0
        assert Path("hardware/device-types/acme-box-1.yaml").is_file()
        assert KUST.read_text() == (
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n\n"
            "configMapGenerator:\n"
            "- name: device-types\n  options:\n    disableNameSuffixHash: true\n  files:\n"
            "  - acme-box-1.yaml=../device-types/acme-box-1.yaml\n"
            "- name: flavors\n  options:\n    disableNameSuffixHash: true\n  files:\n"
            "  - box1.yaml=../flavors/box1.yaml\n"
        )
        result = cli("validate")
        assert (result.exit_code, result.stdout) == (0, "2 files: 0 errors, 0 warnings\n")
    finally:
        mp.undo()


def test_validate_file_against_repository(example_repo: Path, tmp_path: Path, cli: Invoke) -> None:
    dup = write(tmp_path / "dup.yaml", "name: m1.small.x\nresource_class: m1.small\n")
    result = cli("flavor", "validate", str(dup))
    assert result.exit_code == 0
    assert result.stdout == (
        f"{dup}:1:7: name: warning: flavor 'm1.small.x' selects exactly the nodes of 'm1.small' "
        "(hardware/flavors/m1.small.yaml:2): same resource class and traits\n"
        "1 file: 0 errors, 1 warning\n"
    )
    # Without a repository only the file itself is checked, and the output says so.
    result = cli("flavor", "validate", "--repo", str(tmp_path), str(dup))
    assert (result.exit_code, result.stdout) == (
        0,
        f"checks across files skipped: {tmp_path} is not a catalog repository "
        "(no hardware/ found; set --repo)\n"
        "1 file: 0 errors, 0 warnings\n",
    )
    # With JSON the note goes to stderr: stdout stays one JSON document.
    result = cli("flavor", "validate", "--repo", str(tmp_path), "-f", "json", str(dup))
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])
    assert result.stderr == (
        f"checks across files skipped: {tmp_path} is not a catalog repository "
        "(no hardware/ found; set --repo)\n"
    )


def test_validate_missing_file_is_a_usage_error(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "validate", "nope.yaml")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_list_formats(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "list", "-f", "value", "-c", "name", "-c", "resource_class")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:3] == [
        "c2.diskless c2.diskless",
        "c2.large c2.large",
        "c2.large.novmx-stripe c2.large",
    ]
    rows = json.loads(cli("flavor", "list", "-f", "json").stdout)
    nicx = next(r for r in rows if r["name"] == "m1.small.nicX")
    assert nicx == {
        "name": "m1.small.nicX",
        "resource_class": "m1.small",
        "traits": ["NICX=required"],
        "is_public": True,
        "description": "Small compute flavor with NICX network hardware - 16 cores, 128GB RAM, "
        "dual 480GB drives",
    }
    table = cli("flavor", "list", "-c", "name").stdout.splitlines()
    assert table[:4] == [
        "+--------------------------+",
        "| name                     |",
        "+--------------------------+",
        "| c2.diskless              |",
    ]
    assert cli("flavor", "list", "-f", "yaml", "-c", "name").stdout.startswith(
        "- name: c2.diskless\n"
    )
    bad = cli("flavor", "list", "-c", "nope")
    assert bad.exit_code == 2 and "unknown column 'nope'" in bad.stderr


def test_show_includes_derived_nova_flavor(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "show", "m1.small.no-gpu", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "name": "m1.small.no-gpu",
        "resource_class": "m1.small",
        "description": "Small compute flavor on nodes without a GPU",
        "is_public": True,
        "projects": [],
        "traits": [{"trait": "GPU", "full_name": "CUSTOM_GPU", "state": "absent"}],
        "device_type": "dell-poweredge-r7615",
        "deploy_templates": [],
        "nova_flavor": {
            "id": "m1.small.no-gpu",
            "description": "Small compute flavor on nodes without a GPU",
            "vcpus": 16,
            "ram": 131072,
            "disk": 480,
            "extra_specs": {
                "resources:CUSTOM_M1_SMALL": "1",
                "resources:VCPU": "0",
                "resources:MEMORY_MB": "0",
                "resources:DISK_GB": "0",
                "trait:CUSTOM_GPU": "forbidden",
            },
        },
        "file": "hardware/flavors/m1.small.no-gpu.yaml",
    }
    table = cli("flavor", "show", "m1.small.no-gpu").stdout
    assert "| traits                  | GPU (CUSTOM_GPU): absent" in table
    missing = cli("flavor", "show", "nope")
    assert (missing.exit_code, missing.stderr) == (1, "error: no flavor named 'nope'\n")


def test_show_names_the_deploy_templates_a_flavor_selects(example_repo: Path, cli: Invoke) -> None:
    """Its required traits that name a deploy template: listed, and appended to the Nova
    flavor's description after the catalog's own text."""
    result = cli("flavor", "show", "c2.large.vmx-mirror", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "name": "c2.large.vmx-mirror",
        "resource_class": "c2.large",
        "description": "c2.large with VT-x on and the drives mirrored (RAID-1)",
        "is_public": True,
        "projects": [],
        "traits": [
            {
                "trait": "BM_CONFIG_BIOS_VMX_ON",
                "full_name": "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
                "state": "required",
            },
            {
                "trait": "BM_CONFIG_RAID_DISK_MIRROR",
                "full_name": "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR",
                "state": "required",
            },
        ],
        "device_type": "hpe-proliant-dl360-gen11",
        "deploy_templates": ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"],
        "nova_flavor": {
            "id": "c2.large.vmx-mirror",
            "description": "c2.large with VT-x on and the drives mirrored (RAID-1). Deploy "
            "templates: CUSTOM_BM_CONFIG_BIOS_VMX_ON, CUSTOM_BM_CONFIG_RAID_DISK_MIRROR.",
            "vcpus": 64,
            "ram": 524288,
            "disk": 1920,
            "extra_specs": {
                "resources:CUSTOM_C2_LARGE": "1",
                "resources:VCPU": "0",
                "resources:MEMORY_MB": "0",
                "resources:DISK_GB": "0",
                "trait:CUSTOM_BM_CONFIG_BIOS_VMX_ON": "required",
                "trait:CUSTOM_BM_CONFIG_RAID_DISK_MIRROR": "required",
            },
        },
        "file": "hardware/flavors/c2.large.vmx-mirror.yaml",
    }
    table = cli("flavor", "show", "c2.large.vmx-mirror").stdout.splitlines()
    cells = [[cell.strip() for cell in line.split("|")[1:3]] for line in table]
    at = cells.index(["deploy_templates", "CUSTOM_BM_CONFIG_BIOS_VMX_ON"])
    assert cells[at + 1] == ["", "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"]


def test_show_without_a_description_has_only_the_templates(example_repo: Path, cli: Invoke) -> None:
    """A forbidden trait never selects a template; no catalog text, only the list."""
    write(
        Path("hardware/flavors/c2.large.stripe.yaml"),
        "name: c2.large.stripe\nresource_class: c2.large\ntraits:\n"
        "- {trait: BM_CONFIG_RAID_DISK_STRIPE, state: required}\n"
        "- {trait: BM_CONFIG_BIOS_VMX_ON, state: absent}\n",
    )
    result = cli("flavor", "show", "c2.large.stripe", "-f", "json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (
        shown["description"],
        shown["deploy_templates"],
        shown["nova_flavor"]["description"],
    ) == (
        None,
        ["CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"],
        "Deploy templates: CUSTOM_BM_CONFIG_RAID_DISK_STRIPE.",
    )


def test_delete_unknown(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "delete", "nope")
    assert (result.exit_code, result.stderr) == (
        1,
        "error: no flavor named 'nope' in hardware/flavors\n",
    )


def test_add_registers_a_file_already_in_place(example_repo: Path, cli: Invoke) -> None:
    """Editing hardware/flavors/x.yaml by hand and then adding it lists it; no --force needed."""
    path = Path("hardware/flavors/m1.large.yaml")
    path.write_text(
        "name: m1.large\nresource_class: m1.medium\ntraits:\n- {trait: NVME, state: required}\n"
        "- {trait: CPU_AVX512, state: absent}\n"
    )
    assert cli("validate").stdout.splitlines()[0].endswith("it is never deployed")
    result = cli("flavor", "add", str(path))
    assert result.exit_code == 0, result.output
    assert cli("validate").stdout == "36 files: 0 errors, 0 warnings\n"
    assert path.read_text().startswith("# yaml-language-server: $schema=")


NAMES_WITH_A_NUL = {
    "flavor": 'name: "m1.bad\\0name"\nresource_class: m1.medium\n',
    "trait-rule": (
        'name: "bad\\0rules"\nprefix: CUSTOM_BAD\nrules:\n'
        "  - name: any\n    when:\n      pci: {vendor: '10de'}\n    add: [CUSTOM_BAD]\n"
    ),
    "deploy-template": (
        'name: "CUSTOM_BAD\\0NAME"\nsteps:\n'
        "  - {interface: bios, step: apply_configuration, args: {}, priority: 150}\n"
    ),
}


def test_add_names_the_field_of_a_name_that_cannot_be_a_file(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    """A NUL byte in a definition's name (which becomes its file name) is a diagnostic on
    that field and nothing is written: never "internal error: ValueError: embedded null byte"."""
    before = KUST.read_text()
    for kind, text in NAMES_WITH_A_NUL.items():
        source = write(tmp_path / f"{kind}.yaml", text)
        result = cli(kind, "add", str(source))
        assert result.exit_code == 1, (kind, result.output)
        assert "internal error" not in result.output, (kind, result.output)
        assert f"{source}:1:7: name: " in result.stderr, (kind, result.stderr)
        assert "\\x00" in result.stderr, (kind, result.stderr)
        assert f"error: {source} was not added" in result.stderr, (kind, result.stderr)
    assert KUST.read_text() == before


def test_add_refuses_a_name_too_long_for_a_file(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    """A 250-character name is a valid Nova flavor name but no file name (255 bytes, less the
    temporary file's additions): a diagnostic, not ``OSError: File name too long``."""
    source = write(tmp_path / "long.yaml", f"name: {'a' * 250}\nresource_class: m1.medium\n")
    result = cli("flavor", "add", str(source))
    assert result.exit_code == 1, result.output
    assert "at most 245 bytes with its .yaml" in result.stderr, result.stderr
    assert f"error: {source} was not added" in result.stderr
