"""``flavorsmith review`` on a Git history of realistic catalog changes, against the example
inventory: the whole Markdown and JSON reports, each --fail-on condition tripped and not,
--detailed-exitcode, the what-ifs, refs that do not exist and two folders."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.review.conftest import CHANGES

EXPECTED = Path(__file__).parent / "expected"
# Set to 1 to write the expected reports from the command's output (then read them).
RECORD = os.environ.get("REVIEW_RECORD") == "1"


def review(cli: Invoke, history: Path, base: str, head: str | None, *args: str) -> tuple[int, str]:
    revisions = ["--base", base] + (["--head", head] if head is not None else [])
    result = cli(
        "review", "--repo", str(history), *revisions, "--nodes", str(history / "nodes.yaml"), *args
    )
    return result.exit_code, result.output


def expect(name: str, text: str) -> None:
    path = EXPECTED / name
    if RECORD:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize(
    ("base", "head", "report"),
    [
        ("base", "trait-added", "trait-added.md"),
        ("trait-added", "device-type-retired", "device-type-retired.json"),
        ("device-type-retired", "made-private", "made-private.md"),
        ("made-private", "trait-typo", "trait-typo.md"),
        ("trait-typo", "removed", "removed.json"),
        ("removed", "runbooks-changed", "runbooks-changed.md"),
        ("removed", "runbooks-changed", "runbooks-changed.json"),
        ("runbooks-changed", "load-balancers-changed", "load-balancers-changed.md"),
        ("runbooks-changed", "load-balancers-changed", "load-balancers-changed.json"),
        ("load-balancers-changed", "network-flavors-changed", "network-flavors-changed.md"),
        ("load-balancers-changed", "network-flavors-changed", "network-flavors-changed.json"),
    ],
)
def test_each_change_s_whole_report(
    cli: Invoke, history: Path, base: str, head: str, report: str
) -> None:
    fmt = "json" if report.endswith(".json") else "markdown"
    status, output = review(cli, history, base, head, "-f", fmt)
    assert status == 0
    expect(report, output)


def test_the_json_report_is_versioned_and_counts_what_the_markdown_says(
    cli: Invoke, history: Path
) -> None:
    _, output = review(cli, history, "base", "trait-added", "-f", "json")
    data = json.loads(output)
    assert data["format_version"] == 1
    (small,) = data["flavors"]
    assert small["available"] == {"before": 91, "after": 29, "change": -62}
    assert (
        data["headline"] == "m1.small: 91 → 29 nodes (\N{MINUS SIGN}62); 4 nodes no flavor can use"
    )


def test_a_review_of_several_commits_at_once_adds_their_effects(cli: Invoke, history: Path) -> None:
    _, output = review(cli, history, "base", "removed", "-f", "json")
    data = json.loads(output)
    assert {f["flavor"]: f["status"] for f in data["flavors"]} == {
        "c2.diskless": "removed",
        "g1.8xh100": "removed",
        "m1.small": "kept",
        "m1.small.nicX": "kept",
    }
    assert data["unschedulable"] == ["m1.small.nicX"]
    assert sorted((a["flavor"], a["action"]) for a in data["nova"]) == [
        ("c2.diskless", "delete"),
        ("c2.large", "replace"),
        ("g1.8xh100", "delete"),
        ("m1.small", "update"),
        ("m1.small.nicX", "update"),
    ]


# Each --fail-on condition: a change that trips it (exit 1, named on stderr) and one that
# does not (exit 0).
@pytest.mark.parametrize(
    ("condition", "tripping", "harmless", "said"),
    [
        ("unschedulable", "trait-typo", "trait-added", "m1.small.nicX becomes unschedulable"),
        ("leak", "made-private", "trait-added", "'c2.large.novmx-stripe' (public) reaches 20"),
        ("loss:50", "trait-added", "made-private", "m1.small loses 68 % of its available nodes"),
        ("loss:70%", "trait-typo", "trait-added", "m1.small.nicX loses 100 %"),
    ],
)
def test_a_gate_trips_on_its_condition_and_not_otherwise(
    cli: Invoke, history: Path, condition: str, tripping: str, harmless: str, said: str
) -> None:
    previous = {c: p for p, c in itertools.pairwise(CHANGES)}
    status, output = review(cli, history, previous[tripping], tripping, "--fail-on", condition)
    assert status == 1
    assert f"review: --fail-on {condition}: {said}" in output
    status, output = review(cli, history, previous[harmless], harmless, "--fail-on", condition)
    assert status == 0
    assert "--fail-on" not in output


def test_a_warning_trips_the_error_gate_only_under_strict(cli: Invoke, history: Path) -> None:
    args = ("--fail-on", "error", "-f", "json")
    status, _ = review(cli, history, "device-type-retired", "made-private", *args)
    assert status == 0
    status, output = review(cli, history, "device-type-retired", "made-private", *args, "--strict")
    assert status == 1
    assert "review: --fail-on error: hardware/flavors/c2.large.yaml:5: pool leak:" in output


@pytest.fixture
def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    """The example catalog, and a copy with a lowercase trait (a catalog error)."""
    base, head = tmp_path / "base", tmp_path / "head"
    for folder in (base, head):
        shutil.copytree(EXAMPLES / "hardware", folder / "hardware")
    flavor = head / "hardware" / "flavors" / "m1.small.mellanox-cx5.yaml"
    flavor.write_text(flavor.read_text().replace("NIC_MELLANOX_CX5", "nic_mellanox_cx5"))
    return base, head


def test_two_folders_and_the_error_gate(
    cli: Invoke, history: Path, two_folders: tuple[Path, Path]
) -> None:
    base, head = map(str, two_folders)
    status, output = review(cli, history, base, base, "--fail-on", "error")
    assert (status, output.splitlines()[-2]) == (0, "| headline | no change to what can be sold |")
    status, output = review(cli, history, base, head, "--fail-on", "error", "-f", "json")
    assert status == 1
    data = json.loads(output.split("\nreview: ")[0])
    (error,) = data["diagnostics"]["errors"]
    assert error["path"] == "hardware/flavors/m1.small.mellanox-cx5.yaml"
    assert [g["condition"] for g in data["gates"]] == ["error"]


def test_detailed_exitcode(cli: Invoke, history: Path) -> None:
    assert review(cli, history, "base", "base", "--detailed-exitcode")[0] == 0
    assert review(cli, history, "base", "trait-added", "--detailed-exitcode")[0] == 2
    status, _ = review(
        cli,
        history,
        "made-private",
        "trait-typo",
        "--detailed-exitcode",
        "--fail-on",
        "unschedulable",
    )
    assert status == 1


def test_the_working_tree_is_the_default_head_and_is_left_alone(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "trait-typo", None, "-f", "json")
    assert status == 0
    assert json.loads(output)["head"] == "working tree"
    assert [f["flavor"] for f in json.loads(output)["flavors"]] == ["c2.diskless"]
    assert not (history / "hardware" / "flavors" / "c2.diskless.yaml").exists()


def test_a_ref_that_does_not_exist_is_named(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "no-such-branch", "removed")
    assert status == 2
    assert "'no-such-branch' is neither a folder nor a Git revision" in output
    status, output = review(cli, history, "base", "v9")
    assert status == 2
    assert "'--head'" in output and "'v9'" in output


def test_retiring_a_device_type(cli: Invoke, history: Path) -> None:
    status, output = review(
        cli, history, "removed", "removed", "--retire", "ProLiant DL360 Gen11", "-f", "json"
    )
    assert status == 0
    data = json.loads(output)
    assert data["fleet"]["nodes_before"] - data["fleet"]["nodes_after"] == len(
        data["fleet"]["retired"]
    )
    assert {f["flavor"]: f["available"]["after"] for f in data["flavors"]} == {
        "c2.large": 0,
        "c2.large.novmx-stripe": 0,
        "c2.large.vmx-mirror": 0,
    }
    assert sorted(data["unschedulable"]) == [
        "c2.large",
        "c2.large.novmx-stripe",
        "c2.large.vmx-mirror",
    ]
    assert data["nodes"]["unusable"] == []


def test_adding_nodes_like_one(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "base", "base", "--add", "40:r7615-a01-u02", "-f", "json")
    assert status == 0
    data = json.loads(output)
    assert data["fleet"]["added"][:2] == ["r7615-a01-u02+new-1", "r7615-a01-u02+new-2"]
    gained = {f["flavor"]: f["available"]["change"] for f in data["flavors"]}
    assert gained == {"m1.small": 40, "m1.small.no-gpu": 40}


def test_a_what_if_needs_no_base(cli: Invoke, history: Path) -> None:
    result = cli(
        "review",
        "--repo",
        str(history),
        "--nodes",
        str(history / "nodes.yaml"),
        "--retire",
        "r7615-a01-u02,r7615-a01-u05",
        "-f",
        "json",
    )
    assert result.exit_code == 0
    assert json.loads(result.output)["fleet"]["retired"] == ["r7615-a01-u02", "r7615-a01-u05"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--retire", "PowerEdge R9999"), "no device type, resource class or node"),
        (("--add", "forty:r7615-a01-u02"), "give COUNT:LIKE_NODE"),
        (("--add", "4:nowhere"), "no node named 'nowhere'"),
        (("--fail-on", "everything"), "unknown condition 'everything'"),
    ],
)
def test_refusals(cli: Invoke, history: Path, args: tuple[str, ...], said: str) -> None:
    status, output = review(cli, history, "base", "base", *args)
    assert status == 2
    assert said in output


def test_no_base_and_no_what_if_is_refused(cli: Invoke, history: Path) -> None:
    result = cli("review", "--repo", str(history), "--nodes", str(history / "nodes.yaml"))
    assert result.exit_code == 2
    assert "give the revision to compare with" in result.output


def test_the_runbook_changes_as_a_table(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "removed", "runbooks-changed")
    assert status == 0
    expect("runbooks-changed.txt", output)


def test_a_runbook_change_trips_no_gate_but_has_effects(cli: Invoke, history: Path) -> None:
    gates = ("--fail-on", "unschedulable", "--fail-on", "leak", "--fail-on", "error")
    status, _ = review(cli, history, "removed", "runbooks-changed", *gates, "--detailed-exitcode")
    assert status == 2


def test_the_load_balancer_changes_as_a_table(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "runbooks-changed", "load-balancers-changed")
    assert status == 0
    expect("load-balancers-changed.txt", output)


def test_a_load_balancer_change_trips_no_gate_but_has_effects(cli: Invoke, history: Path) -> None:
    gates = ("--fail-on", "unschedulable", "--fail-on", "leak", "--fail-on", "error")
    args = ("runbooks-changed", "load-balancers-changed", *gates)
    status, _ = review(cli, history, *args, "--detailed-exitcode")
    assert status == 2
    status, _ = review(cli, history, *args)
    assert status == 0


def test_the_network_flavor_changes_as_a_table(cli: Invoke, history: Path) -> None:
    status, output = review(cli, history, "load-balancers-changed", "network-flavors-changed")
    assert status == 0
    expect("network-flavors-changed.txt", output)


def test_a_network_flavor_change_trips_no_gate_but_has_effects(cli: Invoke, history: Path) -> None:
    gates = ("--fail-on", "unschedulable", "--fail-on", "leak", "--fail-on", "error")
    args = ("load-balancers-changed", "network-flavors-changed", *gates)
    status, _ = review(cli, history, *args, "--detailed-exitcode")
    assert status == 2
    status, _ = review(cli, history, *args)
    assert status == 0


def test_a_flavor_moved_to_another_profile_is_replaced_alone(
    cli: Invoke, history: Path, tmp_path: Path
) -> None:
    """Octavia changes no flavor's profile: lb.ha.trial moved to the single-amphora profile is
    made again there, while both profiles, their data unchanged, stay as they are."""
    base, head = tmp_path / "base", tmp_path / "head"
    for folder in (base, head):
        shutil.copytree(EXAMPLES / "hardware", folder / "hardware")
    profiles = head / "hardware" / "load-balancer-flavors"
    standby = profiles / "amphora-active-standby.yaml"
    text = standby.read_text()
    trial = text[text.index("  - name: lb.ha.trial") :]
    standby.write_text(text.replace(trial, ""))
    with (profiles / "amphora-single.yaml").open("a") as file:
        file.write(trial)
    result = cli(
        "review", "--repo", str(history), "--base", str(base), "--head", str(head),
        "--nodes", str(history / "nodes.yaml"), "-f", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["load_balancer_flavors"] == {
        "profiles": [],
        "flavors": [
            {
                "flavor": "lb.ha.trial",
                "status": "changed",
                "profile": {"before": "amphora-active-standby", "after": "amphora-single"},
                "changes": [
                    {
                        "field": "profile",
                        "before": "amphora-active-standby",
                        "after": "amphora-single",
                    }
                ],
                "replaced": True,
            }
        ],
    }
    assert data["headline"] == "load-balancer flavor lb.ha.trial changed (profile), replaced"


def test_retired_nodes_do_not_lose_a_runbook(cli: Invoke, history: Path) -> None:
    """A what-if takes nodes out of the fleet, not out of a runbook's reach: the DL360s (the
    RAID layouts' nodes) retired leave raid-rebuild unchanged."""
    status, output = review(
        cli,
        history,
        "runbooks-changed",
        "runbooks-changed",
        "--retire",
        "ProLiant DL360 Gen11",
        "-f",
        "json",
    )
    assert status == 0
    data = json.loads(output)
    assert data["fleet"]["retired"] and data["runbooks"] == []


def _documented(section: str) -> set[str]:
    """The keys the first table after ``section`` on the review format page names."""
    text = (Path(__file__).parents[2] / "docs" / "reference" / "review-format.md").read_text()
    lines = text.split(section, 1)[1].splitlines()
    rows = itertools.dropwhile(lambda line: not line.startswith("| `"), lines)
    table = itertools.takewhile(lambda line: line.startswith("|"), rows)
    return {key for row in table for key in re.findall(r"`([a-z_]+)`", row.split(" | ", 1)[0])}


def test_the_review_format_page_names_each_key(cli: Invoke, history: Path) -> None:
    _, output = review(
        cli, history, "load-balancers-changed", "network-flavors-changed", "-f", "json"
    )
    data = json.loads(output)
    assert _documented("# Review format") == set(data)
    (entry, *_) = data["network_flavors"]
    assert _documented("A network flavor entry:") == set(entry)
