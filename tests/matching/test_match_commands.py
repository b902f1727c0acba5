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
