"""``flavorsmith review --cloud`` against real services: the fleet read from a real Ironic 39
(tests/support/ironic_api.py) holding the example inventory's 350 nodes in their states, and
the servers counted by a real Nova 34 compute API (tests/support/nova_api.py) that holds the
``base`` revision's flavors, synced by Flavorsmith, and servers on the flavors the history
removes or replaces: c2.diskless (3 servers in two projects), c2.large (2) and g1.8xh100
(none). The whole Markdown and JSON reports are compared, the server counts in them exact;
the same fleet read from the nodes file gives the same report but for those counts; a
credential that may not list every project's servers counts its own and says so; and the
--fail-on gates and --detailed-exitcode work as they do on a nodes file.

That Nova runs no compute service: its servers are written as Nova stores one that never
reached a host (``nova_api.add_servers``), and Nova's own API code lists and counts them.

Cost: both services start at once (some 10 to 15 s when installed), the nodes are written into
Ironic's database (a second or two) and the base flavors synced; each review then takes one to
three seconds. The module took about a minute (62 s, 41 s of it the set-up) on two busy
cores."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from flavorsmith.cli import build
from tests.conftest import Invoke
from tests.review.test_review_command import EXPECTED, expect
from tests.support import nova_api
from tests.support.ironic_api import running_ironic
from tests.support.ironic_fleet import example_nodes, fill_nodes
from tests.support.together import start_together

pytestmark = pytest.mark.slow

ADMIN, MEMBER = "lab", "lab-member"  # the clouds: every project's servers, and p1's only
# The servers the real Nova holds: flavor -> one project per server.
SERVERS = {"c2.diskless": ["p1", "p1", "p2"], "c2.large": ["p2", "p3"]}


@dataclass(frozen=True)
class Lab:
    ironic: str
    nova: str
    clouds_yaml: Path


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, history: Path) -> Iterator[Lab]:
    folder = tmp_path_factory.mktemp("review-cloud")
    database = folder / "ironic.sqlite"
    nova_state = folder / "nova"
    with ExitStack() as stack:
        started = start_together(
            stack,
            {
                "ironic": running_ironic(conf=f"[database]\nconnection = sqlite:///{database}\n"),
                "nova": nova_api.running(nova_state),
            },
        )
        ironic, nova = started["ironic"], started["nova"]
        fill_nodes(database, ironic, example_nodes(), states=True)
        clouds = {
            "clouds": {
                name: {
                    "auth_type": "admin_token",
                    "auth": {"endpoint": nova, "token": token},
                    "compute_endpoint_override": nova,
                    "baremetal_endpoint_override": f"{ironic}/v1",
                }
                for name, token in ((ADMIN, "admin:admin"), (MEMBER, "alice:p1"))
            }
        }
        (folder / "clouds.yaml").write_text(json.dumps(clouds))
        lab = Lab(ironic, nova, folder / "clouds.yaml")
        with pytest.MonkeyPatch.context() as patch:
            use_clouds(patch, lab)
            # Nova holds the base revision's flavors, as Flavorsmith syncs them.
            base = checkout(history, "base", folder / "base")
            synced = CliRunner().invoke(
                build(),
                ["sync", "apply", "--cloud", ADMIN, "--repo", str(base), "--yes",
                 "--database", f"sqlite:///{folder / 'sync.db'}"],
            )  # fmt: skip
            assert synced.exit_code == 0, synced.output
        for flavor, projects in SERVERS.items():
            nova_api.add_servers(nova_state, flavor, projects)
        yield lab


def use_clouds(patch: pytest.MonkeyPatch, lab: Lab) -> None:
    patch.setenv("OS_CLIENT_CONFIG_FILE", str(lab.clouds_yaml))
    patch.delenv("OS_CLOUD", raising=False)


@pytest.fixture
def clouds(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> Lab:
    use_clouds(monkeypatch, lab)
    return lab


def checkout(repo: Path, ref: str, folder: Path) -> Path:
    """The catalog at ``ref``, in ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="tar")
    return folder


def review(
    cli: Invoke, history: Path, base: str, head: str, *args: str, cloud: str = ADMIN
) -> tuple[int, str, str]:
    result = cli(
        "review", "--repo", str(history), "--base", base, "--head", head, "--cloud", cloud, *args
    )
    return result.exit_code, result.stdout, result.stderr


def without_servers(report: dict[str, Any]) -> dict[str, Any]:
    """The JSON report as a review without --cloud gives it: no server counted."""
    nova = [{**entry, "servers": None} if "servers" in entry else entry for entry in report["nova"]]
    return {**report, "nova": nova}


