"""A catalog repository with runbooks, for the runbook sync's tests: a copy of the example
catalog with three runbooks under hardware/runbooks/ (each listed in the kustomization), and
the edits a test makes to them (one changed, one removed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml  # type: ignore[import-untyped]

from tests.conftest import EXAMPLES

MODELINE = (
    "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/runbook.schema.json\n"
)
RUNBOOKS: dict[str, str] = {
    "firmware-update": """\
name: firmware-update
description: BMC and BIOS firmware brought to the fleet's release
traits: [CUSTOM_NVME, CUSTOM_GPU]
steps:
  - interface: firmware
    step: update
    args:
      settings:
        - {component: bmc, url: "http://10.0.0.5/bmc-7.10.bin"}
        - {component: bios, url: "http://10.0.0.5/bios-2.3.bin"}
    order: 10
""",
    "raid-rebuild": """\
name: raid-rebuild
description: The RAID set up again from scratch
traits: [CUSTOM_NVME]
steps:
  - interface: raid
    step: delete_configuration
    order: 10
  - interface: raid
    step: create_configuration
    args: {create_root_volume: true}
    order: 20
""",
    "bios-servicing": """\
name: bios-servicing
description: BIOS settings for a servicing window
traits: [CUSTOM_GPU]
public: true
steps:
  - interface: bios
    step: factory_reset
    order: 5
  - interface: bios
    step: apply_configuration
    args:
      settings:
        - {name: LogicalProc, value: Enabled}
    order: 15
""",
}
NAMES = sorted(RUNBOOKS)


def runbook_catalog(root: Path) -> Path:
    """``root`` made a catalog repository: the example catalog with :data:`RUNBOOKS` as its
    only runbooks."""
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    folder = root / "hardware" / "runbooks"
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    if folder.exists():  # the example's own runbooks are left out
        shutil.rmtree(folder)
        document = yaml.safe_load(kustomization.read_text())
        document["configMapGenerator"] = [
            g for g in document["configMapGenerator"] if g["name"] != "runbooks"
        ]
        kustomization.write_text(yaml.safe_dump(document, sort_keys=False))
    folder.mkdir()
    files = []
    for name, text in RUNBOOKS.items():
        (folder / f"{name}.yaml").write_text(MODELINE + text)
        files.append(f"  - {name}.yaml=../runbooks/{name}.yaml\n")
    generator = "- name: runbooks\n  options:\n    disableNameSuffixHash: true\n  files:\n"
    kustomization.write_text(kustomization.read_text() + generator + "".join(files))
    return root


def edit(root: Path, name: str, old: str, new: str) -> None:
    """One runbook file with ``old`` replaced by ``new`` (which must be there)."""
    path = root / "hardware" / "runbooks" / f"{name}.yaml"
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new))


def remove(root: Path, name: str) -> None:
    """One runbook gone from the catalog (its file and its kustomization line)."""
    (root / "hardware" / "runbooks" / f"{name}.yaml").unlink()
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    line = f"  - {name}.yaml=../runbooks/{name}.yaml\n"
    kustomization.write_text(kustomization.read_text().replace(line, ""))
