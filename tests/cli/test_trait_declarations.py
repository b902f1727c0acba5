"""The misspelt trait of the issue (a flavor requiring NMVE, meant NVME) from validate to sync:
an error once the catalog declares its traits, a warning that `validate --strict` fails, that
`sync plan` and `sync apply` print above the plan and `sync apply --strict` refuses; and
`trait list` showing the declared traits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.support.declared_traits import declared_catalog, edit

NVME_FLAVOR = "hardware/flavors/m1.small.nvme-cx5-no-gpu.yaml"
SITE = "hardware/traits/site.yaml"
WARNING = (
    f"{NVME_FLAVOR}:6:12: traits[0].trait: warning: CUSTOM_NMVE is required but nothing "
    "provides it: no trait rule adds it and no deploy template is named after it, so no node "
    "has it unless it is set by hand (validate --database checks the nodes) (did you mean "
    "'NVME'?)"
)


@pytest.fixture
def misspelt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example catalog (no trait declarations) with the misspelt trait, as the working
    directory."""
    root = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: NMVE")
    monkeypatch.chdir(root)
    return root


def test_without_declarations_the_misspelt_trait_is_a_warning(cli: Invoke, misspelt: Path) -> None:
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (0, f"{WARNING}\n35 files: 0 errors, 1 warning\n")


def test_strict_validation_turns_every_warning_into_an_error(cli: Invoke, misspelt: Path) -> None:
    result = cli("validate", "--strict")
    as_error = WARNING.replace("traits[0].trait: warning: ", "traits[0].trait: ")
    assert (result.exit_code, result.stdout) == (1, f"{as_error}\n35 files: 1 error, 0 warnings\n")
    listed = json.loads(cli("validate", "--strict", "-f", "json").stdout)
    assert [(d["severity"], d["code"]) for d in listed] == [("error", "trait-not-provided")]


def test_strict_validation_of_a_clean_catalog_passes(cli: Invoke, example_repo: Path) -> None:
    result = cli("validate", "--strict")
    assert (result.exit_code, result.stdout) == (0, "35 files: 0 errors, 0 warnings\n")


def test_with_declarations_the_misspelt_trait_is_an_error(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = declared_catalog(tmp_path / "deploy")
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: NMVE")
    monkeypatch.chdir(root)
    result = cli("validate")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{NVME_FLAVOR}:6:12: traits[0].trait: NMVE (CUSTOM_NMVE) is not declared: this "
        "catalog declares its custom traits under hardware/traits/, and every custom trait its "
        "files name must be one of them (did you mean 'NVME'?)\n"
        "36 files: 1 error, 0 warnings\n",
    )


def test_sync_plan_prints_the_catalogs_warnings_above_the_plan(
    cli: Invoke, misspelt: Path, tmp_path: Path
) -> None:
    database = ["--database", f"sqlite:///{tmp_path / 'sync.db'}"]
    summary = "0 errors, 1 warning\n"
    table = cli("sync", "plan", *database, "--only", "flavors")
    assert table.exit_code == 0
    assert table.stderr == f"{WARNING}\n{summary}"
    assert '+ extra_specs.trait:CUSTOM_NMVE: "required"' in table.stdout
    # The warnings go to stderr: the JSON plan on stdout stays one document.
    as_json = cli("sync", "plan", *database, "--only", "flavors", "-f", "json")
    assert as_json.stderr == f"{WARNING}\n{summary}"
    assert len(json.loads(as_json.stdout)["actions"]) == 12


def test_sync_apply_strict_refuses_a_catalog_with_warnings(
    cli: Invoke, misspelt: Path, tmp_path: Path
) -> None:
    database = ["--database", f"sqlite:///{tmp_path / 'sync.db'}"]
    refused = cli("sync", "apply", *database, "--yes", "--strict")
    assert (refused.exit_code, refused.stdout, refused.stderr) == (
        1,
        "",
        f"{WARNING}\n0 errors, 1 warning\n"
        "error: refused by --strict: the catalog has 1 warning (above); nothing applied\n",
    )
    planned = json.loads(cli("sync", "plan", *database, "-f", "json").stdout)
    assert {a["action"] for a in planned["actions"]} == {"create"}  # nothing was applied
    applied = cli("sync", "apply", *database, "--yes")
    assert applied.exit_code == 0
    assert applied.stderr == f"{WARNING}\n0 errors, 1 warning\n"
    assert applied.stdout.endswith("12 changes, 0 failed, 13 API calls\n")


def test_sync_apply_strict_applies_a_clean_catalog(
    cli: Invoke, example_repo: Path, tmp_path: Path
) -> None:
    database = ["--database", f"sqlite:///{tmp_path / 'sync.db'}"]
    applied = cli("sync", "apply", *database, "--yes", "--strict")
    assert (applied.exit_code, applied.stderr) == (0, "")


