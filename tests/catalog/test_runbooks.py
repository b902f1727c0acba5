"""Runbook files (hardware/runbooks/) as ``validate`` reports them: each step against the
clean and service steps of the known drivers, each order once, each trait one Ironic accepts,
declared when the catalog declares its traits, and a warning for a runbook no node may run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.support.declared_traits import DECLARATIONS, declared_catalog

RUNBOOK = "hardware/runbooks/rebuild.yaml"
LAST = "  - raid-rebuild.yaml=../runbooks/raid-rebuild.yaml\n"  # the example's last runbook
STEPS = """\
steps:
  - interface: raid
    step: delete_configuration
    order: 10
  - interface: raid
    step: create_configuration
    args: {create_root_volume: true}
    order: 20
"""


def with_runbook(root: Path, traits: str = "[CUSTOM_NVME]", steps: str = STEPS) -> Path:
    """``root`` (a catalog repository) with hardware/runbooks/rebuild.yaml of ``traits`` and
    ``steps``, listed in its kustomization beside the example's runbooks."""
    (root / RUNBOOK).write_text(
        "# yaml-language-server: $schema=https://flavorsmith.dev/schemas/v1/runbook.schema.json\n"
        f"name: rebuild\ndescription: The RAID set up again\ntraits: {traits}\n{steps}"
    )
    kustomization = root / "hardware" / "base" / "kustomization.yaml"
    text = kustomization.read_text()
    assert LAST in text
    kustomization.write_text(
        text.replace(LAST, LAST + "  - rebuild.yaml=../runbooks/rebuild.yaml\n")
    )
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example catalog, as the working directory (a test adds its runbook)."""
    root = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    monkeypatch.chdir(root)
    return root


def test_a_runbook_of_known_steps_and_a_set_trait_is_clean(cli: Invoke, repo: Path) -> None:
    with_runbook(repo)
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (0, "36 files: 0 errors, 0 warnings\n")


def test_an_unknown_step(cli: Invoke, repo: Path) -> None:
    with_runbook(repo, steps=STEPS.replace("step: delete_configuration", "step: delete_config"))
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:7:11: steps[0].step: raid.delete_config is not a clean or service step of "
        "any known driver (did you mean 'delete_configuration'?). Steps on raid: "
        "apply_configuration, create_configuration, delete_configuration (drivers: "
        "fake-hardware, redfish, idrac, ipmi, intel-ipmi, manual-management)\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_an_unknown_argument(cli: Invoke, repo: Path) -> None:
    with_runbook(repo, steps=STEPS.replace("create_root_volume:", "create_root:"))
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:11:11: steps[1].args: raid.create_configuration does not accept "
        "create_root: it takes create_nonroot_volumes, create_root_volume, delete_existing\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_an_argument_of_the_wrong_type(cli: Invoke, repo: Path) -> None:
    with_runbook(repo, steps=STEPS.replace("create_root_volume: true", "create_root_volume: 1"))
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:11:32: steps[1].args.create_root_volume: raid.create_configuration's "
        "argument create_root_volume must be of type boolean, not number\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_a_required_argument_missing(cli: Invoke, repo: Path) -> None:
    steps = "steps:\n  - interface: firmware\n    step: update\n    order: 10\n"
    with_runbook(repo, steps=steps)
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:6:5: steps[0].args: firmware.update needs the argument(s) settings\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_an_order_twice(cli: Invoke, repo: Path) -> None:
    with_runbook(repo, steps=STEPS.replace("order: 20", "order: 10"))
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:12:12: steps[1].order: order 10 is already steps[0]'s: each step of a "
        "runbook has an order of its own\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_an_undeclared_trait_when_the_catalog_declares_its_traits(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = with_runbook(declared_catalog(tmp_path / "deploy"), traits="[CUSTOM_NVMEE]")
    monkeypatch.chdir(root)
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:4:9: traits: warning: no node may run runbook rebuild: no trait rule sets "
        "its traits (CUSTOM_NVMEE) and no node has them unless they are set by hand (a node "
        "needs one of them)\n"
        f"{RUNBOOK}:4:10: traits[0]: CUSTOM_NVMEE is not declared: this catalog declares its "
        "custom traits under hardware/traits/, and every custom trait its files name must be "
        "one of them (did you mean 'CUSTOM_NVME'?)\n"
        "37 files: 1 error, 1 warning\n",
    )


def test_a_trait_like_a_standard_one(cli: Invoke, repo: Path) -> None:
    with_runbook(repo, traits="[HW_CPU_X86_AVX22, CUSTOM_NVME]")
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{RUNBOOK}:4:10: traits[0]: HW_CPU_X86_AVX22 is not a standard trait of os-traits "
        "3.9.0 (did you mean 'HW_CPU_X86_AVX2' or 'HW_CPU_X86_AVX'?); Ironic refuses it on a "
        "node, so no node has it to run this runbook\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_a_runbook_no_node_may_run_is_a_warning(cli: Invoke, repo: Path, tmp_path: Path) -> None:
    with_runbook(repo, traits="[CUSTOM_FIRMWARE_PENDING]")
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        0,
        f"{RUNBOOK}:4:9: traits: warning: no node may run runbook rebuild: no trait rule sets "
        "its traits (CUSTOM_FIRMWARE_PENDING) and no node has them unless they are set by hand "
        "(a node needs one of them)\n"
        "36 files: 0 errors, 1 warning\n",
    )
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    imported = cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", database)
    assert imported.exit_code == 0, imported.stderr
    result = cli("validate", "--database", database)
    assert result.stdout.splitlines()[0] == (
        f"{RUNBOOK}:4:9: traits: warning: no node may run runbook rebuild: no trait rule sets "
        "its traits (CUSTOM_FIRMWARE_PENDING) and none of the 350 known nodes has one unless "
        "they are set by hand (a node needs one of them)"
    )
    # A node given the trait by hand may run it: no warning.
    added = cli(
        "node", "trait", "add", "r7615-a01-u01", "CUSTOM_FIRMWARE_PENDING", "--database", database
    )
    assert added.exit_code == 0, added.stderr
    result = cli("validate", "--database", database)
    assert "runbook" not in result.stdout


def test_a_declared_trait_a_runbook_names_is_used(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    declarations = DECLARATIONS + (
        "  - name: CUSTOM_FIRMWARE_PENDING\n"
        "    description: Firmware to update at the next maintenance\n"
        "    set_by: operator\n"
    )
    root = declared_catalog(tmp_path / "deploy", declarations)
    monkeypatch.chdir(root)

    def notes() -> list[str]:
        listed = json.loads(cli("trait", "list", "-f", "json").stdout)
        return next(t["notes"] for t in listed if t["trait"] == "CUSTOM_FIRMWARE_PENDING")

    assert notes() == ["nothing uses it"]
    with_runbook(root, traits="[CUSTOM_FIRMWARE_PENDING]")
    assert notes() == []
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (0, "37 files: 0 errors, 0 warnings\n")
