"""A catalog repository in Git with a history of realistic changes, each commit tagged, and
the example inventory as the fleet."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

# Each change, in the order committed: its tag, and what it does to the previous commit.
CHANGES = (
    "base",
    "trait-added",
    "device-type-retired",
    "made-private",
    "trait-typo",
    "removed",
    "runbooks-changed",
    "load-balancers-changed",
    "network-flavors-changed",
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=Catalog Maintainer",
            "-c",
            "user.email=catalog@example.com",
            "-c",
            "commit.gpgsign=false",
            "-C",
            str(repo),
            *args,
        ],
        check=True,
        capture_output=True,
    )


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def commit(repo: Path, tag: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", tag)
    git(repo, "tag", tag)


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog, then: a trait added to m1.small (NVMe required), the XE9680 device
    type retired with its GPU flavor, c2.large made private for one project, a typo in
    m1.small.nicX's trait, c2.diskless removed (a flavor servers use), and the runbooks
    changed: firmware-update also updates the BIOS's firmware and runs on the GPU nodes too,
    bios-gpu-servicing removed, disk-erase added; and the load-balancer flavors changed: the
    active-standby profile's amphorae on a larger compute flavor with an SR-IOV VIP (a profile
    its flavors use: Octavia replaces it), lb.standalone disabled, lb.ha.internal added; and the
    network flavors changed: router.standard on the distributed driver (its profile swapped)
    and described anew, router.ha removed, router.dvrha added and disabled."""
    repo = tmp_path_factory.mktemp("history") / "catalog"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    shutil.copy(EXAMPLES / "nodes.yaml", repo / "nodes.yaml")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "base")
    hardware = repo / "hardware"
    flavors = hardware / "flavors"
    kustomization = hardware / "base" / "kustomization.yaml"

    with (flavors / "m1.small.yaml").open("a") as file:
        file.write("traits:\n  - trait: NVME\n    state: required\n")
    commit(repo, "trait-added")

    (hardware / "device-types" / "dell-poweredge-xe9680.yaml").unlink()
    (flavors / "g1.8xh100.yaml").unlink()
    edit(
        kustomization,
        "  - dell-poweredge-xe9680.yaml=../device-types/dell-poweredge-xe9680.yaml\n",
        "",
    )
    edit(kustomization, "  - g1.8xh100.yaml=../flavors/g1.8xh100.yaml\n", "")
    commit(repo, "device-type-retired")

    with (flavors / "c2.large.yaml").open("a") as file:
        file.write("is_public: false\nprojects:\n  - 0f1e2d3c4b5a49788796a5b4c3d2e1f0\n")
    commit(repo, "made-private")

    edit(flavors / "m1.small.nicX.yaml", "trait: NICX", "trait: NCIX")
    commit(repo, "trait-typo")

    (flavors / "c2.diskless.yaml").unlink()
    edit(kustomization, "  - c2.diskless.yaml=../flavors/c2.diskless.yaml\n", "")
    commit(repo, "removed")

    runbooks = hardware / "runbooks"
    firmware = runbooks / "firmware-update.yaml"
    edit(firmware, "traits: [CUSTOM_NVME]", "traits: [CUSTOM_GPU, CUSTOM_NVME]")
    edit(
        firmware,
        "        - {component: bmc, url: 'http://fw.example.com/bmc.bin'}\n",
        "        - {component: bmc, url: 'http://fw.example.com/bmc.bin'}\n"
        "        - {component: bios, url: 'http://fw.example.com/bios.bin'}\n",
    )
    (runbooks / "bios-gpu-servicing.yaml").unlink()
    (runbooks / "disk-erase.yaml").write_text(
        "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/runbook.schema.json\n"
        "name: disk-erase\n"
        "description: Every disk's data erased before the node goes back to the pool\n"
        "traits: [CUSTOM_NVME]\n"
        "steps:\n"
        "  - interface: deploy\n"
        "    step: erase_devices\n"
        "    order: 10\n"
    )
    edit(
        kustomization,
        "  - bios-gpu-servicing.yaml=../runbooks/bios-gpu-servicing.yaml\n",
        "  - disk-erase.yaml=../runbooks/disk-erase.yaml\n",
    )
    commit(repo, "runbooks-changed")

    profiles = hardware / "load-balancer-flavors"
    standby = profiles / "amphora-active-standby.yaml"
    edit(
        standby,
        "  compute_flavor: amphora.medium\n",
        "  compute_flavor: amphora.large\n  sriov_vip: true\n",
    )
    with standby.open("a") as file:
        file.write(
            "  - name: lb.ha.internal\n    description: As lb.ha, for the platform's own services\n"
        )
    with (profiles / "amphora-single.yaml").open("a") as file:
        file.write("    enabled: false\n")
    commit(repo, "load-balancers-changed")

    networks = hardware / "network-flavors"
    standard = networks / "router.standard.yaml"
    edit(standard, "single_node.SingleNodeDriver", "dvr.DvrDriver")
    edit(standard, "Legacy routers, one L3 agent each", "Distributed routers")
    edit(
        standard,
        "A router on one network node; it moves to another if that node fails",
        "A distributed router; east-west traffic stays on the compute host",
    )
    (networks / "router.ha.yaml").unlink()
    (networks / "router.dvrha.yaml").write_text(
        "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/network-flavor.schema.json\n"
        "name: router.dvrha\n"
        "description: A distributed router kept on two network nodes\n"
        "service_type: L3_ROUTER_NAT\n"
        "enabled: false\n"
        "service_profiles:\n"
        "  - driver: neutron.services.l3_router.service_providers.dvrha.DvrHaDriver\n"
    )
    edit(
        kustomization,
        "  - router.ha.yaml=../network-flavors/router.ha.yaml\n",
        "  - router.dvrha.yaml=../network-flavors/router.dvrha.yaml\n",
    )
    commit(repo, "network-flavors-changed")
    return repo