def test_a_watcher_is_not_strict(cli: Invoke, misspelt: Path) -> None:
    result = cli("sync", "apply", "--watch", "--strict")
    assert result.exit_code == 2
    assert "a watcher applies each change as it comes" in result.stderr


def test_trait_list_shows_the_declared_traits_and_flags_the_idle_ones(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = declared_catalog(tmp_path / "deploy")
    edit(
        root / SITE,
        "traits:\n",
        "traits:\n"
        "  - name: CUSTOM_RAID\n    description: A hardware RAID controller\n"
        "    set_by: external\n    tool: asset database\n"
        "  - name: CUSTOM_FPGA\n    description: An FPGA card\n    set_by: trait-rule\n",
    )
    monkeypatch.chdir(root)
    result = cli("trait", "list", "-c", "trait", "-c", "set_by", "-c", "notes")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "+-----------------------------------+-------------------------------+-----------------+\n"
        "| trait                             | set_by                        | notes           |\n"
        "+-----------------------------------+-------------------------------+-----------------+\n"
        "| CUSTOM_BM_CONFIG_BIOS_VMX_OFF     | deploy template               |                 |\n"
        "| CUSTOM_BM_CONFIG_BIOS_VMX_ON      | deploy template               |                 |\n"
        "| CUSTOM_BM_CONFIG_RAID_DISK_MIRROR | deploy template               |                 |\n"
        "| CUSTOM_BM_CONFIG_RAID_DISK_STRIPE | deploy template               |                 |\n"
        "| CUSTOM_CPU_AVX512                 | trait-rules/cpu.yaml          |                 |\n"
        "| CUSTOM_CPU_SGX                    | trait-rules/cpu.yaml          | nothing uses it |\n"
        "| CUSTOM_FPGA                       |                               | nothing sets it |\n"
        "|                                   |                               | nothing uses it |\n"
        "| CUSTOM_GPU                        | trait-rules/gpus.yaml         |                 |\n"
        "| CUSTOM_GPU_NVIDIA_A100            | trait-rules/gpus.yaml         | nothing uses it |\n"
        "| CUSTOM_GPU_NVIDIA_H100            | trait-rules/gpus.yaml         |                 |\n"
        "| CUSTOM_NICX                       | trait-rules/nics.yaml         |                 |\n"
        "| CUSTOM_NIC_INTEL_E810             | trait-rules/nics.yaml         | nothing uses it |\n"
        "| CUSTOM_NIC_MELLANOX_CX5           | trait-rules/nics.yaml         |                 |\n"
        "| CUSTOM_NVME                       | trait-rules/storage.yaml      |                 |\n"
        "| CUSTOM_RAID                       | external: asset database      | nothing uses it |\n"
        "| HW_CPU_X86_AMD_SEV                | trait-rules/cpu-standard.yaml |                 |\n"
        "| HW_CPU_X86_AVX2                   | trait-rules/cpu-standard.yaml |                 |\n"
        "| HW_CPU_X86_AVX512F                | trait-rules/cpu-standard.yaml |                 |\n"
        "+-----------------------------------+-------------------------------+-----------------+\n"
    )
    described = json.loads(cli("trait", "list", "-f", "json").stdout)
    assert described[0] == {
        "trait": "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
        "set_by": ["deploy template"],
        "required_by": ["c2.large.novmx-stripe"],
        "forbidden_by": [],
        "description": "Hardware virtualisation off",
        "notes": [],
    }


def test_trait_list_of_a_catalog_without_declarations_keeps_its_columns(
    cli: Invoke, example_repo: Path
) -> None:
    listed = json.loads(cli("trait", "list", "-f", "json").stdout)
    assert {tuple(row) for row in listed} == {("trait", "set_by", "required_by", "forbidden_by")}


def test_sync_prints_the_first_warnings_and_how_many_there_are(
    cli: Invoke, example_repo: Path, tmp_path: Path
) -> None:
    flavors = example_repo / "hardware" / "flavors"
    for i in range(25):  # private without projects, and listed in no kustomization
        (flavors / f"p{i:02d}.yaml").write_text(
            f"name: p{i:02d}\nresource_class: m1.small\nis_public: false\n"
        )
    listed = cli("validate").stdout.splitlines()
    warnings, summary = listed[:-1], listed[-1]
    assert len(warnings) > 20 and summary.endswith(f": 0 errors, {len(warnings)} warnings")
    plan = cli("sync", "plan", "--database", f"sqlite:///{tmp_path / 'sync.db'}")
    assert plan.exit_code == 0
    assert plan.stderr.splitlines() == [
        *warnings[:20],
        f"... and {len(warnings) - 20} more (flavorsmith validate lists them all)",
        f"0 errors, {len(warnings)} warnings",
    ]
