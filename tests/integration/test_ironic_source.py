"""A real Ironic 39 as the node source of match, capacity, node list and deploy plan
(``--ironic-endpoint``): with the example inventory's 350 nodes written into Ironic's database,
every answer equals the answer about the same nodes dumped with the real `openstack baremetal
node list --long -f json` and imported into the service's database; and
a source that cannot be used is one line, exit 1 (or a usage error, exit 2)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.integration.clients import OPENSTACK
from tests.support.ironic_api import running_ironic
from tests.support.ironic_fleet import IronicHttp, example_nodes, fill_nodes


@pytest.fixture(scope="module")
def ironic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("ironic") / "ironic.sqlite"
    with running_ironic(conf=f"[database]\nconnection = sqlite:///{database}\n") as url:
        fill_nodes(database, url, example_nodes())
        yield url


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("catalog") / "deploy"
    shutil.copytree(EXAMPLES / "hardware", root / "hardware")
    return root


@pytest.fixture(scope="module")
def database(ironic: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The same fleet in the service's own database: dumped with the real
    `openstack baremetal node list --long -f json` and imported."""
    from typer.testing import CliRunner

    from flavorsmith.cli import build

    assert OPENSTACK is not None, "the openstack CLI is part of the test extras"
    folder = tmp_path_factory.mktemp("dump")
    dump = subprocess.run(
        [
            OPENSTACK,
            "--os-endpoint",
            f"{ironic}/v1",
            "--os-auth-type",
            "none",
            "baremetal",
            "node",
            "list",
            "--long",
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    (folder / "nodes.json").write_text(dump.stdout)
    assert len(json.loads(dump.stdout)) == len(example_nodes())
    url = f"sqlite:///{folder / 'nodes.db'}"
    result = CliRunner().invoke(
        build(), ["node", "import", str(folder / "nodes.json"), "--database", url]
    )
    assert result.exit_code == 0, result.output
    return url


def json_of(cli: Invoke, *args: str) -> object:
    result = cli(*args, "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def unordered(value: object) -> object:
    """``value`` with every list of names sorted: the database lists nodes in the order they
    were stored, Ironic in its own; the sets must be equal."""
    if isinstance(value, dict):  # the generation is the database's counter: Ironic has none
        return {key: unordered(item) for key, item in value.items() if key != "generation"}
    if isinstance(value, list):
        items = [unordered(item) for item in value]
        return sorted(items) if all(isinstance(i, str) for i in items) else items
    return value


def same(cli: Invoke, real: list[str], ours: list[str], *args: str) -> object:
    found = unordered(json_of(cli, *args, *real))
    assert found == unordered(json_of(cli, *args, *ours))
    return found


def test_match_and_capacity_answer_about_the_real_fleet(
    cli: Invoke, ironic: str, repo: Path, database: str
) -> None:
    real = ["--repo", str(repo), "--ironic-endpoint", ironic]
    ours = ["--repo", str(repo), "--database", database]
    matched = same(cli, real, ours, "match")
    assert isinstance(matched, list) and sum(row["count"] for row in matched) > 100
    capacity = same(cli, real, ours, "capacity")
    assert isinstance(capacity, dict) and capacity["flavors"]
    same(cli, real, ours, "match", "--explain")
    same(cli, real, ours, "match", "--node", "r7615-a01-u02")
    same(cli, real, ours, "match", "--node", "r7615-a01-u02", "--flavor", "m1.small")


def test_the_answer_follows_a_trait_changed_in_ironic(cli: Invoke, ironic: str, repo: Path) -> None:
    real = ["--repo", str(repo), "--ironic-endpoint", ironic, "--flavor", "m1.small.nicX"]

    def nodes() -> list[str]:
        rows = json_of(cli, "match", *real)
        assert isinstance(rows, list)
        return list(rows[0]["nodes"])

    assert "r7615-a01-u02" not in nodes()
    client = IronicHttp(ironic)
    try:
        client.call("PUT", "/nodes/r7615-a01-u02/traits/CUSTOM_NICX")
        assert "r7615-a01-u02" in nodes()
    finally:
        client.call("DELETE", "/nodes/r7615-a01-u02/traits/CUSTOM_NICX")
        client.close()
    assert "r7615-a01-u02" not in nodes()


def test_node_list_reads_the_real_ironic(cli: Invoke, ironic: str, database: str) -> None:
    def names(*args: str) -> list[object]:
        rows = json_of(cli, "node", "list", *args)
        assert isinstance(rows, list)
        return [(r["name"], r["resource_class"], r["traits"], r["maintenance"]) for r in rows]

    for filters in ([], ["--trait", "CUSTOM_NVME"], ["--resource-class", "m1.small"]):
        real = names("--ironic-endpoint", ironic, *filters)
        assert real == names("--database", database, *filters)
        assert real
    listed = json_of(
        cli, "node", "list", "--ironic-endpoint", ironic, "--not-trait", "HW_CPU_X86_AVX2"
    )
    assert isinstance(listed, list)
    assert all("HW_CPU_X86_AVX2" not in row["traits"] for row in listed)


def test_deploy_plan_reads_the_node_and_templates_of_the_real_ironic(
    cli: Invoke, ironic: str, repo: Path
) -> None:
    result = cli(
        "deploy",
        "plan",
        "r7615-a01-u02",
        "--ironic-endpoint",
        ironic,
        "--repo",
        str(repo),
        "--catalog",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    plan = json.loads(result.stdout)
    assert plan["node"] == "r7615-a01-u02" and plan["driver"] == "fake-hardware"
    assert plan["errors"] == []
    # The node's resource class is read from Ironic too: m1.small is not a m1.medium.
    elsewhere = cli(
        "deploy",
        "plan",
        "r7615-a01-u02",
        "--flavor",
        "m1.medium",
        "--ironic-endpoint",
        ironic,
        "--repo",
        str(repo),
        "-f",
        "json",
    )
    assert elsewhere.exit_code == 1
    assert json.loads(elsewhere.stdout)["errors"] == [
        "node r7615-a01-u02 has resource class m1.small; flavor m1.medium needs m1.medium: "
        "Nova would never place it there"
    ]
    missing = cli("deploy", "plan", "no-such-node", "--ironic-endpoint", ironic)
    assert missing.exit_code == 1
    assert missing.stderr.strip() == "error: no node 'no-such-node' in that Ironic"


def test_a_source_that_cannot_be_used_is_one_line(
    cli: Invoke, repo: Path, ironic: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    down = cli("match", "--repo", str(repo), "--ironic-endpoint", "http://127.0.0.1:9")
    assert down.exit_code == 1
    assert down.stderr.startswith("error: cannot reach Ironic")
    assert len(down.stderr.strip().splitlines()) == 1

    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    (tmp_path / "clouds.yaml").write_text("clouds: {}\n")
    unknown = cli("capacity", "--repo", str(repo), "--cloud", "nowhere")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("error: cannot use cloud 'nowhere':")
    assert len(unknown.stderr.strip().splitlines()) == 1

    both = cli("node", "list", "--cloud", "x", "--ironic-endpoint", ironic)
    assert both.exit_code == 2 and "give one of them" in both.stderr
    not_url = cli("node", "list", "--ironic-endpoint", "ironic.example")
    assert not_url.exit_code == 2 and "is not an http:// or https:// URL" in not_url.stderr


def test_a_cloud_from_clouds_yaml_with_no_auth(
    cli: Invoke, repo: Path, ironic: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clouds = {
        "clouds": {"lab": {"auth_type": "none", "baremetal_endpoint_override": f"{ironic}/v1"}}
    }
    (tmp_path / "clouds.yaml").write_text(json.dumps(clouds))
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    rows = json_of(cli, "node", "list", "--cloud", "lab", "--trait", "CUSTOM_NVME")
    assert isinstance(rows, list) and rows


def test_node_list_filters_sorts_and_limits_as_the_database_does(
    cli: Invoke, ironic: str, database: str
) -> None:
    """Ironic filters by state and resource class, and sorts and limits when no trait filter
    is given; with one, the order and the limit are applied here: the answer is the
    database's either way."""
    for args in (
        ["--provision-state", "enroll", "--sort", "name:desc", "--limit", "7"],
        ["--resource-class", "m1.small", "--sort", "uuid", "--limit", "1500"],
        ["--trait-any", "CUSTOM_NVME", "--trait-any", "CUSTOM_GPU", "--sort", "uuid:desc"],
        ["--not-trait-any", "HW_CPU_X86_AVX2", "--not-trait-any", "CUSTOM_NVME", "--limit", "9"],
        ["--not-trait", "HW_CPU_X86_AVX2", "--not-trait", "CUSTOM_NVME", "--sort", "name:desc"],
    ):
        real = json_of(cli, "node", "list", "--ironic-endpoint", ironic, *args)
        assert isinstance(real, list) and real, args
        assert real == json_of(cli, "node", "list", "--database", database, *args), args
    assert json_of(cli, "node", "list", "--ironic-endpoint", ironic, "--limit", "3") == (
        json_of(cli, "node", "list", "--database", database, "--limit", "3")
    )
    none = cli(
        "node", "list", "--ironic-endpoint", ironic, "--provision-state", "active", "-f", "value"
    )
    assert (none.exit_code, none.stdout) == (0, "")
