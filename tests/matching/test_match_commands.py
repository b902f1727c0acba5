"""flavorsmith match and capacity on the example catalog and inventory."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES, Invoke


@pytest.fixture
def args(example_db_url: str) -> list[str]:
    return ["--repo", str(EXAMPLES), "--database", example_db_url]


def test_match_every_flavor(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "-f", "json")
    assert result.exit_code == 0
    counts = {row["flavor"]: row["count"] for row in json.loads(result.stdout)}
    assert counts["g1.8xh100"] == 16 and counts["c2.large"] == 60 and len(counts) == 12


def test_match_one_pair_explained(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "--flavor", "g1.8xh100", "--node", "dl360-d01-u01", "-f", "json")
    assert json.loads(result.stdout) == {
        "flavor": "g1.8xh100",
        "node": "dl360-d01-u01",
        "match": False,
        "reasons": [
            {
                "kind": "resource-class",
                "detail": "the node has 'c2.diskless' (CUSTOM_C2_DISKLESS); the flavor needs 'g1.8xh100' (CUSTOM_G1_8XH100)",
            },
            {
                "kind": "missing-trait",
                "detail": "the flavor requires CUSTOM_GPU_NVIDIA_H100; the node lacks it",
            },
        ],
    }


def test_match_node_lists_its_flavors(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "--node", "xe9680-g01-u06", "-f", "value")
    assert result.stdout == "g1.8xh100 True\n"
    explained = cli("match", *args, "--node", "xe9680-g01-u06", "--explain", "-f", "json")
    assert len(json.loads(explained.stdout)) == 12


def test_match_near_misses(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "--flavor", "m1.small.nvme-cx5-no-gpu", "--explain", "-f", "json")
    (row,) = json.loads(result.stdout)
    assert row["count"] == len(row["nodes"])
    assert len(row["near_misses"]) == 160 - row["count"]


def test_capacity_json_and_table(cli: Invoke, args: list[str]) -> None:
    report = json.loads(cli("capacity", *args, "-f", "json").stdout)
    assert report["findings"]["resource_classes_without_flavor"] == ["baremetal"]
    table = cli("capacity", *args).stdout
    assert "| resource classes without a flavor | baremetal" in table


def test_unknown_names(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "--flavor", "nope")
    assert (result.exit_code, result.stderr) == (
        1,
        "error: No flavor named 'nope' in the catalog\n",
    )
    result = cli("match", *args, "--node", "nope")
    assert (result.exit_code, result.stderr) == (1, "error: Node nope could not be found.\n")


def test_broken_catalog_is_refused(cli: Invoke, example_db_url: str) -> None:
    result = cli(
        "capacity", "--repo", str(EXAMPLES / "broken" / "wrong-type"), "--database", example_db_url
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("the catalog has errors; fix them first:\n")


def test_capacity_columns_and_sort(cli: Invoke, args: list[str]) -> None:
    result = cli(
        "capacity", *args, "-c", "flavor", "-c", "matching_nodes",
        "--sort-column", "matching_nodes", "--sort-column", "flavor",
    )  # fmt: skip
    assert (result.exit_code, result.stderr) == (0, "")
    # With -c only the flavors' table: the findings table is not shown.
    assert result.stdout == (
        "+--------------------------+----------------+\n"
        "| flavor                   | matching_nodes |\n"
        "+--------------------------+----------------+\n"
        "| m1.small.nvme-cx5-no-gpu | 15             |\n"
        "| g1.8xh100                | 16             |\n"
        "| c2.large.novmx-stripe    | 20             |\n"
        "| c2.large.vmx-mirror      | 20             |\n"
        "| c2.diskless              | 30             |\n"
        "| m1.medium                | 32             |\n"
        "| m1.small.mellanox-cx5    | 40             |\n"
        "| m1.medium.dedicated      | 48             |\n"
        "| c2.large                 | 60             |\n"
        "| m1.small.nicX            | 62             |\n"
        "| m1.small.no-gpu          | 145            |\n"
        "| m1.small                 | 160            |\n"
        "+--------------------------+----------------+\n"
    )
    report = json.loads(cli("capacity", *args, "-f", "json", "-c", "flavor").stdout)
    assert report["flavors"][:2] == [{"flavor": "c2.diskless"}, {"flavor": "c2.large"}]
    assert report["findings"]["resource_classes_without_flavor"] == ["baremetal"]
    csv = cli("capacity", *args, "-f", "csv", "-c", "flavor", "--sort-column", "flavor")
    assert csv.stdout.splitlines()[:3] == ['"flavor"', '"c2.diskless"', '"c2.large"']
    wrong = cli("capacity", *args, "-c", "availble_nodes")
    assert wrong.exit_code == 2
    assert "unknown column 'availble_nodes' (did you mean 'available_nodes'?)" in wrong.stderr
    assert (
        "'shell' is not an output format of this command"
        in cli("capacity", *args, "-f", "shell").stderr
    )


def test_match_csv_sorted_and_one_pair_as_a_row(cli: Invoke, args: list[str]) -> None:
    result = cli("match", *args, "-f", "csv", "-c", "flavor", "-c", "count",
                 "--sort-column", "count")  # fmt: skip
    assert result.stdout.splitlines()[:3] == [
        '"flavor","count"',
        '"m1.small.nvme-cx5-no-gpu",15',
        '"g1.8xh100",16',
    ]
    pair = ["--flavor", "g1.8xh100", "--node", "dl360-d01-u01"]
    result = cli("match", *args, *pair, "-f", "csv", "-c", "node", "-c", "match")
    assert (result.exit_code, result.stdout) == (0, '"node","match"\n"dl360-d01-u01","False"\n')
    result = cli("match", *args, *pair, "-f", "value", "-c", "match")
    assert (result.exit_code, result.stdout) == (0, "False\n")


def test_verify_findings_csv_sorted(cli: Invoke, args: list[str]) -> None:
    result = cli("verify", *args, "-f", "csv", "-c", "kind", "-c", "subject",
                 "--sort-column", "subject")  # fmt: skip
    assert result.exit_code == 1  # the example's Nova flavors were never synced
    assert result.stdout.splitlines()[:3] == [
        '"kind","subject"',
        '"flavor-missing","c2.diskless"',
        '"flavor-missing","c2.large"',
    ]
    wrong = cli("verify", *args, "--sort-column", "subjet")
    assert wrong.exit_code == 2
    assert "unknown column 'subjet' (did you mean 'subject'?)" in wrong.stderr


def test_node_trait_list_formats(cli: Invoke, example_db_url: str) -> None:
    db = ["--database", example_db_url]
    plain = cli("node", "trait", "list", "dl360-c01-u01", *db)
    assert plain.stdout.splitlines()[:2] == [
        "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
    ]
    table = cli("node", "trait", "list", "dl360-c01-u01", *db, "-f", "table")
    assert table.stdout == (
        "+-----------------------------------+\n"
        "| trait                             |\n"
        "+-----------------------------------+\n"
        "| CUSTOM_BM_CONFIG_BIOS_VMX_OFF     |\n"
        "| CUSTOM_BM_CONFIG_BIOS_VMX_ON      |\n"
        "| CUSTOM_BM_CONFIG_RAID_DISK_MIRROR |\n"
        "| CUSTOM_BM_CONFIG_RAID_DISK_STRIPE |\n"
        "| CUSTOM_NIC_MELLANOX_CX5           |\n"
        "| CUSTOM_NVME                       |\n"
        "| HW_CPU_X86_AVX512F                |\n"
        "+-----------------------------------+\n"
    )
    csv = cli("node", "trait", "list", "dl360-c01-u01", *db, "-f", "csv", "-c", "trait")
    assert csv.stdout.splitlines()[:2] == ['"trait"', '"CUSTOM_BM_CONFIG_BIOS_VMX_OFF"']
    assert cli("node", "trait", "list", "dl360-c01-u01", *db, "-f", "shell").exit_code == 2


def test_node_list_csv_and_sort_column(cli: Invoke, example_db_url: str) -> None:
    result = cli(
        "node", "list", "--database", example_db_url, "--limit", "3", "--sort", "name:desc",
        "-c", "name", "-c", "resource_class", "--sort-column", "name", "-f", "csv",
    )  # fmt: skip
    # --sort and --limit pick the last three names; --sort-column orders what was listed.
    assert (result.exit_code, result.stdout) == (
        0,
        '"name","resource_class"\n'
        '"xe9680-g01-u84","g1.8xh100"\n'
        '"xe9680-g01-u90","g1.8xh100"\n'
        '"xe9680-g01-u96","g1.8xh100"\n',
    )
    shell = cli("node", "list", "--database", example_db_url, "-f", "shell")
    assert shell.exit_code == 2
    assert (
        "'shell' is not an output format of this command; choose from table, json, yaml, value, csv"
        in shell.stderr
    )
