"""flavorsmith provider, flavor-profile and service-flavor on a real SQLite database, with the
baremetal provider checking flavor data against the example catalog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Invoke

VMX_ON = "CUSTOM_BM_CONFIG_BIOS_VMX_ON"
VMX_OFF = "CUSTOM_BM_CONFIG_BIOS_VMX_OFF"
MIRROR = "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"
VMX_MIRROR = json.dumps({"resource_class": "c2.large", "deploy_templates": [VMX_ON, MIRROR]})


@pytest.fixture
def db(example_repo: Path, tmp_path: Path) -> list[str]:
    """The options every command takes: a fresh database and the example repository."""
    return ["--database", f"sqlite:///{tmp_path / 'providers.db'}", "--repo", str(example_repo)]


def run(cli: Invoke, *args: str) -> Any:
    """A command that must succeed, with -f json, as data."""
    result = cli(*args, "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def fails(cli: Invoke, *args: str) -> str:
    """A command that must fail cleanly: its one stderr line."""
    result = cli(*args)
    assert result.exit_code == 1, result.stdout
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr
    return result.stderr


def database_only(db: list[str]) -> list[str]:
    return db[:2]


def test_provider_list_and_capabilities(cli: Invoke, example_repo: Path) -> None:
    listed = run(cli, "provider", "list")
    assert [p["name"] for p in listed] == ["noop", "baremetal"]
    assert listed[1]["description"].startswith("Standalone Ironic")
    assert cli("provider", "list", "-f", "value", "-c", "name").stdout == "noop\nbaremetal\n"

    capabilities = run(cli, "provider", "capabilities", "baremetal", "--repo", str(example_repo))
    assert [c["name"] for c in capabilities] == ["resource_class", "deploy_templates"]
    assert "c2.large" in capabilities[0]["description"]
    assert VMX_OFF in capabilities[1]["description"]
    table = cli("provider", "capabilities", "noop").stdout
    assert "| noop_option | Any value; the no-op provider accepts every flavor. |" in table

    assert fails(cli, "provider", "capabilities", "octavia") == (
        "error: Provider 'octavia' is not enabled.\n"
    )


def test_providers_option_and_failed_drivers(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    result = cli("provider", "list", "--providers", "noop:Only noop,missing:Not installed")
    assert result.exit_code == 0
    assert "| noop | Only noop   |" in result.stdout
    assert "missing" not in result.stdout
    assert result.stderr == (
        "warning: provider missing is disabled: no driver named 'missing' is installed "
        "(entry point group flavorsmith.provider_drivers)\n"
    )
    monkeypatch.setenv("FLAVORSMITH_PROVIDERS", "baremetal:From the environment")
    assert run(cli, "provider", "list") == [
        {"name": "baremetal", "description": "From the environment"}
    ]
    bad = cli("provider", "list", "--providers", ":no name")
    assert bad.exit_code == 2
    assert "--providers" in bad.stderr


def test_flavor_profile_lifecycle(cli: Invoke, db: list[str]) -> None:
    created = run(
        cli,
        "flavor-profile", "create", "--name", "vmx-mirror", "--provider", "baremetal",
        "--flavor-data", VMX_MIRROR, *db,
    )  # fmt: skip
    assert created["name"] == "vmx-mirror"
    assert created["provider_name"] == "baremetal"
    assert json.loads(created["flavor_data"]) == json.loads(VMX_MIRROR)
    ident = created["id"]

    assert run(cli, "flavor-profile", "list", *database_only(db)) == [created]
    assert run(cli, "flavor-profile", "show", "vmx-mirror", *database_only(db)) == created
    assert run(cli, "flavor-profile", "show", ident.upper(), *database_only(db)) == created
    table = cli("flavor-profile", "show", ident, *database_only(db)).stdout
    assert "| provider_name | baremetal" in table

    renamed = run(cli, "flavor-profile", "set", "vmx-mirror", "--name", "renamed", *db)
    assert renamed == {**created, "name": "renamed"}
    moved = run(
        cli,
        "flavor-profile", "set", ident, "--provider", "noop", "--flavor-data",
        '{"noop_option": "x"}', *db,
    )  # fmt: skip
    assert (moved["provider_name"], moved["flavor_data"]) == ("noop", '{"noop_option": "x"}')

    nothing = cli("flavor-profile", "set", ident, *db)
    assert nothing.exit_code == 2
    assert "nothing to change" in nothing.stderr

    deleted = cli("flavor-profile", "delete", "renamed", *database_only(db))
    assert (deleted.exit_code, deleted.stdout) == (0, f"deleted flavor profile {ident} (renamed)\n")
    assert run(cli, "flavor-profile", "list", *database_only(db)) == []
    assert fails(cli, "flavor-profile", "show", "renamed", *database_only(db)) == (
        "error: No flavor profile has the id or name 'renamed'.\n"
    )


def test_a_shared_profile_name_must_be_given_as_an_id(cli: Invoke, db: list[str]) -> None:
    ids = sorted(
        run(
            cli,
            "flavor-profile", "create", "--name", "same", "--provider", "noop",
            "--flavor-data", "{}", *db,
        )["id"]
        for _ in range(2)
    )  # fmt: skip
    assert fails(cli, "flavor-profile", "show", "same", *database_only(db)) == (
        f"error: 2 flavor profiles are named 'same': {', '.join(ids)}; give an id instead\n"
    )
    assert fails(cli, "flavor-profile", "delete", "same", *database_only(db)).startswith(
        "error: 2 flavor profiles are named 'same'"
    )
    assert fails(cli, "service-flavor", "create", "--name", "f", "--profile", "same", *db[:2])
    assert run(cli, "flavor-profile", "show", ids[0], *database_only(db))["id"] == ids[0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_BM_CONFIG_NOPE"]},
            "deploy_templates: 'CUSTOM_BM_CONFIG_NOPE' is not a deploy template in the catalog; "
            f"defined: {VMX_OFF}, {VMX_ON}, {MIRROR}, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": [VMX_ON, VMX_OFF]},
            f"deploy_templates: {VMX_ON} and {VMX_OFF} both request bios.apply_configuration; "
            "Ironic refuses two templates with one step",
        ),
        (
            {"resource_class": "z9.huge"},
            "resource_class 'z9.huge' is not defined by any device type; defined: c2.diskless, "
            "c2.large, g1.8xh100, m1.medium, m1.small",
        ),
        ({"deploy_templates": []}, "'resource_class' is required by the baremetal provider"),
    ],
)
def test_baremetal_refuses_bad_flavor_data(
    cli: Invoke, db: list[str], data: dict[str, Any], message: str
) -> None:
    args = ["--name", "bad", "--provider", "baremetal", "--flavor-data", json.dumps(data)]
    assert fails(cli, "flavor-profile", "create", *args, *db) == (
        f"error: Provider 'baremetal' does not support a requested option: {message}\n"
    )
    assert run(cli, "flavor-profile", "list", *database_only(db)) == []


def test_profile_input_errors(cli: Invoke, db: list[str]) -> None:
    def create(provider: str, data: str, *extra: str) -> str:
        return fails(
            cli,
            "flavor-profile", "create", "--name", "p", "--provider", provider,
            "--flavor-data", data, *extra, *db,
        )  # fmt: skip

    assert create("noop", "[[1]]") == (
        "error: Provider 'noop' does not support a requested option: [[1]] is not a JSON "
        "object, a string or a list of plain values\n"
    )
    assert create("noop", "{") == "error: { is not a valid option for flavor_data\n"
    assert create("octavia", "{}") == "error: Provider 'octavia' is not enabled.\n"
    data = json.dumps({"resource_class": "c2.large"})
    assert create("baremetal", data, "--providers", "noop") == (
        "error: Provider 'baremetal' is not enabled.\n"
    )
    assert run(cli, "flavor-profile", "list", *database_only(db)) == []


def test_service_flavor_lifecycle_and_in_use_profile(cli: Invoke, db: list[str]) -> None:
    profile = run(
        cli,
        "flavor-profile", "create", "--name", "vmx-mirror", "--provider", "baremetal",
        "--flavor-data", VMX_MIRROR, *db,
    )  # fmt: skip
    created = run(
        cli,
        "service-flavor", "create", "--name", "c2.large.vmx", "--profile", "vmx-mirror",
        "--description", "VMX on, mirrored disks", *database_only(db),
    )  # fmt: skip
    assert {k: v for k, v in created.items() if k != "id"} == {
        "name": "c2.large.vmx",
        "description": "VMX on, mirrored disks",
        "enabled": True,
        "flavor_profile_id": profile["id"],
    }
    assert run(cli, "service-flavor", "list", *database_only(db)) == [created]
    assert run(cli, "service-flavor", "show", "c2.large.vmx", *database_only(db)) == created
    assert run(cli, "service-flavor", "show", created["id"], *database_only(db)) == created
    listed = cli("service-flavor", "list", "-f", "value", "-c", "name", "-c", "enabled", *db[:2])
    assert listed.stdout == "c2.large.vmx True\n"

    assert fails(
        cli, "service-flavor", "create", "--name", "c2.large.vmx", "--profile", profile["id"],
        *database_only(db),
    ) == "error: A flavor of c2.large.vmx already exists.\n"  # fmt: skip
    assert (
        fails(
            cli, "service-flavor", "create", "--name", "x", "--profile", "nope", *database_only(db)
        )
        == "error: No flavor profile has the id or name 'nope'.\n"
    )

    in_use = f"error: Flavor profile {profile['id']} is in use and cannot be modified.\n"
    assert fails(cli, "flavor-profile", "delete", "vmx-mirror", *database_only(db)) == in_use
    assert fails(cli, "flavor-profile", "set", "vmx-mirror", "--provider", "noop", *db) == in_use
    other = json.dumps({"resource_class": "c2.large"})
    assert fails(cli, "flavor-profile", "set", "vmx-mirror", "--flavor-data", other, *db) == in_use
    assert run(cli, "flavor-profile", "set", "vmx-mirror", "--name", "still-ok", *db)["name"] == (
        "still-ok"
    )

    changed = run(
        cli,
        "service-flavor", "set", "c2.large.vmx", "--name", "vmx", "--description", "d",
        "--disable", *database_only(db),
    )  # fmt: skip
    assert changed == {**created, "name": "vmx", "description": "d", "enabled": False}
    assert run(cli, "service-flavor", "set", "vmx", "--enable", *database_only(db))["enabled"]
    nothing = cli("service-flavor", "set", "vmx", *database_only(db))
    assert nothing.exit_code == 2

    deleted = cli("service-flavor", "delete", "vmx", *database_only(db))
    assert deleted.stdout == f"deleted service flavor {created['id']} (vmx)\n"
    assert run(cli, "service-flavor", "list", *database_only(db)) == []
    assert fails(cli, "service-flavor", "delete", "vmx", *database_only(db)) == (
        "error: No service flavor has the id or name 'vmx'.\n"
    )
    assert cli("flavor-profile", "delete", "still-ok", *database_only(db)).exit_code == 0


def test_resolve_gives_instance_traits_and_nodes(
    cli: Invoke, db: list[str], tmp_path: Path
) -> None:
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(
        "nodes:\n"
        f"  - {{name: dl360-a01-u01, resource_class: c2.large, traits: [{VMX_ON}, {MIRROR}]}}\n"
        f"  - {{name: dl360-a01-u02, resource_class: c2.large, traits: [{MIRROR}, {VMX_ON}, "
        "HW_CPU_X86_AVX2]}\n"
        f"  - {{name: dl360-a01-u03, resource_class: c2.large, traits: [{VMX_ON}]}}\n"
        f"  - {{name: r7615-a01-u01, resource_class: m1.small, traits: [{VMX_ON}, {MIRROR}]}}\n"
    )
    imported = cli("node", "import", str(nodes), *database_only(db))
    assert imported.stdout == "created: 4\nupdated: 0\nunchanged: 0\n"
    profile = run(
        cli,
        "flavor-profile", "create", "--name", "vmx-mirror", "--provider", "baremetal",
        "--flavor-data", VMX_MIRROR, *db,
    )  # fmt: skip
    flavor = run(
        cli, "service-flavor", "create", "--name", "c2.large.vmx", "--profile", profile["id"],
        *database_only(db),
    )  # fmt: skip

    resolved = run(cli, "service-flavor", "resolve", "c2.large.vmx", *db)
    assert resolved == {
        "flavor_id": flavor["id"],
        "flavor_name": "c2.large.vmx",
        "flavor_profile_id": profile["id"],
        "provider": "baremetal",
        "flavor_data": json.loads(VMX_MIRROR),
        "metadata": {
            "resource_class": "c2.large",
            "placement_resource_class": "CUSTOM_C2_LARGE",
            "deploy_templates": [VMX_ON, MIRROR],
            "instance_info": {"traits": [VMX_ON, MIRROR]},
            "nodes": ["dl360-a01-u01", "dl360-a01-u02"],
        },
    }
    table = cli("service-flavor", "resolve", flavor["id"], *db).stdout
    assert f"| metadata.instance_info.traits     | {VMX_ON}" in table
    assert "| metadata.nodes                    | dl360-a01-u01" in table
    assert "|                                   | dl360-a01-u02" in table
    assert run(cli, "service-flavor", "resolve", "c2.large.vmx", "--provider", "baremetal", *db)

    assert fails(cli, "service-flavor", "resolve", "c2.large.vmx", "--provider", "noop", *db) == (
        f"error: Flavor '{flavor['id']}' is not compatible with provider 'noop': its profile "
        "uses provider 'baremetal'\n"
    )
    assert (
        fails(cli, "service-flavor", "resolve", "c2.large.vmx", "--providers", "noop", *db)
        == "error: Provider 'baremetal' is not enabled.\n"
    )

    cli("service-flavor", "set", "c2.large.vmx", "--disable", *database_only(db))
    assert fails(cli, "service-flavor", "resolve", "c2.large.vmx", *db) == (
        "error: The selected flavor is not allowed in this deployment: c2.large.vmx\n"
    )


def test_resolve_revalidates_against_the_catalog(
    cli: Invoke, db: list[str], example_repo: Path
) -> None:
    run(
        cli,
        "flavor-profile", "create", "--name", "vmx-mirror", "--provider", "baremetal",
        "--flavor-data", VMX_MIRROR, *db,
    )  # fmt: skip
    run(cli, "service-flavor", "create", "--name", "f", "--profile", "vmx-mirror", *db[:2])
    (example_repo / "hardware" / "deploy-templates" / f"{MIRROR}.yaml").unlink()
    message = fails(cli, "service-flavor", "resolve", "f", *db)
    assert message.endswith(
        f"error: Provider 'baremetal' does not support a requested option: deploy_templates: "
        f"'{MIRROR}' is not a deploy template in the catalog; defined: {VMX_OFF}, {VMX_ON}, "
        "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE\n"
    )
    assert message.startswith("warning: the catalog at ")


def test_a_catalog_with_errors_is_a_warning(cli: Invoke, db: list[str], example_repo: Path) -> None:
    (example_repo / "hardware" / "deploy-templates" / "broken.yaml").write_text("name: [\n")
    result = cli(
        "flavor-profile", "create", "--name", "p", "--provider", "baremetal",
        "--flavor-data", VMX_MIRROR, *db, "-f", "json",
    )  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout)["provider_name"] == "baremetal"
    assert result.stderr.startswith(f"warning: the catalog at {example_repo} has ")
    assert "the baremetal provider uses the definitions that loaded" in result.stderr


def test_a_missing_repository_is_a_warning(cli: Invoke, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("provider", "capabilities", "baremetal", "--repo", str(empty), "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)[0]["description"].endswith("one of: none defined")
    assert result.stderr.startswith(f"warning: {empty} is not a catalog repository")
    # The noop provider never reads the catalog, so it needs no repository.
    noop = cli("provider", "capabilities", "noop", "--repo", str(empty))
    assert (noop.exit_code, noop.stderr) == (0, "")


def test_a_crashing_driver_is_one_warning_and_an_error(
    cli: Invoke, db: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from flavorsmith.providers.noop import NoopDriver

    def crash(self: NoopDriver, metadata: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(NoopDriver, "validate_flavor", crash)
    message = fails(
        cli,
        "flavor-profile", "create", "--name", "p", "--provider", "noop", "--flavor-data", "{}",
        *db,
    )  # fmt: skip
    assert message == (
        "warning: provider noop crashed validating flavor data: RuntimeError: boom\n"
        "error: Provider 'noop' failed while validating the flavor data; the error is in the "
        "service log\n"
    )