@pytest.mark.parametrize(
    ("base", "head", "report"),
    [
        ("trait-typo", "removed", "cloud-removed.json"),
        ("device-type-retired", "made-private", "cloud-made-private.md"),
        ("base", "removed", "cloud-base-to-removed.md"),
    ],
)
def test_the_whole_report_counts_the_servers_the_real_nova_holds(
    cli: Invoke, clouds: Lab, history: Path, base: str, head: str, report: str
) -> None:
    fmt = "json" if report.endswith(".json") else "markdown"
    status, output, errors = review(cli, history, base, head, "-f", fmt)
    assert (status, errors) == (0, "")
    expect(report, output)


def test_the_real_fleet_gives_the_nodes_file_s_report_but_for_the_servers(
    cli: Invoke, clouds: Lab, history: Path
) -> None:
    status, output, _ = review(cli, history, "base", "removed", "-f", "json")
    assert status == 0
    real = json.loads(output)
    assert [(e["flavor"], e.get("servers")) for e in real["nova"]] == [
        ("c2.large", {"count": 2, "scope": "all_projects"}),
        ("m1.small", None),
        ("m1.small.nicX", None),
        ("c2.diskless", {"count": 3, "scope": "all_projects"}),
        ("g1.8xh100", {"count": 0, "scope": "all_projects"}),
    ]
    from_file = cli(
        "review", "--repo", str(history), "--base", "base", "--head", "removed",
        "--nodes", str(history / "nodes.yaml"), "-f", "json",
    )  # fmt: skip
    assert from_file.exit_code == 0
    assert without_servers(real) == json.loads(from_file.stdout)
    # The report of one change, recorded from the nodes file, is the real fleet's too.
    _, output, _ = review(cli, history, "trait-typo", "removed", "-f", "json")
    assert without_servers(json.loads(output)) == json.loads(
        (EXPECTED / "removed.json").read_text()
    )


def test_a_credential_that_may_not_list_every_project_counts_its_own(
    cli: Invoke, clouds: Lab, history: Path
) -> None:
    note = "this credential may not list other projects' servers (Nova answered 403 to all_tenants)"
    status, output, _ = review(cli, history, "base", "removed", "-f", "json", cloud=MEMBER)
    assert status == 0
    counted = {e["flavor"]: e["servers"] for e in json.loads(output)["nova"] if "servers" in e}
    assert counted == {
        "c2.large": {"count": 0, "scope": "own_project", "note": note},
        "c2.diskless": {"count": 2, "scope": "own_project", "note": note},
        "g1.8xh100": {"count": 0, "scope": "own_project", "note": note},
    }
    status, output, _ = review(
        cli, history, "trait-typo", "removed", "-f", "markdown", cloud=MEMBER
    )
    assert status == 0
    assert (
        "- delete c2.diskless: managed by Flavorsmith and no longer in the catalog (2 servers "
        f"use it in this credential's project; other projects not counted; {note})\n"
    ) in output


@pytest.mark.parametrize(
    ("condition", "tripping", "harmless", "said"),
    [
        ("unschedulable", ("made-private", "trait-typo"), ("trait-typo", "removed"),
         "m1.small.nicX becomes unschedulable"),
        ("loss:50", ("base", "trait-added"), ("device-type-retired", "made-private"),
         "m1.small loses 68 % of its available nodes (91 → 29)"),
    ],
)  # fmt: skip
def test_a_gate_trips_on_its_condition_with_the_servers_counted(
    cli: Invoke,
    clouds: Lab,
    history: Path,
    condition: str,
    tripping: tuple[str, str],
    harmless: tuple[str, str],
    said: str,
) -> None:
    status, output, errors = review(cli, history, *tripping, "--fail-on", condition, "-f", "json")
    assert status == 1
    assert errors == f"review: --fail-on {condition}: {said}\n"
    assert [g["condition"] for g in json.loads(output)["gates"]] == [condition]
    args = ("--fail-on", condition, "-f", "json")
    status, output, errors = review(cli, history, *harmless, *args)
    assert (status, errors) == (0, "")
    data = json.loads(output)
    assert data["gates"] == []
    # The harmless change deletes or replaces a flavor servers use; still no gate trips.
    assert any((e.get("servers") or {}).get("count") for e in data["nova"])


def test_detailed_exitcode_with_the_servers_counted(
    cli: Invoke, clouds: Lab, history: Path
) -> None:
    assert review(cli, history, "removed", "removed", "--detailed-exitcode")[0] == 0
    assert review(cli, history, "trait-typo", "removed", "--detailed-exitcode")[0] == 2
