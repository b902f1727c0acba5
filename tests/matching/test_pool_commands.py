"""validate with nodes, capacity's pool leaks and --project, and trait list, on the example
catalog and inventory."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke

PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"  # in m1.medium.dedicated's access list
LEAK = (
    "hardware/flavors/m1.medium.dedicated.yaml:8:12: is_public: warning: pool leak: 'm1.medium' "
    "(public) reaches 48 of the 48 nodes of 'm1.medium.dedicated'; fix: mark CPU_AVX512 absent "
    "in 'm1.medium' (trait: CPU_AVX512, state: absent); or put the pool's nodes in a Nova "
    "aggregate with trait:CUSTOM_CPU_AVX512=required and set "
    "[scheduler]enable_isolated_aggregate_filtering"
)


@pytest.fixture
def leaky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example catalog as it was before the fix: the public m1.medium marks nothing
    absent, so it reaches every node of the dedicated pool."""
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    medium = repo / "hardware" / "flavors" / "m1.medium.yaml"
    medium.write_text(medium.read_text().split("traits:")[0])
    monkeypatch.chdir(repo)
    return repo


def test_validate_with_nodes_finds_no_leak_in_the_example(cli: Invoke, example_db_url: str) -> None:
    result = cli("validate", "--repo", str(EXAMPLES), "--database", example_db_url)
    assert (result.exit_code, result.stdout) == (0, "35 files: 0 errors, 0 warnings\n")


def test_validate_names_the_leak_and_its_fix(cli: Invoke, example_db_url: str, leaky: Path) -> None:
    result = cli("validate", "--database", example_db_url)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [LEAK, "35 files: 0 errors, 1 warning"]
    static = cli("validate")
    assert static.stdout.splitlines()[0].endswith(
        "pool leak: 'm1.medium' (public) can reach the nodes of private flavor "
        "'m1.medium.dedicated': same resource class, and no trait one requires is forbidden by "
        "the other (checked without nodes); fix: mark CPU_AVX512 absent in 'm1.medium' (trait: CPU_AVX512, state: absent)"
        "; or put the pool's nodes in a Nova aggregate with trait:CUSTOM_CPU_AVX512=required and "
        "set [scheduler]enable_isolated_aggregate_filtering"
    )
    assert static.stdout.splitlines()[1] == "35 files: 0 errors, 1 warning"


def test_validate_warns_on_a_trait_no_node_has(
    cli: Invoke, example_db_url: str, example_repo: Path
) -> None:
    (example_repo / "hardware" / "flavors" / "c2.large.raid.yaml").write_text(
        "name: c2.large.raid\nresource_class: c2.large\ntraits:\n"
        "  - trait: RAID\n    state: required\n"
    )
    kustomization = example_repo / "hardware" / "base" / "kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().replace(
            "  - c2.large.yaml=../flavors/c2.large.yaml\n",
            "  - c2.large.yaml=../flavors/c2.large.yaml\n"
            "  - c2.large.raid.yaml=../flavors/c2.large.raid.yaml\n",
        )
    )
    result = cli("validate", "--database", example_db_url, "-f", "json")
    assert result.exit_code == 0
    (found,) = json.loads(result.stdout)
    assert found["code"] == "trait-not-provided" and found["path"].endswith("c2.large.raid.yaml")
    assert found["message"] == (
        "CUSTOM_RAID is required but nothing provides it: no trait rule adds it, no deploy "
        "template is named after it and none of the 350 known nodes has it: the flavor matches "
        "no node (did you mean 'BM_CONFIG_RAID_DISK_MIRROR' or 'BM_CONFIG_RAID_DISK_STRIPE'?)"
    )


def test_validate_takes_one_node_source(cli: Invoke, example_db_url: str) -> None:
    result = cli(
        "validate",
        "--repo",
        str(EXAMPLES),
        "--database",
        example_db_url,
        "--ironic-endpoint",
        "http://127.0.0.1:9",
    )
    assert result.exit_code == 2
    assert "give one node source" in result.stderr


def test_capacity_reports_pool_leaks(cli: Invoke, example_db_url: str, leaky: Path) -> None:
    clean = json.loads(
        cli("capacity", "--repo", str(EXAMPLES), "--database", example_db_url, "-f", "json").stdout
    )
    assert clean["findings"]["pool_leaks"] == []
    report = json.loads(cli("capacity", "--database", example_db_url, "-f", "json").stdout)
    (leak,) = report["findings"]["pool_leaks"]
    assert {k: leak[k] for k in ("pool", "reached_by", "audience", "nodes", "close_with")} == {
        "pool": "m1.medium.dedicated",
        "reached_by": "m1.medium",
        "audience": "public",
        "nodes": 48,
        "close_with": "CUSTOM_CPU_AVX512",
    }
    table = cli("capacity", "--database", example_db_url).stdout
    assert (
        "| pool leaks                        | 'm1.medium' (public) reaches 48 of the 48 nodes "
        "of 'm1.medium.dedicated'"
    ) in table
    assert (
        "  fix: mark CPU_AVX512 absent in 'm1.medium' (trait: CPU_AVX512, state: absent)" in table
    )


