"""flavorsmith verify on the service's own data: the example catalog against its own Nova
flavors (synced, then changed behind the catalog's back) and its own nodes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flavorsmith.db.engine import make_engine
from flavorsmith.sync.kinds.nova_flavors import StoreFlavors
from tests.conftest import EXAMPLES, Invoke


@pytest.fixture
def args(tmp_path: Path, cli: Invoke) -> list[str]:
    database = ["--database", f"sqlite:///{tmp_path / 'own.db'}"]
    assert cli("node", "import", str(EXAMPLES / "nodes.yaml"), *database).exit_code == 0
    synced = cli("sync", "apply", "--yes", "--repo", str(EXAMPLES), *database)
    assert synced.exit_code == 0, synced.output
    return ["--repo", str(EXAMPLES), *database]


def flavors(args: list[str]) -> StoreFlavors:
    engine = make_engine(args[-1])
    return StoreFlavors(engine)


def test_synced_own_data_is_aligned(cli: Invoke, args: list[str]) -> None:
    result = cli("verify", *args, "-f", "json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["aligned"] is True and body["findings"] == []
    assert body["checked"] == {"flavors": 12, "nodes": 350, "providers": 350, "nova_flavors": 12}
    assert "by construction" in body["sources"]["placement"]
    table = cli("verify", *args)
    assert table.exit_code == 0
    assert table.stdout.startswith("aligned: 12 catalog flavors, 350 nodes")
    assert "by construction" in table.stdout


def test_a_flavor_missing_from_nova_and_extra_specs_that_differ(
    cli: Invoke, args: list[str]
) -> None:
    store = flavors(args)
    store.delete("m1.small")
    store.set_specs(
        "g1.8xh100", {"trait:CUSTOM_GPU_NVIDIA_H100": "forbidden", "hw:numa_nodes": "2"}
    )
    store.unset_spec("g1.8xh100", "capabilities:boot_mode")

    result = cli("verify", *args, "-f", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["subject"], f["detail"]) for f in findings] == [
        (
            "flavor-extra-spec",
            "g1.8xh100",
            "extra spec capabilities:boot_mode=uefi is in the catalog, not in Nova",
        ),
        (
            "flavor-extra-spec",
            "g1.8xh100",
            "extra spec hw:numa_nodes=2 is in Nova, not in the catalog",
        ),
        (
            "flavor-extra-spec",
            "g1.8xh100",
            "extra spec trait:CUSTOM_GPU_NVIDIA_H100 is 'forbidden' in Nova, 'required' in the "
            "catalog",
        ),
        ("flavor-missing", "m1.small", "in the catalog, not in Nova"),
    ]
    assert {f["fix"] for f in findings} == {"flavorsmith sync apply --only flavors"}

    table = cli("verify", *args)
    assert table.exit_code == 1
    assert "4 findings (1 flavor-missing, 3 flavor-extra-spec)" in table.stdout
    assert "| flavor-missing    | m1.small" in table.stdout

    # The fix it names brings them back in line.
    assert cli("sync", "apply", "--yes", *args).exit_code == 0
    assert cli("verify", *args).exit_code == 0


def test_access_and_public_ness(cli: Invoke, args: list[str]) -> None:
    store = flavors(args)
    store.remove_project("m1.medium.dedicated", _first_project(store))
    store.add_project("m1.medium.dedicated", "intruder")
    result = cli("verify", *args, "-f", "yaml")
    assert result.exit_code == 1
    assert "kind: flavor-access" in result.stdout and "intruder" in result.stdout


def _first_project(store: StoreFlavors) -> str:
    return store.observe()["m1.medium.dedicated"].projects[0]


def test_a_catalog_with_errors_is_refused(cli: Invoke, tmp_path: Path) -> None:
    result = cli(
        "verify",
        "--repo",
        str(EXAMPLES / "broken" / "wrong-type"),
        "--database",
        f"sqlite:///{tmp_path / 'x.db'}",
    )
    assert result.exit_code == 1
    assert "the catalog has errors" in result.stderr


def test_a_pool_leak_on_the_nodes_it_reads(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example catalog as it was before its fix (the public m1.medium marks nothing
    absent), synced: Nova agrees with the catalog, but the dedicated pool leaks."""
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    medium = repo / "hardware" / "flavors" / "m1.medium.yaml"
    medium.write_text(medium.read_text().split("traits:")[0])
    monkeypatch.chdir(repo)
    database = ["--database", f"sqlite:///{tmp_path / 'own.db'}"]
    assert cli("node", "import", str(EXAMPLES / "nodes.yaml"), *database).exit_code == 0
    assert cli("sync", "apply", "--yes", *database).exit_code == 0

    result = cli("verify", *database, "-f", "json")
    assert result.exit_code == 1
    body = json.loads(result.stdout)
    assert body["counts"] == {"pool-leak": 1}
    assert body["findings"] == [
        {
            "kind": "pool-leak",
            "subject": "m1.medium.dedicated",
            "detail": "'m1.medium' (public) reaches 48 of the 48 nodes of 'm1.medium.dedicated'",
            "fix": "mark CPU_AVX512 absent in 'm1.medium' (trait: CPU_AVX512, state: absent), "
            "in hardware/flavors/m1.medium.yaml; or put the pool's nodes in a Nova aggregate "
            "with trait:CUSTOM_CPU_AVX512=required and set "
            "[scheduler]enable_isolated_aggregate_filtering",
        }
    ]
    table = cli("verify", *database)
    assert table.exit_code == 1
    assert "1 finding (1 pool-leak)" in table.stdout

    # The fix it names closes the leak.
    medium.write_text(medium.read_text() + "traits:\n  - trait: CPU_AVX512\n    state: absent\n")
    assert cli("sync", "apply", "--yes", *database).exit_code == 0
    assert cli("verify", *database).exit_code == 0


def test_an_unknown_cloud_is_one_line(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = cli("verify", "--cloud", "nope", "--repo", str(EXAMPLES))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: cannot use cloud 'nope': no cloud named 'nope': no clouds.yaml found (set "
        "OS_CLIENT_CONFIG_FILE, or write ~/.config/openstack/clouds.yaml)\n"
    )
