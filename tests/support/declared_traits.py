"""The example catalog with its custom traits declared (hardware/traits/site.yaml), as a
catalog that declares its traits is written: a private copy to edit in a test."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLES

DECLARATIONS = """\
# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/trait.schema.json
name: site
description: Every custom trait of the example catalog.
traits:
  - name: CUSTOM_CPU_AVX512
    description: AVX-512 foundation instructions
    set_by: trait-rule
  - name: CUSTOM_CPU_SGX
    description: Intel SGX enclaves
    set_by: trait-rule
  - name: CUSTOM_GPU
    description: Any NVIDIA or AMD Instinct GPU
    set_by: trait-rule
  - name: CUSTOM_GPU_NVIDIA_H100
    description: NVIDIA H100 SXM5 80GB
    set_by: trait-rule
  - name: CUSTOM_GPU_NVIDIA_A100
    description: NVIDIA A100 SXM4 80GB
    set_by: trait-rule
  - name: CUSTOM_NIC_MELLANOX_CX5
    description: Mellanox ConnectX-5 network cards
    set_by: trait-rule
  - name: CUSTOM_NIC_INTEL_E810
    description: Intel E810 network cards
    set_by: trait-rule
  - name: CUSTOM_NICX
    description: Broadcom BCM57508 NetXtreme-E 100G cards
    set_by: trait-rule
  - name: CUSTOM_NVME
    description: Local NVMe storage
    set_by: trait-rule
  - name: CUSTOM_BM_CONFIG_BIOS_VMX_ON
    description: Hardware virtualisation on
    set_by: deploy-template
  - name: CUSTOM_BM_CONFIG_BIOS_VMX_OFF
    description: Hardware virtualisation off
    set_by: deploy-template
  - name: CUSTOM_BM_CONFIG_RAID_DISK_MIRROR
    description: Two disks mirrored
    set_by: deploy-template
  - name: CUSTOM_BM_CONFIG_RAID_DISK_STRIPE
    description: Two disks striped
    set_by: deploy-template
"""

GENERATOR = """\
- name: traits
  options:
    disableNameSuffixHash: true
  files:
  - site.yaml=../traits/site.yaml
"""


def declared_catalog(root: Path, declarations: str = DECLARATIONS) -> Path:
    """The example catalog copied to ``root``/hardware, ``declarations`` in
    hardware/traits/site.yaml, listed in its kustomization; ``root``."""
    hardware = root / "hardware"
    shutil.copytree(EXAMPLES / "hardware", hardware)
    (hardware / "traits").mkdir()
    (hardware / "traits" / "site.yaml").write_text(declarations)
    kustomization = hardware / "base" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + GENERATOR)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, path
    path.write_text(text.replace(old, new))
