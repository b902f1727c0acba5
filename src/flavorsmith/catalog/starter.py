"""The files of a new catalog repository (``flavorsmith init``): one device type and one
flavor, commented so that a newcomer can change them into their own, the kustomization that
lists them, a pre-commit configuration that validates every change, and a short README. They
validate with no error and no warning (a test checks it)."""

from __future__ import annotations

from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR, SCHEMA_BASE

DEVICE_TYPE_FILE = f"""\
# yaml-language-server: $schema={SCHEMA_BASE}{DEVICE_TYPE.schema_file}
# A hardware model, and the configurations its nodes are sold as (resource classes).
# The file name is <manufacturer>-<model>, in lower case with '-' for spaces.
# `flavorsmith schema device-type` prints every field.
class: server
manufacturer: Dell
model: PowerEdge R7615
u_height: 1
is_full_depth: true
resource_class:
  # One configuration: its name is what Nova schedules by (the node's resource class).
  # Inspection data matches it when the CPU, memory and drives below match.
  - name: m1.small
    cpu:
      cores: 16
      model: AMD EPYC 9124
    memory:
      size: 131072 # MB (128 GB)
    drives:
      - size: 480 # GB
      - size: 480
    nic_count: 2
"""

FLAVOR_FILE = f"""\
# yaml-language-server: $schema={SCHEMA_BASE}{FLAVOR.schema_file}
# A flavor sells the nodes of one resource class; `traits` may require or forbid some
# (`trait: NVME` with `state: required` sells only the nodes with CUSTOM_NVME).
# `flavorsmith nova-flavors` shows the Nova flavor it becomes.
name: m1.small
resource_class: m1.small
description: 16 cores, 128 GB of memory, two 480 GB drives
"""

KUSTOMIZATION_FILE = """\
# The catalog as ConfigMaps (one per kind of file), for Kubernetes; `flavorsmith validate`
# checks that every file under hardware/ is listed here.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
configMapGenerator:
- name: device-types
  options:
    disableNameSuffixHash: true
  files:
  - dell-poweredge-r7615.yaml=../device-types/dell-poweredge-r7615.yaml
- name: flavors
  options:
    disableNameSuffixHash: true
  files:
  - m1.small.yaml=../flavors/m1.small.yaml
"""

PRE_COMMIT_FILE = """\
# `pre-commit install` validates the catalog before each commit (https://pre-commit.com/).
repos:
- repo: local
  hooks:
  - id: flavorsmith-validate
    name: flavorsmith validate
    entry: flavorsmith validate
    language: system
    files: ^hardware/
    pass_filenames: false
"""

README_FILE = """\
# Hardware catalog

The device types and flavors of this cloud, for Flavorsmith.

- `hardware/device-types/`: the hardware models and the resource classes their nodes are
  sold as;
- `hardware/flavors/`: the flavors, each over one resource class;
- `hardware/base/kustomization.yaml`: every file, as ConfigMaps.

Check a change with `flavorsmith validate`; see the Nova flavors with
`flavorsmith nova-flavors`. `flavorsmith device-type add FILE` and `flavorsmith flavor add
FILE` validate a new definition and list it in the kustomization.
"""

# Path (from the repository's root) -> content.
FILES: dict[str, str] = {
    f"hardware/{DEVICE_TYPE.folder}/dell-poweredge-r7615.yaml": DEVICE_TYPE_FILE,
    f"hardware/{FLAVOR.folder}/m1.small.yaml": FLAVOR_FILE,
    "hardware/base/kustomization.yaml": KUSTOMIZATION_FILE,
    ".pre-commit-config.yaml": PRE_COMMIT_FILE,
    "README.md": README_FILE,
}