def test_capacity_of_a_project(cli: Invoke, example_db_url: str) -> None:
    args = ["capacity", "--repo", str(EXAMPLES), "--database", example_db_url, "-f", "json"]
    everything = json.loads(cli(*args).stdout)
    mine = json.loads(cli(*args, "--project", PROJECT).stdout)
    assert mine["project"] == PROJECT
    assert [f["flavor"] for f in mine["flavors"]] == [f["flavor"] for f in everything["flavors"]]
    medium = {f["flavor"]: f for f in mine["flavors"]}
    assert medium["m1.medium.dedicated"]["matching_nodes"] == 48
    assert (
        medium["m1.medium"]["matching_nodes"] == 32
    )  # the general pool: AVX-512 nodes marked absent

    outsider = cli(*args, "--project", "someone-else")
    assert outsider.exit_code == 0
    names = [f["flavor"] for f in json.loads(outsider.stdout)["flavors"]]
    assert "m1.medium.dedicated" not in names and len(names) == 11
    assert outsider.stderr == (
        "note: project 'someone-else' is in no private flavor's access list: it sees the "
        "public flavors only\n"
    )
    for blank in ("", " "):  # a usage error: one line (the console script folds the usage)
        empty = cli(*args, "--project", blank)
        assert (empty.exit_code, empty.stdout) == (2, "")
        assert "Traceback" not in empty.stderr
        assert [x for x in empty.stderr.splitlines() if x.startswith("Error:")] == [
            "Error: Invalid value for '--project': a project id cannot be empty"
        ]


def test_capacity_of_a_project_counts_competition_among_its_flavors(
    cli: Invoke, example_db_url: str, leaky: Path
) -> None:
    """Before the fix the public m1.medium shared 48 nodes with the pool: its projects see the
    competition and the leak; another project sees neither."""
    args = ["capacity", "--database", example_db_url, "-f", "json"]
    inside = json.loads(cli(*args, "--project", PROJECT).stdout)
    assert {f["flavor"]: f["shared_nodes"] for f in inside["flavors"]}["m1.medium"] == 48
    assert len(inside["findings"]["pool_leaks"]) == 1
    outside = json.loads(cli(*args, "--project", "someone-else").stdout)
    assert {f["flavor"]: f["shared_nodes"] for f in outside["flavors"]}["m1.medium"] == 0
    assert outside["findings"]["pool_leaks"] == []


def test_trait_list(cli: Invoke, example_db_url: str) -> None:
    result = cli("trait", "list", "--repo", str(EXAMPLES), "-f", "json")
    assert result.exit_code == 0
    rows = {r["trait"]: r for r in json.loads(result.stdout)}
    assert rows["CUSTOM_CPU_AVX512"] == {
        "trait": "CUSTOM_CPU_AVX512",
        "set_by": ["trait-rules/cpu.yaml"],
        "required_by": ["m1.medium.dedicated"],
        "forbidden_by": ["m1.medium"],
    }
    assert rows["CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"]["set_by"] == ["deploy template"]
    assert len(rows) == 16

    counted = cli(
        "trait", "list", "--repo", str(EXAMPLES), "--database", example_db_url, "-f", "csv"
    )
    table = list(csv.reader(io.StringIO(counted.stdout)))
    assert table[0] == ["trait", "set_by", "nodes", "required_by", "forbidden_by"]
    by_trait = {row[0]: row for row in table[1:]}
    assert by_trait["CUSTOM_CPU_AVX512"] == [
        "CUSTOM_CPU_AVX512",
        "trait-rules/cpu.yaml",
        "48",
        "m1.medium.dedicated",
        "m1.medium",
    ]
    # Deploy-template traits: the example nodes carry them, put there by hand.
    assert by_trait["CUSTOM_BM_CONFIG_BIOS_VMX_ON"][1:3] == ["deploy template by hand", "20"]

    value = cli("trait", "list", "--repo", str(EXAMPLES), "-f", "value", "-c", "trait")
    assert value.stdout.splitlines()[:2] == [
        "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
    ]
    bad = cli("trait", "list", "--repo", str(EXAMPLES), "-f", "xml")
    assert bad.exit_code == 2
    nowhere = "sqlite:////nonexistent/x.db"
    missing = cli("trait", "list", "--repo", str(EXAMPLES), "--database", nowhere)
    assert (missing.exit_code, missing.stdout) == (2, "")
    assert "Traceback" not in missing.stderr
    assert [x for x in missing.stderr.splitlines() if x.startswith("Error:")] == [
        "Error: Invalid value for '--database': SQLite database /nonexistent/x.db: the folder "
        "/nonexistent does not exist (create it first, or fix the path)"
    ]
